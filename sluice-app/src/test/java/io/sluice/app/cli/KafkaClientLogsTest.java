package io.sluice.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.app.Main;
import java.net.URL;
import java.util.Map;
import java.util.function.Function;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.ConfigurationSource;
import org.apache.logging.log4j.core.config.xml.XmlConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The logging configuration the distribution runs with (sluice-app's {@code log4j2.xml}, the one in
 * {@code lib/sluice-app.jar}), loaded as a process of the distribution loads it: the Kafka clients' warnings are quiet
 * unless {@code --verbose} asked for them, and nothing else changes.
 */
class KafkaClientLogsTest {
  static final String NETWORK_CLIENT = "org.apache.kafka.clients.NetworkClient";
  static final String OFFSET_FETCHER = "org.apache.kafka.clients.consumer.internals.OffsetFetcherUtils";
  static final String ADMIN_CLIENT = "org.apache.kafka.clients.admin.KafkaAdminClient";

  @AfterEach
  void clear() {
    System.clearProperty(KafkaClientLogs.PROPERTY);
  }

  /** The level each logger gets from the packaged configuration, with the system properties as they are now. */
  static Function<String, Level> packaged() throws Exception {
    URL url = Main.class.getResource("/log4j2.xml");
    assertTrue(url.getPath().endsWith("sluice-app/target/classes/log4j2.xml")
        || url.getPath().endsWith("sluice-app.jar!/log4j2.xml"), url.toString());
    LoggerContext context = new LoggerContext("packaged");
    XmlConfiguration config = new XmlConfiguration(context, ConfigurationSource.fromUri(url.toURI()));
    context.start(config);
    // The file itself, not log4j's fallback (errors only, for everything) when it cannot read it.
    assertEquals(url.getPath(), context.getConfiguration().getConfigurationSource().getLocation());
    assertEquals(Level.INFO, context.getLogger("io.sluice.app.Main").getLevel());
    return name -> context.getLogger(name).getLevel();
  }

  @Test
  void theClientsWarnOnlyWhenVerbose() throws Exception {
    Function<String, Level> quiet = packaged();
    for (String client : new String[] {NETWORK_CLIENT, OFFSET_FETCHER, ADMIN_CLIENT}) {
      assertEquals(Level.ERROR, quiet.apply(client), client);
    }
    KafkaClientLogs.show();
    Function<String, Level> verbose = packaged();
    for (String client : new String[] {NETWORK_CLIENT, OFFSET_FETCHER, ADMIN_CLIENT}) {
      assertEquals(Level.WARN, verbose.apply(client), client);
    }
  }

  /** Sluice's own lines, the broker's and Connect's warnings are as they were, verbose or not. */
  @Test
  void nothingElseChanges() throws Exception {
    Map<String, Level> expected = Map.of("io.sluice.app.up.Supervisor", Level.INFO,
        "org.apache.kafka.connect.runtime.WorkerSinkTask", Level.WARN, "kafka.server.ReplicaManager", Level.WARN,
        "org.apache.kafka.common.network.Selector", Level.WARN, "io.debezium.connector.postgresql.PostgresConnector",
        Level.WARN);
    Function<String, Level> quiet = packaged();
    expected.forEach((name, level) -> assertEquals(level, quiet.apply(name), name));
    KafkaClientLogs.show();
    Function<String, Level> verbose = packaged();
    expected.forEach((name, level) -> assertEquals(level, verbose.apply(name), name));
  }

  /** {@code --verbose} is every command's, before or after its name, and is set as the command line is parsed. */
  @Test
  void verboseIsAnOptionOfEveryCommand() {
    Main.commandLine("version").parseArgs("version");
    assertEquals(null, System.getProperty(KafkaClientLogs.PROPERTY));
    Main.commandLine("version", "--verbose").parseArgs("version", "--verbose");
    assertEquals("WARN", System.getProperty(KafkaClientLogs.PROPERTY));
    System.clearProperty(KafkaClientLogs.PROPERTY);
    Main.commandLine("--verbose", "dlq").parseArgs("--verbose", "dlq");
    assertEquals("WARN", System.getProperty(KafkaClientLogs.PROPERTY));
  }

  /** sluice up passes its setting to the control plane; the data plane's clients are Connect's, and always warn. */
  @Test
  void thePlanesGetTheSupervisorsSetting() {
    assertEquals("-Dsluice.log.kafka.clients=ERROR", KafkaClientLogs.planeOption(false));
    assertEquals("-Dsluice.log.kafka.clients=WARN", KafkaClientLogs.planeOption(true));
    KafkaClientLogs.show();
    assertEquals("-Dsluice.log.kafka.clients=WARN", KafkaClientLogs.planeOption(false));
  }
}
