package io.sluice.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Exit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedKafkaTest {

  private static Map<String, Object> sasl(String bootstrap, String mechanism, String password) {
    String module = mechanism.equals("PLAIN") ? "org.apache.kafka.common.security.plain.PlainLoginModule"
        : "org.apache.kafka.common.security.scram.ScramLoginModule";
    return Map.of("bootstrap.servers", bootstrap, "security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", mechanism,
        "sasl.jaas.config", module + " required username=\"sluice\" password=\"" + password + "\";",
        "default.api.timeout.ms", 20_000, "request.timeout.ms", 10_000);
  }

  @Test
  void theBrokerCanRequireSaslWithPlainOrScram(@TempDir Path plain, @TempDir Path scram) throws Exception {
    for (String mechanism : List.of("PLAIN", "SCRAM-SHA-512")) {
      Path dir = mechanism.equals("PLAIN") ? plain : scram;
      try (EmbeddedKafka kafka = EmbeddedKafka.builder().dataDir(dir).port(0)
          .requireSasl("SASL_PLAINTEXT", mechanism, "sluice", "broker-pw-1").start()) {
        try (Admin admin = Admin.create(sasl(kafka.bootstrapServers(), mechanism, "broker-pw-1"))) {
          admin.createTopics(List.of(new NewTopic("secured", 1, (short) 1))).all().get();
          // createTopics completes when the controller has committed the topic; the broker that answers listTopics
          // learns of it from the metadata log a moment later, so the listing is awaited rather than read once.
          boolean listed = false;
          for (long end = System.nanoTime() + 10_000_000_000L; !listed && System.nanoTime() < end; Thread.sleep(50)) {
            listed = admin.listTopics().names().get().contains("secured");
          }
          assertTrue(listed, mechanism);
        }
        try (Admin wrong = Admin.create(sasl(kafka.bootstrapServers(), mechanism, "not-it"))) {
          Exception e = assertThrows(java.util.concurrent.ExecutionException.class,
              () -> wrong.listTopics().names().get());
          assertTrue(e.getCause() instanceof org.apache.kafka.common.errors.SaslAuthenticationException, mechanism
              + ": " + e.getCause());
        }
        try (Admin anonymous = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers(),
            "default.api.timeout.ms", 3_000, "request.timeout.ms", 2_000))) {
          assertThrows(Exception.class, () -> anonymous.listTopics().names().get(), "plain clients are refused");
        }
      }
    }
  }

  @Test
  void dataSurvivesARestartOnTheSameDirectory(@TempDir Path dir) throws Exception {
    int port;
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().dataDir(dir).port(0).start()) {
      port = Integer.parseInt(kafka.bootstrapServers().split(":")[1]);
      assertTrue(Files.exists(dir.resolve("meta.properties")), "storage formatted on first start");
      try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
        admin.createTopics(List.of(new NewTopic("kept", 1, (short) 1))).all().get();
      }
      try (var producer = new KafkaProducer<>(Map.<String, Object>of("bootstrap.servers", kafka.bootstrapServers()),
          new StringSerializer(), new StringSerializer())) {
        producer.send(new ProducerRecord<>("kept", "k", "v1")).get();
      }
    }
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().dataDir(dir).port(port).start();
        var consumer = new KafkaConsumer<>(Map.<String, Object>of("bootstrap.servers", kafka.bootstrapServers(),
            "group.id", "g", "auto.offset.reset", "earliest"), new StringDeserializer(), new StringDeserializer())) {
      consumer.subscribe(List.of("kept"));
      ConsumerRecords<String, String> records = ConsumerRecords.empty();
      for (int i = 0; i < 30 && records.isEmpty(); i++) {
        records = consumer.poll(Duration.ofMillis(500));
      }
      assertEquals("v1", records.iterator().next().value());
    }
  }

  @Test
  void enginesCannotEndTheJvm() {
    int[] seen = {-1};
    ExitControl.install((code, message) -> seen[0] = code);
    Exit.addShutdownHook("engine-hook", () -> { });
    assertTrue(ExitControl.suppressedHooks().contains("engine-hook"));
    var e = assertThrows(ExitControl.EngineExitException.class, () -> Exit.exit(3, "fatal"));
    assertEquals(3, e.code());
    assertEquals(3, seen[0]);
    assertThrows(ExitControl.EngineExitException.class, () -> Exit.halt(4));
    assertEquals(4, seen[0]);
  }
}
