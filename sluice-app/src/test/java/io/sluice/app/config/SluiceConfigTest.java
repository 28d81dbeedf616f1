package io.sluice.app.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SluiceConfigTest {

  @Test
  void defaultsBindToLoopbackOnTheStandardPorts() {
    SluiceConfig c = SluiceConfig.load(Optional.empty(), Map.of());
    assertEquals("127.0.0.1", c.host());
    assertEquals(9092, c.get(ConfigDefinitions.KAFKA_PORT));
    assertEquals(8083, c.get(ConfigDefinitions.CONNECT_PORT));
    assertEquals(8081, c.get(ConfigDefinitions.REGISTRY_PORT));
    assertEquals(9090, c.get(ConfigDefinitions.METRICS_PORT));
    assertEquals(9093, c.get(ConfigDefinitions.ALERTS_PORT));
    assertEquals(Path.of("./data"), c.dataDir());
    assertTrue(c.externalKafka().isEmpty());
  }

  @Test
  void nestedAndFlatKeysMeanTheSameAndFlagsWin(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("sluice.yaml");
    Files.writeString(file, """
        data.dir: /var/lib/sluice
        kafka:
          bootstrap.servers: kafka-1:9092,kafka-2:9092
        connect:
          port: 8183
          worker:
            producer.linger.ms: 20
        """);
    SluiceConfig c = SluiceConfig.load(Optional.of(file), Map.of(ConfigDefinitions.CONNECT_PORT.name(), "9183"));
    assertEquals(Optional.of("kafka-1:9092,kafka-2:9092"), c.externalKafka());
    assertEquals(Path.of("/var/lib/sluice"), c.dataDir());
    assertEquals(9183, c.get(ConfigDefinitions.CONNECT_PORT));
    assertEquals(Map.of("producer.linger.ms", "20"), c.withPrefix(ConfigDefinitions.CONNECT_WORKER));
  }

  @Test
  void badInputGetsAClearMessage(@TempDir Path dir) throws Exception {
    var missing = assertThrows(SluiceConfig.ConfigException.class,
        () -> SluiceConfig.load(Optional.of(dir.resolve("nope.yaml")), Map.of()));
    assertTrue(missing.getMessage().contains("does not exist"));

    Path broken = dir.resolve("broken.yaml");
    Files.writeString(broken, "kafka: [unclosed");
    var yaml = assertThrows(SluiceConfig.ConfigException.class, () -> SluiceConfig.load(Optional.of(broken), Map.of()));
    assertTrue(yaml.getMessage().contains("not valid YAML"), yaml.getMessage());

    SluiceConfig c = SluiceConfig.load(Optional.empty(), Map.of(ConfigDefinitions.KAFKA_PORT.name(), "ninety"));
    var port = assertThrows(SluiceConfig.ConfigException.class, () -> c.get(ConfigDefinitions.KAFKA_PORT));
    assertTrue(port.getMessage().contains("kafka.port"), port.getMessage());
  }

  @Test
  void requestBodyLimitsHaveDefaultsPerSurfaceAndTakeUnits() {
    SluiceConfig d = SluiceConfig.load(Optional.empty(), Map.of());
    assertEquals(8L << 20, d.get(ConfigDefinitions.REGISTRY_MAX_REQUEST));
    assertEquals(10L << 20, d.get(ConfigDefinitions.METRICS_MAX_REQUEST));
    assertEquals(4L << 20, d.get(ConfigDefinitions.ALERTS_MAX_REQUEST));
    assertEquals(64L << 10, d.get(ConfigDefinitions.EXPORTER_MAX_REQUEST));
    SluiceConfig c = SluiceConfig.load(Optional.empty(), Map.of(ConfigDefinitions.REGISTRY_MAX_REQUEST.name(), "512KiB",
        ConfigDefinitions.METRICS_MAX_REQUEST.name(), "1000", ConfigDefinitions.ALERTS_MAX_REQUEST.name(), "2 MB",
        ConfigDefinitions.EXPORTER_MAX_REQUEST.name(), "lots"));
    assertEquals(512L * 1024, c.get(ConfigDefinitions.REGISTRY_MAX_REQUEST));
    assertEquals(1000L, c.get(ConfigDefinitions.METRICS_MAX_REQUEST));
    assertEquals(2_000_000L, c.get(ConfigDefinitions.ALERTS_MAX_REQUEST));
    var bad = assertThrows(SluiceConfig.ConfigException.class, () -> c.get(ConfigDefinitions.EXPORTER_MAX_REQUEST));
    assertEquals("exporter.max.request.bytes must be a size such as 4MiB or 1048576, not 'lots'", bad.getMessage());
  }

  /** A query's samples are held at 16 bytes each: the default keeps one query to 80 MB of the control plane's heap. */
  @Test
  void theQuerySampleLimitFitsTheControlPlanesHeap() {
    SluiceConfig d = SluiceConfig.load(Optional.empty(), Map.of());
    assertEquals(5_000_000L, d.get(ConfigDefinitions.METRICS_QUERY_MAX_SAMPLES));
    assertEquals("512m", d.get(ConfigDefinitions.CONTROL_PLANE_HEAP));
    SluiceConfig c = SluiceConfig.load(Optional.empty(), Map.of(ConfigDefinitions.METRICS_QUERY_MAX_SAMPLES.name(), "50000000"));
    assertEquals(50_000_000L, c.get(ConfigDefinitions.METRICS_QUERY_MAX_SAMPLES));
    SluiceConfig bad = SluiceConfig.load(Optional.empty(), Map.of(ConfigDefinitions.METRICS_QUERY_MAX_SAMPLES.name(), "5M"));
    var e = assertThrows(SluiceConfig.ConfigException.class, () -> bad.get(ConfigDefinitions.METRICS_QUERY_MAX_SAMPLES));
    assertEquals("metrics.query.max.samples must be a whole number of at least 1, not '5M'", e.getMessage());
  }

  @Test
  void aValueIsReadAsItsKeysTypeAndABlankOneWithoutDefaultIsOff() {
    SluiceConfig c = SluiceConfig.load(Optional.empty(), Map.of(ConfigDefinitions.EXPORTER_MOVE_HOLD.name(), "1m30s",
        ConfigDefinitions.METRICS_CONFIG.name(), " ", ConfigDefinitions.KAFKA_NODE_ID.name(), "3"));
    assertEquals(java.time.Duration.ofSeconds(90), c.get(ConfigDefinitions.EXPORTER_MOVE_HOLD));
    assertEquals(java.time.Duration.ofDays(15), c.get(ConfigDefinitions.METRICS_RETENTION));
    assertEquals(Optional.empty(), c.find(ConfigDefinitions.METRICS_CONFIG));
    assertEquals(Optional.of(3L), c.find(ConfigDefinitions.KAFKA_NODE_ID));
    assertEquals(List.of(), c.problems());
  }

  @Test
  void theDataPlaneRunsAtNiceTenUnlessSetFromZeroTo19() {
    assertEquals(10L, SluiceConfig.load(Optional.empty(), Map.of()).get(ConfigDefinitions.DATA_PLANE_NICE));
    assertEquals(0L, SluiceConfig.load(Optional.empty(), Map.of(ConfigDefinitions.DATA_PLANE_NICE.name(), "0"))
        .get(ConfigDefinitions.DATA_PLANE_NICE));
    for (String bad : List.of("20", "-5", "low")) {
      SluiceConfig c = SluiceConfig.load(Optional.empty(), Map.of(ConfigDefinitions.DATA_PLANE_NICE.name(), bad));
      var e = assertThrows(SluiceConfig.ConfigException.class, () -> c.get(ConfigDefinitions.DATA_PLANE_NICE));
      assertEquals("dataplane.nice must be a nice value from 0 to 19, not '" + bad + "'", e.getMessage());
    }
  }
}
