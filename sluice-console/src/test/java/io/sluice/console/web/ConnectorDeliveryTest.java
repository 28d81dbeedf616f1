package io.sluice.console.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The connector page's delivery guarantee says what {@code sluice connectors describe -o json} says, in its shape. */
class ConnectorDeliveryTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static ObjectNode config(Map<String, String> c) {
    return JSON.valueToTree(c);
  }

  @Test
  void aSourceThatRequiresItIsExactlyOnceWithItsBoundary() {
    ObjectNode d = ConnectorConsole.delivery(config(Map.of("connector.class",
        "io.debezium.connector.postgresql.PostgresConnector", "exactly.once.support", "required")), "source");
    assertEquals("exactly once", d.path("guarantee").asText());
    assertTrue(d.path("why").isNull(), d::toString);
    assertEquals("poll", d.path("transaction_boundary").asText());
    ObjectNode interval = ConnectorConsole.delivery(config(Map.of("connector.class",
        "io.debezium.connector.postgresql.PostgresConnector", "exactly.once.support", "required",
        "transaction.boundary", "interval")), "source");
    assertEquals("interval", interval.path("transaction_boundary").asText());
  }

  @Test
  void aSinkAndASourceThatDoesNotRequireItAreAtLeastOnceAndSayWhy() {
    ObjectNode sink = ConnectorConsole.delivery(config(Map.of("connector.class",
        "io.sluice.sink.jdbc.SluiceJdbcSinkConnector")), "sink");
    assertEquals("at least once", sink.path("guarantee").asText());
    assertTrue(sink.path("why").asText().startsWith("a sink"), sink::toString);
    assertTrue(sink.path("transaction_boundary").isNull(), sink::toString);
    ObjectNode requested = ConnectorConsole.delivery(config(Map.of("connector.class",
        "io.debezium.connector.postgresql.PostgresConnector", "exactly.once.support", "requested")), "source");
    assertEquals("at least once", requested.path("guarantee").asText());
    assertTrue(requested.path("why").asText().contains("exactly.once.support is not required"), requested::toString);
  }
}
