package io.sluice.app.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The table of sluice.yaml settings: one entry per key, each refusing a bad value by name, value and what is allowed. */
class ConfigDefinitionsTest {

  @Test
  void everyNameAndFlagIsDefinedOnceAndEveryDefaultIsValid() {
    Set<String> names = new HashSet<>();
    Set<String> flags = new HashSet<>();
    for (ConfigKey<?> key : ConfigDefinitions.keys()) {
      assertTrue(names.add(key.name()), "defined twice: " + key.name());
      key.aliases().forEach(a -> assertTrue(names.add(a), "an older name taken twice: " + a));
      key.flag().ifPresent(f -> assertTrue(flags.add(f.name()), "flag defined twice: " + f.name()));
      key.defaultValue().ifPresent(key::parse);
      assertFalse(key.doc().isBlank(), key.name() + " says what it is for");
    }
    assertEquals(List.of(), ConfigDefinitions.problems(ConfigDefinitions.defaults()));
  }

  @Test
  void aKeyIsKnownByItsNameItsPrefixOrItsComponent() {
    assertTrue(ConfigDefinitions.known("kafka.port") && ConfigDefinitions.known("connect.worker.producer.linger.ms"));
    assertTrue(ConfigDefinitions.known("metrics.web.config.file") && ConfigDefinitions.known("ui.web.roles.file"));
    assertFalse(ConfigDefinitions.known("kafka.prot"));
    assertFalse(ConfigDefinitions.known("connect.worker."), "a prefix alone sets nothing");
    assertFalse(ConfigDefinitions.known("broker.web.config.file"), "no such component");
  }

  @Test
  void aBadValueIsRefusedNamingTheKeyTheValueAndWhatIsAllowed() {
    assertEquals(List.of(
            "kafka.port must be a port number (0-65535), not 'ninety'",
            "registry.max.request.bytes must be more than 0 bytes, not '0'",
            "metrics.retention must be a duration such as 15s, 1m30s or 15d, not 'forever'",
            "exporter.move.hold must be a duration such as 15s, 1m30s or 15d, not '15 s'",
            "registry.web.config.file must be a path (Nul character not allowed), not 'a\0b'",
            "dataplane.heap must be a heap size such as 512m or 1g, not '1 GB'",
            "dataplane.nice must be a nice value from 0 to 19, not '-1'"),
        ConfigDefinitions.problems(Map.of("kafka.port", "ninety", "registry.max.request.bytes", "0",
            "metrics.retention", "forever", "exporter.move.hold", "15 s", "registry.web.config.file", "a\0b",
            "dataplane.heap", "1 GB", "dataplane.nice", "-1")));
  }

  /** An older name keeps working, in a file and on the command line; where both are set, the key's own name wins. */
  @Test
  void anOlderNameOfAKeyMeansTheKey() {
    ConfigKey<Integer> port = ConfigKey.of("console.port", new ConfigType.Port(), "3000", "The console.")
        .alias("dashboard.port");
    List<ConfigDefinition> table = List.of(port);
    assertEquals(Map.of("console.port", "3001"), ConfigDefinitions.canonical(table, Map.of("dashboard.port", "3001")));
    assertEquals(Map.of("console.port", "3002"),
        ConfigDefinitions.canonical(table, Map.of("dashboard.port", "3001", "console.port", "3002")));
    assertEquals("console.port", ConfigDefinitions.canonicalName(table, "dashboard.port"));
    assertTrue(ConfigDefinitions.definitionOf(table, "console.port").isPresent());
  }

  /** The console's keys were ui.*: a file written for them means the same. */
  @Test
  void theConsolesOlderKeysMeanItsKeys() {
    assertEquals(Map.of("console.port", "3001", "console.alerts.url", "http://am:9093",
            "console.web.config.file", "web.yml", "metrics.web.config.file", "m.yml"),
        ConfigDefinitions.canonical(Map.of("ui.port", "3001", "ui.alerts.url", "http://am:9093",
            "ui.web.config.file", "web.yml", "metrics.web.config.file", "m.yml")));
    assertTrue(ConfigDefinitions.known("ui.metrics.http.config.file") && ConfigDefinitions.known("ui.web.roles.file"));
    assertEquals(List.of("--ui-port"), ConfigDefinitions.CONSOLE_PORT.flag().orElseThrow().oldNames());
  }

  @Test
  void aDefaultTheTypeRefusesIsAMistakeInTheTable() {
    var e = assertThrows(IllegalArgumentException.class,
        () -> ConfigKey.of("x.port", new ConfigType.Port(), "eighty", "A port."));
    assertEquals("x.port: default 'eighty' must be a port number (0-65535)", e.getMessage());
    assertEquals(Optional.empty(), ConfigKey.optional("y", new ConfigType.Text("Y"), "Y.").defaultValue());
  }
}
