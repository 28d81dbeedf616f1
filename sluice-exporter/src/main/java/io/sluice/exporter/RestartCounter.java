package io.sluice.exporter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import io.sluice.topics.KafkaCluster;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts restarts by replaying Connect's status topic from its beginning and following it. Deriving the count from
 * the topic, not from memory, is what lets it survive a restart of the platform.
 *
 * <p>A restart is a move into {@code RUNNING} from any state other than {@code PAUSED} (a resume does not restart a
 * task) after the first start: a REST restart goes through {@code RESTARTING} or {@code UNASSIGNED}, an automatic one
 * (rebalance, worker restart) through {@code UNASSIGNED} or straight to {@code RUNNING} under another worker or
 * generation, a recovery through {@code FAILED}. The connector instance's
 * own restarts (a plain {@code POST /connectors/{name}/restart}) are counted under {@link #CONNECTOR_TASK}. A
 * tombstone (the connector was deleted) clears the key, so a connector recreated under the same name starts at 0.
 *
 * <p>The status topic is compacted: once Kafka compacts a closed segment (7 days by default), older transitions are
 * gone and the derived count can drop, which Prometheus treats as a counter reset.
 */
final class RestartCounter implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RestartCounter.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  /** The {@code task} label value of the connector instance itself. */
  static final String CONNECTOR_TASK = "connector";

  /** Connector and task (or {@link #CONNECTOR_TASK}) of one status key. */
  record Key(String connector, String task) {}

  private record Entry(String state, String instance, long restarts) {}

  private final Tally tally = new Tally();
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final Thread thread;
  private volatile boolean running = true;

  RestartCounter(KafkaCluster cluster, String statusTopic) {
    // Never auto-create: a status topic created by a metadata request would have the broker's default cleanup policy,
    // and Connect refuses to start on a status topic that is not compacted.
    consumer = new KafkaConsumer<>(cluster.clientConfig(Map.of("enable.auto.commit", "false",
        "allow.auto.create.topics", "false", "client.id", "sluice-exporter-status-reader")),
        new ByteArrayDeserializer(), new ByteArrayDeserializer());
    thread = new Thread(() -> follow(statusTopic), "sluice-exporter-status-reader");
    thread.setDaemon(true);
    thread.start();
  }

  /** Restarts per connector/task seen so far; a snapshot. */
  Map<Key, Long> restarts() {
    return tally.restarts();
  }

  private void follow(String topic) {
    try {
      List<TopicPartition> partitions = List.of();
      while (running && partitions.isEmpty()) {
        // Connect creates the topic when its worker starts; until then there is nothing to count.
        partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
            .map(p -> new TopicPartition(topic, p.partition())).toList();
        if (partitions.isEmpty()) {
          Thread.sleep(1000);
        }
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      while (running) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          tally.apply(r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8), r.value());
        }
      }
    } catch (WakeupException e) {
      // close() asked the loop to end.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      if (running) {
        log.warn("restart counts stopped following {}: {}", topic, e.toString());
      }
    } finally {
      consumer.close(Duration.ZERO);
    }
  }

  /** The counting itself, record by record in topic order. */
  static final class Tally {
    private final Map<Key, Entry> entries = new ConcurrentHashMap<>();

    Map<Key, Long> restarts() {
      Map<Key, Long> out = new HashMap<>();
      entries.forEach((k, e) -> out.put(k, e.restarts()));
      return out;
    }

    void apply(String key, byte[] value) {
      Key k = parseKey(key);
      if (k == null) {
        return;
      }
      if (value == null) {
        entries.remove(k);
        return;
      }
      String state;
      String instance;
      try {
        JsonNode v = JSON.readTree(value);
        state = v.path("state").asText(null);
        instance = v.path("worker_id").asText("") + "/" + v.path("generation").asText("");
      } catch (IOException e) {
        return;
      }
      if (state == null) {
        return;
      }
      entries.compute(k, (kk, prev) -> {
        if (prev == null) {
          return new Entry(state, instance, 0);
        }
        boolean restarted = "RUNNING".equals(state) && switch (prev.state()) {
          case "PAUSED" -> false;
          // A worker that died wrote nothing on its way out: its task simply shows up RUNNING elsewhere.
          case "RUNNING" -> !prev.instance().equals(instance);
          default -> true;
        };
        return new Entry(state, instance, prev.restarts() + (restarted ? 1 : 0));
      });
    }
  }

  /** {@code status-task-<connector>-<n>} or {@code status-connector-<connector>}; other keys (topics) are ignored. */
  static Key parseKey(String key) {
    if (key == null) {
      return null;
    }
    if (key.startsWith("status-connector-")) {
      return new Key(key.substring("status-connector-".length()), CONNECTOR_TASK);
    }
    if (key.startsWith("status-task-")) {
      String rest = key.substring("status-task-".length());
      int dash = rest.lastIndexOf('-');
      if (dash > 0 && rest.substring(dash + 1).chars().allMatch(Character::isDigit) && dash < rest.length() - 1) {
        return new Key(rest.substring(0, dash), rest.substring(dash + 1));
      }
    }
    return null;
  }

  @Override
  public void close() {
    running = false;
    consumer.wakeup();
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
