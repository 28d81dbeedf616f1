package io.sluice.topics.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.kafka.testing.LogCapture;
import io.sluice.kafka.testing.SharedKafka;
import io.sluice.topics.KafkaCluster;
import io.sluice.topics.TopicLog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MembershipTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final ObjectMapper JSON = new ObjectMapper();

  private static Membership.Node node(String id, int port) {
    return new Membership.Node(id, Instant.parse("2026-11-25T10:00:00Z").plusSeconds(port),
        Map.of("exporter", "http://127.0.0.1:" + port, "alerts", "http://127.0.0.1:" + (port + 1),
            "kafka", "127.0.0.1:9092"));
  }

  @Test
  void nodesSeeEachOtherAndALeavingNodeDropsOutAtOnce(@TempDir Path dir) throws Exception {
    KafkaCluster cluster = KafkaCluster.of(SharedKafka.bootstrapServers());
    String topic = SharedKafka.unique("cluster");
    List<List<Membership.Node>> heardByA = new CopyOnWriteArrayList<>();
    try (Membership a = Membership.join(cluster, topic, node("a", 5556), TIMEOUT)) {
      a.onChange(heardByA::add);
      Membership b = Membership.join(cluster, topic, node("b", 6556), TIMEOUT);
      await(() -> a.live().size() == 2);
      assertEquals(List.of("a", "b"), a.live().stream().map(Membership.Node::id).toList(), "oldest first");
      assertEquals(Map.of("exporter", "http://127.0.0.1:6556", "alerts", "http://127.0.0.1:6557",
          "kafka", "127.0.0.1:9092"), a.live().get(1).components());
      try (Membership observer = Membership.watch(cluster, topic, TIMEOUT)) {
        assertEquals(2, observer.live().size(), "an observer reads every card");
      }

      // The file_sd list a metrics server (or an operator's Prometheus) reads.
      Path file = dir.resolve("exporters.json");
      FileSdTargets.write(file, a.live(), "exporter");
      JsonNode groups = JSON.readTree(Files.readString(file));
      assertEquals(2, groups.size());
      assertEquals("127.0.0.1:6556", groups.get(1).at("/targets/0").asText());
      assertEquals("b", groups.get(1).at("/labels/sluice_node").asText());
      assertEquals("127.0.0.1:9092", JSON.readTree(FileSdTargets.json(a.live(), "kafka")).at("/0/targets/0").asText());

      b.close();
      await(() -> a.live().size() == 1);
      assertTrue(heardByA.stream().anyMatch(l -> l.size() == 2), "the listener heard the second node join");
      assertEquals(1, heardByA.get(heardByA.size() - 1).size(), "and leave");
    }
  }

  /**
   * A node starting reads the others' cards while its components start, and is listed once it announces itself: its
   * own card is read back before {@code announce} returns (the follower that reads it tells the listeners, under the
   * lock the announcement must not hold while it waits).
   */
  @Test
  void aNodeOpenedFirstReadsTheOthersAndIsListedOnceItAnnouncesItself() {
    KafkaCluster cluster = KafkaCluster.of(SharedKafka.bootstrapServers());
    String topic = SharedKafka.unique("cluster");
    try (Membership a = Membership.join(cluster, topic, node("a", 5556), TIMEOUT);
        Membership b = Membership.open(cluster, topic, TIMEOUT)) {
      List<List<Membership.Node>> heard = new CopyOnWriteArrayList<>();
      b.onChange(heard::add);
      assertEquals(List.of("a"), b.live().stream().map(Membership.Node::id).toList(), "read before announcing");
      b.announce(node("b", 6556));
      assertEquals(List.of("a", "b"), b.live().stream().map(Membership.Node::id).toList(), "its own card read back");
      assertEquals(2, heard.get(heard.size() - 1).size(), "and told to its listeners");
      assertThrows(IllegalStateException.class, () -> b.announce(node("b", 6556)), "announced once");
    }
  }

  /**
   * A node whose card can no longer be written drops out of the others' view: it says so at WARN, with the cause and
   * what it means, once (heartbeats go on every 5 s), instead of at DEBUG; and says when it is written again. The
   * writes fail for real: the topic is set to refuse records as large as a card.
   */
  @Test
  void aNodeThatCannotAnnounceItselfSaysSo() throws Exception {
    KafkaCluster cluster = KafkaCluster.of(SharedKafka.bootstrapServers());
    String topic = SharedKafka.unique("cluster");
    try (LogCapture said = LogCapture.of(TopicLog.class);
        Membership a = Membership.join(cluster, topic, node("a", 5556), TIMEOUT);
        Admin admin = Admin.create(Map.of("bootstrap.servers", SharedKafka.bootstrapServers()))) {
      maxMessageBytes(admin, topic, "64");
      String warning = said.await(l -> l.startsWith("WARN cannot write to cluster membership topic " + topic),
          Duration.ofSeconds(60));
      assertTrue(warning.contains("the other nodes count it as gone 15 s after the last one")
          && warning.contains("larger than the max message size"), warning);
      Thread.sleep(2 * Membership.HEARTBEAT_MS);
      assertEquals(1, said.lines().stream().filter(l -> l.startsWith("WARN cannot write")).count(), said.lines()
          .toString());
      maxMessageBytes(admin, topic, "1048588");
      said.await(l -> l.startsWith("INFO writing to cluster membership topic " + topic + " again, after"),
          Duration.ofSeconds(60));
    }
  }

  private static void maxMessageBytes(Admin admin, String topic, String bytes) throws Exception {
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    admin.incrementalAlterConfigs(Map.of(resource, List.of(new AlterConfigOp(new ConfigEntry("max.message.bytes",
        bytes), AlterConfigOp.OpType.SET)))).all().get();
  }

  @Test
  void watchingATopicThatDoesNotExistFails() {
    var e = assertThrows(TopicLog.TopicLogException.class,
        () -> Membership.watch(KafkaCluster.of(SharedKafka.bootstrapServers()), SharedKafka.unique("none"), TIMEOUT));
    assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
  }

  private static void await(java.util.function.BooleanSupplier done) throws InterruptedException {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out");
      }
      Thread.sleep(50);
    }
  }
}
