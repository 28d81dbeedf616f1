package io.sluice.ops.offsets;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.ops.dlq.ErrorContext;
import io.sluice.topics.KafkaCluster;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Keeps a record a sink is moved past: a copy in the sink's dead letter queue, as Kafka Connect itself would have
 * written it there (the original key, value, timestamp and headers, then Connect's {@code __connect.errors.*} context
 * headers), so {@code sluice dlq inspect} shows it and {@code sluice dlq replay} can send it back once its cause is
 * fixed. The context says an operator skipped it, and why the task had failed on it.
 */
final class DeadLetterCopy {
  /** What the copy's context headers say about the failure. */
  record Context(String connector, int task, String connectorClass, String exceptionClass, String message,
      String stacktrace) {}

  private final KafkaCluster cluster;
  private final Duration timeout;

  DeadLetterCopy(KafkaCluster cluster, Duration timeout) {
    this.cluster = cluster;
    this.timeout = timeout;
  }

  /** The sink's own {@code errors.deadletterqueue.topic.name}, else {@code <connector>.dlq}, as Sluice names them. */
  static String topicOf(String connector, JsonNode config) {
    String own = config.path("errors.deadletterqueue.topic.name").asText("").strip();
    return own.isEmpty() ? connector + ".dlq" : own;
  }

  /** Copies {@code record} to {@code topic}, creating the topic as Connect would; returns where the copy is. */
  TopicOffset copy(ConsumerRecord<byte[], byte[]> record, String topic, JsonNode config, Context context) {
    ensureTopic(topic, config);
    RecordHeaders headers = new RecordHeaders(record.headers().toArray());
    add(headers, ErrorContext.TOPIC, record.topic());
    add(headers, ErrorContext.PARTITION, String.valueOf(record.partition()));
    add(headers, ErrorContext.OFFSET, String.valueOf(record.offset()));
    add(headers, ErrorContext.CONNECTOR, context.connector());
    add(headers, ErrorContext.TASK, String.valueOf(context.task()));
    // The stage at which a sink task refuses a record it was handed.
    add(headers, ErrorContext.STAGE, "TASK_PUT");
    add(headers, ErrorContext.CLASS, context.connectorClass());
    add(headers, ErrorContext.EXCEPTION, context.exceptionClass());
    add(headers, ErrorContext.MESSAGE, context.message());
    add(headers, ErrorContext.STACKTRACE, context.stacktrace());
    Long timestamp = record.timestamp() < 0 ? null : record.timestamp();
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(cluster.clientConfig(Map.of(
        "acks", "all", "enable.idempotence", "true", "client.id", "sluice-offsets-dlq")),
        new ByteArraySerializer(), new ByteArraySerializer())) {
      RecordMetadata m = producer.send(new ProducerRecord<>(topic, null, timestamp, record.key(), record.value(),
          headers)).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return new TopicOffset(m.topic(), m.partition(), m.offset());
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot write to " + topic + ": " + e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("no acknowledgement from " + topic + " within " + timeout.toSeconds() + " s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while writing " + topic, e);
    }
  }

  private static void add(RecordHeaders headers, String name, String value) {
    if (value != null) {
      headers.add(name, value.getBytes(StandardCharsets.UTF_8));
    }
  }

  /** Creates a missing topic with one partition and the sink's DLQ replication factor (the cluster's default without). */
  private void ensureTopic(String topic, JsonNode config) {
    try (Admin admin = Admin.create(cluster.clientConfig())) {
      if (admin.listTopics().names().get(timeout.toMillis(), TimeUnit.MILLISECONDS).contains(topic)) {
        return;
      }
      String rf = config.path("errors.deadletterqueue.topic.replication.factor").asText("").strip();
      Optional<Short> replication = rf.isEmpty() || rf.equals("-1") ? Optional.empty()
          : Optional.of(Short.parseShort(rf));
      try {
        admin.createTopics(List.of(new NewTopic(topic, Optional.of(1), replication))).all()
            .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException)) {
          throw e;
        }
      }
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot create the dead letter topic " + topic + ": " + e.getCause().getMessage(),
          e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("cannot reach " + cluster.bootstrapServers() + " to create " + topic, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating " + topic, e);
    } catch (NumberFormatException e) {
      throw new IllegalStateException("errors.deadletterqueue.topic.replication.factor is not a number", e);
    }
  }
}
