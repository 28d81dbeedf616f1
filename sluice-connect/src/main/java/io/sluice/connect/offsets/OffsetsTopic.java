package io.sluice.connect.offsets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads Kafka Connect's offsets topic the way the worker does: from the beginning to the current end, the latest
 * record per key winning. Keys are compared as bytes because the worker looks positions up by exact key bytes.
 */
public final class OffsetsTopic {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String bootstrapServers;
  private final String topic;

  public OffsetsTopic(String bootstrapServers, String topic) {
    this.bootstrapServers = bootstrapServers;
    this.topic = topic;
  }

  /** The latest record of every key whose connector name (the key's first element) is {@code connector}. */
  public List<OffsetRecord> latestFor(String connector, Duration timeout) {
    Map<String, OffsetRecord> latest = new LinkedHashMap<>();
    for (OffsetRecord r : readAll(timeout)) {
      if (connector.equals(connectorOf(r.key()))) {
        latest.remove(r.key());
        latest.put(r.key(), r);
      }
    }
    return new ArrayList<>(latest.values());
  }

  /** Every record from the beginning to the end offsets taken when the read starts. */
  public List<OffsetRecord> readAll(Duration timeout) {
    List<OffsetRecord> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
        "bootstrap.servers", bootstrapServers, "enable.auto.commit", "false", "client.id", "sluice-offsets-reader"),
        new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = consumer.partitionsFor(topic, timeout).stream()
          .map(p -> new TopicPartition(topic, p.partition())).toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (end.entrySet().stream().anyMatch(e -> consumer.position(e.getKey()) < e.getValue())) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("timed out after " + timeout.toMillis() + " ms reading " + topic);
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          if (r.key() == null) {
            continue;
          }
          out.add(new OffsetRecord(new String(r.key(), StandardCharsets.UTF_8),
              r.value() == null ? null : new String(r.value(), StandardCharsets.UTF_8), r.partition(), r.offset()));
        }
      }
    }
    return out;
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
