package io.sluice.connect.preflight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** Which configs and server versions the publication warning is for, and the set-up it proposes. */
class PublicationCheckTest {
  private static final Map<String, String> FILTERED = Map.of("publication.autocreate.mode", "filtered",
      "publication.name", "orders_pub", "table.include.list", "public\\.orders, sales.lines");

  @Test
  void filteredIsWarnedAboutFromVersion15OrWhenTheVersionIsUnknown() {
    for (OptionalInt version : new OptionalInt[] {OptionalInt.empty(), OptionalInt.of(15), OptionalInt.of(17),
        OptionalInt.of(18)}) {
      String w = PublicationCheck.warning(FILTERED, version).orElseThrow();
      assertTrue(w.contains("CREATE PUBLICATION orders_pub FOR TABLE public.orders, sales.lines"), w);
      assertTrue(w.contains("publication.autocreate.mode=disabled") && w.contains("all_tables"), w);
    }
    assertEquals(Optional.empty(), PublicationCheck.warning(FILTERED, OptionalInt.of(14)));
    assertTrue(PublicationCheck.warning(Map.of("publication.autocreate.mode", " FILTERED "), OptionalInt.empty())
        .orElseThrow().contains("CREATE PUBLICATION dbz_publication FOR TABLE <the captured tables>"));
  }

  @Test
  void theOtherModesAreNot() {
    for (String mode : new String[] {"all_tables", "disabled", "no_tables"}) {
      assertEquals(Optional.empty(), PublicationCheck.warning(Map.of("publication.autocreate.mode", mode),
          OptionalInt.of(17)), mode);
    }
    assertEquals(Optional.empty(), PublicationCheck.warning(Map.of(), OptionalInt.of(17)));
  }

  @Test
  void tablesAreNamedOnlyWhereTheIncludeListNamesThemPlainly() {
    assertEquals("<the tables table.include.list matches>",
        PublicationCheck.tables(Map.of("table.include.list", "public\\.orders_.*")));
    assertEquals("<the tables table.include.list matches>",
        PublicationCheck.tables(Map.of("table.include.list", "public\\.(orders")));
  }
}
