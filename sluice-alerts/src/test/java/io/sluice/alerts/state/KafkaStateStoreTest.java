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
      assertEquals(0, restarted.peerPosition(), "nodes that closed cleanly are not counted: " + restarted.peers());
    }
  }

  @Test
  void liveNodesTakeOnePositionEachAndMoveUpWhenOneLeaves() throws Exception {
    String bootstrap = SharedKafka.bootstrapServers();
    String topic = SharedKafka.unique("alerts-peers");
    try (KafkaStateStore a = KafkaStateStore.start(bootstrap, topic, TIMEOUT)) {
      assertEquals(0, a.peerPosition(), "alone");
      KafkaStateStore b = KafkaStateStore.start(bootstrap, topic, TIMEOUT);
      KafkaStateStore c = KafkaStateStore.start(bootstrap, topic, TIMEOUT);
      List<KafkaStateStore> nodes = List.of(a, b, c);
      awaitPositions(nodes, java.util.Set.of(0, 1, 2));
      KafkaStateStore first = nodes.stream().filter(n -> n.peerPosition() == 0).findFirst().orElseThrow();
      first.close();
      List<KafkaStateStore> rest = nodes.stream().filter(n -> n != first).toList();
      awaitPositions(rest, java.util.Set.of(0, 1));
      for (KafkaStateStore n : rest) {
        if (n != a) {
          n.close();
        }
      }
      awaitPositions(List.of(a), java.util.Set.of(0));
    }
  }

  private static void awaitPositions(List<KafkaStateStore> nodes, java.util.Set<Integer> expected) throws Exception {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    java.util.Set<Integer> seen = java.util.Set.of();
    while (System.nanoTime() < deadline) {
      seen = nodes.stream().map(KafkaStateStore::peerPosition).collect(java.util.stream.Collectors.toSet());
      if (seen.equals(expected) && nodes.stream().mapToInt(KafkaStateStore::peerPosition).sum()
          == expected.stream().mapToInt(Integer::intValue).sum()) {
        return;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("positions " + seen + ", expected " + expected);
  }
}
