package io.sluice.console.web;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.ops.connectors.ConfigChange;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The connector editor's answer carries what the worker warned about, refused or accepted, as the CLI prints it. */
class ConnectorVerdictTest {
  @Test
  void aWarningTravelsWithTheChangeAndWithARefusal() {
    String warning = "publication.autocreate.mode=filtered: at every task start Debezium reads pg_publication_tables";
    ObjectNode accepted = ConnectorConsole.verdict("orders-source", List.of(), List.of(), List.of(warning), "update");
    assertEquals(warning, accepted.path("warnings").path(0).asText(), accepted::toString);
    assertEquals(1, accepted.path("warnings").size());
    ObjectNode refused = ConnectorConsole.verdict("orders-source",
        List.of(new ConfigChange.Problem("column.exclude.list", "Column at_local ...")), List.of(), List.of(warning),
        "refused");
    assertEquals(warning, refused.path("warnings").path(0).asText());
    assertEquals("Column at_local ...", refused.path("errors").path("column.exclude.list").path(0).asText());
    ObjectNode quiet = ConnectorConsole.verdict("orders-source", List.of(), List.of(), List.of(), "create");
    assertEquals(0, quiet.path("warnings").size(), "an empty list, so the page need not test for it");
  }
}
