package io.sluice.topics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.kafka.EmbeddedKafka;
import io.sluice.kafka.testing.LogCapture;
import io.sluice.kafka.testing.CheckedSends;
import io.sluice.kafka.testing.SharedKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TopicLogTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private static TopicLog.Builder<String, String> log(String bootstrap, String topic) {
    return TopicLog.builder(bootstrap, topic, Serdes.String(), Serdes.String()).describedAs("test state topic")
        .timeout(TIMEOUT);
  }

  private static void produce(String bootstrap, String topic, int from, int to) throws Exception {
    try (KafkaProducer<String, String> p = new KafkaProducer<>(Map.of("bootstrap.servers", bootstrap, "acks", "all"),
        new StringSerializer(), new StringSerializer());
        CheckedSends<String, String> sends = CheckedSends.through(p)) {
      for (int i = from; i < to; i++) {
        sends.send(new ProducerRecord<>(topic, 0, "k" + i, "v" + i));
      }
    }
  }

  @Test
  void startReturnsOnlyOnceEverythingWrittenBeforeIsApplied() throws Exception {
    String topic = SharedKafka.unique("log");
    CompactedTopic.ensure(SharedKafka.bootstrapServers(), topic, "test state topic", TIMEOUT);
    produce(SharedKafka.bootstrapServers(), topic, 0, 500);
    Map<String, String> state = new ConcurrentHashMap<>();
    try (TopicLog<String, String> log = log(SharedKafka.bootstrapServers(), topic)
        .start(r -> state.put(r.key(), r.value()))) {
      assertEquals(500, state.size());
      assertEquals("v499", state.get("k499"));
      assertEquals(500L, log.positions().values().iterator().next());
    }
  }

  @Test
  void aWriteOfOneNodeIsSeenByAnotherOnceItCatchesUp() {
    String topic = SharedKafka.unique("log");
    Map<String, String> a = new ConcurrentHashMap<>();
    Map<String, String> b = new ConcurrentHashMap<>();
    try (TopicLog<String, String> nodeA = log(SharedKafka.bootstrapServers(), topic).start(r -> a.put(r.key(), r.value()));
        TopicLog<String, String> nodeB = log(SharedKafka.bootstrapServers(), topic).start(r -> b.put(r.key(), r.value()))) {
      nodeA.appendAndWait("silence", "s1");
      // Applied by the writer when appendAndWait returns...
      assertEquals("s1", a.get("silence"));
      // ...and by any other node once it has read to the end as of after the write.
      nodeB.awaitCaughtUp();
      assertEquals("s1", b.get("silence"));
    }
  }

  @Test
  void aReaderThatFallsBehindIsWaitedFor() throws Exception {
    String topic = SharedKafka.unique("log");
    List<String> seen = Collections.synchronizedList(new ArrayList<>());
    try (TopicLog<String, String> log = log(SharedKafka.bootstrapServers(), topic).start(r -> {
      seen.add(r.value());
      try {
        Thread.sleep(2);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    })) {
      produce(SharedKafka.bootstrapServers(), topic, 0, 1500);
      // The reader needs seconds for these; the call returns only when it has applied all of them, in order.
      log.awaitCaughtUp();
      assertEquals(1500, seen.size());
      assertEquals("v0", seen.get(0));
      assertEquals("v1499", seen.get(1499));
      // A write behind the backlog is applied after it, never before.
      produce(SharedKafka.bootstrapServers(), topic, 1500, 2500);
      log.appendAndWait("last", "end");
      assertEquals(2501, seen.size());
      assertEquals("end", seen.get(2500));
    }
  }

  @Test
  void aBrokerRestartIsRiddenOut(@TempDir Path dir) throws Exception {
    EmbeddedKafka.Builder broker = EmbeddedKafka.builder().dataDir(dir).port(0);
    String bootstrap = broker.bootstrapServers();
    EmbeddedKafka kafka = broker.start();
    Map<String, String> state = new ConcurrentHashMap<>();
    try (TopicLog<String, String> log = log(bootstrap, "restart-state").start(r -> state.put(r.key(), r.value()))) {
      log.appendAndWait("before", "1");
      kafka.close();
      kafka = broker.start();
      // The same clients reconnect: a write after the restart is applied, the one before it is still there.
      log.appendAndWait("after", "2");
      assertEquals(Map.of("before", "1", "after", "2"), Map.copyOf(state));
    } finally {
      kafka.close();
    }
    // And a node starting afresh reads both from the restarted broker.
    EmbeddedKafka again = broker.start();
    try (TopicLog<String, String> log = log(bootstrap, "restart-state").start(r -> state.put(r.key(), "re-" + r.value()))) {
      assertEquals(Map.of("before", "re-1", "after", "re-2"), Map.copyOf(state));
    } finally {
      again.close();
    }
  }

  @Test
  void aFollowerWaitsForAnUnreachableBrokerAndForATopicSomeoneElseCreates(@TempDir Path dir) throws Exception {
    EmbeddedKafka.Builder broker = EmbeddedKafka.builder().dataDir(dir).port(0);
    String bootstrap = broker.bootstrapServers();
    Map<String, String> state = new ConcurrentHashMap<>();
    try (LogCapture said = LogCapture.of(TopicLog.class);
        TopicFollower<String, String> follower = log(bootstrap, "others-topic").timeout(Duration.ofSeconds(2))
            .follow(r -> state.put(r.key(), r.value()))) {
      // No broker yet: the follower has returned at once, and retries instead of giving up.
      said.await(l -> l.startsWith("WARN test state topic others-topic: Kafka does not answer"), TIMEOUT);
      try (EmbeddedKafka kafka = broker.start();
          Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
        said.await(l -> l.startsWith("WARN test state topic others-topic: Kafka answers again"), TIMEOUT);
        assertEquals(Map.of(), follower.positions(), "nothing to follow before the topic exists");
        assertTrue(!admin.listTopics().names().get(30, TimeUnit.SECONDS).contains("others-topic"),
            "the follower does not create the topic");
        admin.createTopics(List.of(new NewTopic("others-topic", 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
        produce(bootstrap, "others-topic", 0, 10);
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (state.size() < 10 && System.nanoTime() < deadline) {
          Thread.sleep(100);
        }
        assertEquals("v9", state.get("k9"));
        assertEquals(2, follower.positions().size(), "both partitions followed");
        produce(bootstrap, "others-topic", 10, 11);
        follower.awaitCaughtUp();
        assertEquals("v10", state.get("k10"));
      }
    }
  }

  @Test
  void aTopicDeletedUnderTheLogFailsItsCallsClearly() throws Exception {
    String topic = SharedKafka.unique("log");
    try (TopicLog<String, String> log = log(SharedKafka.bootstrapServers(), topic).start(r -> { });
        Admin admin = Admin.create(Map.of("bootstrap.servers", SharedKafka.bootstrapServers()))) {
      log.appendAndWait("k", "v");
      admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
      TopicLog.TopicLogException e = null;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (e == null && System.nanoTime() < deadline) {
        try {
          log.awaitCaughtUp();
          Thread.sleep(200);
        } catch (TopicLog.TopicLogException thrown) {
          e = thrown;
        }
      }
      assertTrue(e != null, "the log kept answering after its topic was deleted");
      assertTrue(e.getMessage().contains("test state topic " + topic + " was deleted"), e.getMessage());
      TopicLog.TopicLogException later = assertThrows(TopicLog.TopicLogException.class, () -> log.append("k", "v2"));
      assertTrue(later.getMessage().contains(topic), later.getMessage());
      // Nothing recreated it behind the operator's back.
      assertTrue(!admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(topic));
    }
  }

  @Test
  void aMissingTopicIsAnErrorWhenTheLogMustNotCreateIt() {
    String topic = SharedKafka.unique("absent");
    TopicLog.TopicLogException e = assertThrows(TopicLog.TopicLogException.class,
        () -> log(SharedKafka.bootstrapServers(), topic).createIfMissing(false).start(r -> { }));
    assertEquals("test state topic " + topic + " does not exist", e.getMessage());
  }

  @Test
  void aReaderThatThrowsStopsTheLogInsteadOfSkippingARecord() {
    String topic = SharedKafka.unique("log");
    Map<String, String> state = new LinkedHashMap<>();
    try (TopicLog<String, String> log = log(SharedKafka.bootstrapServers(), topic).start(r -> {
      if (r.value().equals("poison")) {
        throw new IllegalArgumentException("cannot apply " + r.value());
      }
      state.put(r.key(), r.value());
    })) {
      log.appendAndWait("a", "1");
      TopicLog.TopicLogException e = assertThrows(TopicLog.TopicLogException.class,
          () -> log.appendAndWait("b", "poison"));
      assertTrue(e.getMessage().contains("cannot apply poison"), e.getMessage());
      assertThrows(TopicLog.TopicLogException.class, log::awaitCaughtUp);
      assertEquals(Map.of("a", "1"), state);
    }
  }
}
