package io.sluice.connect.offsets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import io.sluice.topics.KafkaCluster;
import io.sluice.topics.TopicScan;
import org.apache.kafka.clients.admin.Admin;

/**
 * Reads Kafka Connect's offsets topic the way the worker does: from the beginning to the current end (one
 * {@link TopicScan}), the latest record per key winning. Keys are compared as bytes because the worker looks positions up by exact key bytes.
 */
public final class OffsetsTopic {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final KafkaCluster cluster;
  private final String topic;

  /** Told how far a read got, in records: {@code total} is the sum of the partitions' record ranges. */
  @FunctionalInterface
  public interface ReadListener {
    void read(long done, long total);

    ReadListener NONE = (done, total) -> {};
  }

  public OffsetsTopic(String bootstrapServers, String topic) {
    this(KafkaCluster.of(bootstrapServers), topic);
  }

  public OffsetsTopic(KafkaCluster cluster, String topic) {
    this.cluster = cluster;
    this.topic = topic;
  }

  public String topic() {
    return topic;
  }

  /** The latest record of every key whose connector name (the key's first element) is {@code connector}, by key. */
  public List<OffsetRecord> latestFor(String connector, Duration timeout) {
    return read(null, timeout, ReadListener.NONE, key -> connector.equals(connectorOf(key))).latest();
  }

  /** The latest record of every key (tombstones included), sorted by key. */
  public List<OffsetRecord> latest(Duration timeout) {
    return read(null, timeout, ReadListener.NONE, key -> true).latest();
  }

  /** The whole topic's latest state per key, with the cluster id and end offsets a backup manifest records. */
  public OffsetsSnapshot snapshot(Duration timeout, ReadListener listener) {
    Read read = read(null, timeout, listener, key -> true);
    return new OffsetsSnapshot(clusterId(timeout), topic, read.endOffsets(), read.latest());
  }

  /** The partitions' current end offsets: where records written from now on will start. */
  public Map<Integer, Long> endOffsets(Duration timeout) {
    return scan(timeout).endOffsets();
  }

  /** The latest record per key among those written at or after {@code from} (partition → offset), sorted by key. */
  public List<OffsetRecord> latestSince(Map<Integer, Long> from, Duration timeout) {
    return read(from, timeout, ReadListener.NONE, key -> true).latest();
  }

  private record Read(Map<Integer, Long> endOffsets, List<OffsetRecord> latest) {}

  /**
   * Reads from {@code from} (else the beginning) to the end offsets taken when the read starts, keeping only the
   * latest record of each key {@code keep} accepts: what is held grows with the keys (connectors × source
   * partitions), never with the topic's history, which an uncompacted or not yet compacted topic keeps for as long
   * as its retention.
   */
  private Read read(Map<Integer, Long> from, Duration timeout, ReadListener listener, Predicate<String> keep) {
    Map<String, OffsetRecord> latest = new TreeMap<>();
    Map<Integer, Long> ends = scan(timeout).from(from == null ? Map.of() : from).progress(listener::read).read(r -> {
      if (r.key() != null) {
        String key = new String(r.key(), StandardCharsets.UTF_8);
        if (keep.test(key)) {
          latest.put(key, new OffsetRecord(key, r.value() == null ? null : new String(r.value(),
              StandardCharsets.UTF_8), r.partition(), r.offset()));
        }
      }
    });
    return new Read(ends, new ArrayList<>(latest.values()));
  }

  private TopicScan scan(Duration timeout) {
    return TopicScan.of(cluster, topic).timeout(timeout).clientId("sluice-offsets-reader");
  }

  /** The id of the Kafka cluster, so a backup can name where it came from. */
  public String clusterId(Duration timeout) {
    try (Admin admin = Admin.create(cluster.clientConfig())) {
      return admin.describeCluster().clusterId().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot read the cluster id of " + cluster.bootstrapServers() + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The connector name of an offsets key {@code ["name", {partition}]}, or null when the key has another shape. */
  public static String connectorOf(String key) {
    try {
      JsonNode node = JSON.readTree(key);
      return node != null && node.isArray() && node.size() == 2 && node.get(0).isTextual() ? node.get(0).asText() : null;
    } catch (IOException e) {
      return null;
    }
  }
}
