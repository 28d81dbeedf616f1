package io.sluice.exporter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.topics.KafkaCluster;
import io.sluice.topics.TopicFollower;
import io.sluice.topics.TopicLog;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.serialization.Serdes;

/**
 * Counts restarts by replaying Connect's status topic from its beginning and following it (a {@link TopicFollower},
 * which waits for the topic until Connect creates it and rides out a broker that is away). Deriving the count from
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
  private static final ObjectMapper JSON = new ObjectMapper();
  /** The {@code task} label value of the connector instance itself. */
  static final String CONNECTOR_TASK = "connector";

  /** Connector and task (or {@link #CONNECTOR_TASK}) of one status key. */
  record Key(String connector, String task) {}

  private record Entry(String state, String instance, long restarts) {}

  private final Tally tally = new Tally();
  private final TopicFollower<String, byte[]> statusTopic;

  RestartCounter(KafkaCluster cluster, String statusTopic) {
    // Followed, never created: a status topic created here would lack the compaction Connect insists on, and Connect
    // creates it when its worker starts.
    this.statusTopic = TopicLog.builder(cluster, statusTopic, Serdes.String(), Serdes.ByteArray())
        .describedAs("Connect status topic").clientId("sluice-exporter-status-reader")
        .follow(r -> tally.apply(r.key(), r.value()));
  }

  /** Restarts per connector/task seen so far; a snapshot. */
  Map<Key, Long> restarts() {
    return tally.restarts();
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
    statusTopic.close();
  }
}
