package io.sluice.alerts.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.kafka.testing.SharedKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The store alone against the shared broker: load after restart, remote saves delivered, own saves not echoed. */
class KafkaStateStoreTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  @Test
  void latestSnapshotSurvivesARestartAndOtherNodesSeeSaves() throws Exception {
    String bootstrap = SharedKafka.bootstrapServers();
    String topic = SharedKafka.unique("alerts-state");
    List<String> heardByB = new CopyOnWriteArrayList<>();
    List<String> heardByA = new CopyOnWriteArrayList<>();
    try (KafkaStateStore a = KafkaStateStore.start(bootstrap, topic, TIMEOUT);
        KafkaStateStore b = KafkaStateStore.start(bootstrap, topic, TIMEOUT)) {
      a.onRemoteSave("silences", s -> heardByA.add(new String(s, StandardCharsets.UTF_8)));
      b.onRemoteSave("silences", s -> heardByB.add(new String(s, StandardCharsets.UTF_8)));
      a.save("silences", "[1]".getBytes(StandardCharsets.UTF_8));
      a.save("silences", "[1,2]".getBytes(StandardCharsets.UTF_8));
      a.save("nflog", "[]".getBytes(StandardCharsets.UTF_8));
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (heardByB.size() < 2 && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertEquals(List.of("[1]", "[1,2]"), heardByB, "B hears A's saves of the name it registered for, in order");
      Thread.sleep(500);
      assertTrue(heardByA.isEmpty(), "a node is not handed its own saves back: " + heardByA);
    }
    try (KafkaStateStore restarted = KafkaStateStore.start(bootstrap, topic, TIMEOUT)) {
      assertArrayEquals("[1,2]".getBytes(StandardCharsets.UTF_8), restarted.load("silences").orElseThrow());
      assertArrayEquals("[]".getBytes(StandardCharsets.UTF_8), restarted.load("nflog").orElseThrow());
      assertTrue(restarted.load("unknown").isEmpty());
    }
  }
}
