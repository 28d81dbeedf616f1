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
