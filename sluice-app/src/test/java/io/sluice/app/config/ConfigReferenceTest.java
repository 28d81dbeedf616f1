package io.sluice.app.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md's reference of settings is what {@link ConfigDefinitions} makes of it, so that a key added,
 * renamed or given another default cannot leave the documentation behind.
 */
class ConfigReferenceTest {
  private static final Path DOC = Path.of("../docs/configuration.md");

  @Test
  void theReferenceInTheDocsIsTheTables() throws Exception {
    String text = Files.readString(DOC);
    String generated = ConfigReference.rewrite(text);
    if (Boolean.getBoolean("sluice.docs.write") && !generated.equals(text)) {
      Files.writeString(DOC, generated);
      return;
    }
    assertEquals(generated, text, "docs/configuration.md's reference of settings is generated from ConfigDefinitions;"
        + " regenerate it with\n  " + ConfigReference.REGENERATE + "\n");
  }

  @Test
  void everyKeyHasARowWithItsDefaultAndFlag() {
    String reference = ConfigReference.markdown();
    for (ConfigKey<?> key : ConfigDefinitions.keys()) {
      String row = reference.lines().filter(l -> l.startsWith("| `" + key.name() + "` |")).findFirst()
          .orElseThrow(() -> new AssertionError("no row for " + key.name()));
      key.defaultValue().ifPresent(d -> assertTrue(row.contains("`" + d + "`"), row));
      key.flag().ifPresent(f -> assertTrue(row.contains("`" + f.name() + " "), row));
    }
    assertTrue(reference.contains("| `connect.worker.*` |"), reference);
    assertTrue(reference.contains("| `<component>.web.config.file` |"), reference);
  }
}
