package io.sluice.app.up;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.app.Main;
import io.sluice.app.config.ConfigDefinitions;
import io.sluice.app.config.ConfigKey;
import io.sluice.app.kafka.KafkaCommand;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The flags of sluice up and sluice kafka are made from the table of settings: its names, keys and defaults. */
class ConfigFlagsTest {

  @Test
  void aFlagGivenLandsUnderItsKeyAsTyped() {
    CommandLine line = Main.commandLine("up");
    CommandLine.ParseResult parsed = line.parseArgs("up", "--kafka-port", "1234", "--storage.retention", "30d",
        "--plugin-path", "/opt/plugins", "--set", "ui.port=3001");
    UpCommand up = (UpCommand) parsed.subcommand().commandSpec().userObject();
    assertEquals(Map.of("kafka.port", "1234", "metrics.retention", "30d", "connect.plugin.path", "/opt/plugins"),
        up.given);
    assertEquals(Map.of("ui.port", "3001"), up.extra);
  }

  /** A flag's older name, which scripts may still give, sets the same key; the help shows the new name only. */
  @Test
  void aFlagsOlderNameStillWorks() {
    CommandLine line = Main.commandLine("up");
    CommandLine.ParseResult parsed = line.parseArgs("up", "--ui-port", "3001");
    assertEquals(Map.of("console.port", "3001"), ((UpCommand) parsed.subcommand().commandSpec().userObject()).given);
    CommandLine.Model.CommandSpec up = line.getSubcommands().get("up").getCommandSpec();
    assertTrue(up.findOption("--ui-port").hidden());
    assertTrue(!up.findOption("--console-port").hidden());
  }

  @Test
  void theHelpNamesEachFlagsKeyAndDefault() {
    CommandLine.Model.CommandSpec up = Main.commandLine("up").getSubcommands().get("up").getCommandSpec();
    CommandLine.Model.OptionSpec port = up.findOption("--kafka-port");
    assertEquals("PORT", port.paramLabel());
    assertEquals("The embedded broker's client port (kafka.port, default 9092)", port.description()[0]);
    assertTrue(up.findOption("--storage.retention").description()[0].endsWith("(metrics.retention, default 15d)"));
    assertEquals(null, up.findOption("--node-id"), "sluice kafka's alone");
    CommandLine.Model.CommandSpec kafka = Main.commandLine("kafka").getSubcommands().get("kafka").getCommandSpec();
    assertEquals("ID", kafka.findOption("--node-id").paramLabel());
    assertTrue(kafka.findOption("--kafka-port") != null && kafka.findOption("--set") != null);
  }

  @Test
  void everyFlagOfTheTableIsTakenBySomeCommand() {
    Set<ConfigKey<?>> taken = new HashSet<>(UpCommand.flagKeys());
    taken.addAll(KafkaCommand.FLAG_KEYS);
    for (ConfigKey<?> key : ConfigDefinitions.keys()) {
      assertEquals(key.flag().isPresent(), taken.contains(key), key.name());
    }
  }
}
