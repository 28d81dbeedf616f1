package io.sluice.ops.offsets;

import io.sluice.connect.offsets.OffsetRecord;
import io.sluice.ops.progress.Progress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import io.sluice.topics.KafkaCluster;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Produces offset records to the offsets topic with exactly the key and value bytes given. The default partitioner
 * hashes the key bytes, so each record lands in the partition the worker itself writes that key to.
 */
final class TopicWriter {
  private final KafkaCluster cluster;
  private final String topic;

  TopicWriter(KafkaCluster cluster, String topic) {
    this.cluster = cluster;
    this.topic = topic;
  }

  /** Writes every record (a null value is a tombstone) and returns once all are acknowledged by all replicas. */
  void write(List<OffsetRecord> records, Progress progress) {
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(cluster.clientConfig(Map.of(
        "acks", "all", "enable.idempotence", "true",
        "linger.ms", "5", "batch.size", "524288", "client.id", "sluice-offsets-writer")),
        new ByteArraySerializer(), new ByteArraySerializer())) {
      List<Future<RecordMetadata>> sent = new ArrayList<>(records.size());
      int n = records.size();
      for (int i = 0; i < n; i++) {
        OffsetRecord r = records.get(i);
        sent.add(producer.send(new ProducerRecord<>(topic, r.key().getBytes(StandardCharsets.UTF_8),
            r.value() == null ? null : r.value().getBytes(StandardCharsets.UTF_8))));
        progress.update(i + 1, n);
      }
      producer.flush();
      for (Future<RecordMetadata> f : sent) {
        f.get();
      }
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot write to " + topic + ": " + e.getCause().getMessage(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while writing " + topic, e);
    }
  }
}
