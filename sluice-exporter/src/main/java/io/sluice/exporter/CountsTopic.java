package io.sluice.exporter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.exporter.CarriedCounts.Write;
import io.sluice.exporter.CarriedCounts.Written;
import io.sluice.topics.KafkaCluster;
import io.sluice.topics.TopicLog;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;

/**
 * The cluster's task counts topic ({@value #DEFAULT} unless told otherwise), through which a task's counters go on
 * when it moves: compacted, one partition, a record per task, key {@code <connector>/<task>}, value a run's totals as
 * JSON ({@code {"run": "...", "ended": true, "counts": {"<series>": 1234.0, ...}}}), a tombstone once the connector is
 * deleted. Read to its end when the exporter starts, so that the tasks this node starts find their totals, and
 * followed after, into {@link CarriedCounts}. Written without waiting: a Kafka out of reach holds up neither a scrape
 * nor the exporter's bookkeeping, and the next write makes up for a lost one.
 */
final class CountsTopic implements AutoCloseable {
  /** The topic's name in {@code sluice up}. */
  static final String DEFAULT = "sluice-task-counters";
  private static final ObjectMapper JSON = new ObjectMapper();
  /**
   * Segments roll hourly, so that compaction keeps the topic near one record per task although each is rewritten every
   * few seconds, and an exporter that starts reads little more than that.
   */
  private static final String SEGMENT_MS = "3600000";

  private final TopicLog<String, byte[]> log;

  private CountsTopic(TopicLog<String, byte[]> log) {
    this.log = log;
  }

  /** Creates the topic when it is missing and reads it to its end into {@code counts}; then follows it. */
  static CountsTopic start(KafkaCluster cluster, String topic, CarriedCounts counts) {
    return new CountsTopic(TopicLog.builder(cluster, topic, Serdes.String(), Serdes.ByteArray())
        .describedAs("task counts topic").clientId("sluice-exporter-counts").topicSetting("segment.ms", SEGMENT_MS)
        .start(r -> {
          TaskKey task = TaskKey.ofTopicKey(r.key());
          if (task == null) {
            return;
          }
          if (r.value() == null) {
            counts.read(task, null);
            return;
          }
          Written w = decode(r.value());
          if (w != null) {
            counts.read(task, w);
          }
        }));
  }

  void write(Write w) {
    log.appendLater(w.task().topicKey(), w.written() == null ? null : encode(w.written()), null,
        "tasks that move to another node may start their counters from an older total");
  }

  static byte[] encode(Written w) {
    ObjectNode o = JSON.createObjectNode().put("run", w.run()).put("ended", w.ended());
    ObjectNode counts = o.putObject("counts");
    new java.util.TreeMap<>(w.counts()).forEach(counts::put);
    try {
      return JSON.writeValueAsBytes(o);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The record's run and totals; null for a value that is not one (it is skipped). */
  static Written decode(byte[] value) {
    try {
      JsonNode o = JSON.readTree(value);
      String run = o.path("run").asText(null);
      if (run == null || !o.path("counts").isObject()) {
        return null;
      }
      Map<String, Double> counts = new HashMap<>();
      o.path("counts").fields().forEachRemaining(e -> {
        if (e.getValue().isNumber()) {
          counts.put(e.getKey(), e.getValue().asDouble());
        }
      });
      return new Written(run, o.path("ended").asBoolean(false), counts);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  @Override
  public void close() {
    // Closing waits for the writes in flight: the ended totals of the tasks this node stopped.
    log.close();
  }
}
