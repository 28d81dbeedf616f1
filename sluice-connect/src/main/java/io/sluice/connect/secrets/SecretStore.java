package io.sluice.connect.secrets;

import io.sluice.topics.CompactedTopic;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Connector secrets in a compacted Kafka topic, so every worker of the cluster resolves them and none is kept in a
 * node's memory or disk alone. Key: {@code <connector>/<config key>}; a tombstone forgets it.
 *
 * <p>One instance per (bootstrap servers, topic) in a JVM, shared by the REST filter that writes and the config
 * provider that reads.
 */
public final class SecretStore implements AutoCloseable {
  private static final Map<String, SecretStore> instances = new ConcurrentHashMap<>();

  private final String topic;
  private final KafkaProducer<String, String> producer;
  private final KafkaConsumer<String, String> consumer;
  private final Map<String, String> secrets = new HashMap<>();

  private SecretStore(String bootstrapServers, String topic) {
    this.topic = topic;
    CompactedTopic.ensure(bootstrapServers, topic, "secrets topic", Duration.ofSeconds(30));
    this.producer = new KafkaProducer<>(Map.of(
        "bootstrap.servers", bootstrapServers, "acks", "all", "enable.idempotence", "true",
        "client.id", "sluice-secrets-writer"), new StringSerializer(), new StringSerializer());
    this.consumer = new KafkaConsumer<>(Map.of(
        "bootstrap.servers", bootstrapServers, "enable.auto.commit", "false",
        "client.id", "sluice-secrets-reader"), new StringDeserializer(), new StringDeserializer());
    List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
        .map(p -> new TopicPartition(topic, p.partition())).toList();
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
  }

  /** The JVM's store for this cluster and topic, created (with its topic) on first use. */
  public static SecretStore of(String bootstrapServers, String topic) {
    return instances.computeIfAbsent(bootstrapServers + "|" + topic, k -> new SecretStore(bootstrapServers, topic));
  }

  /** Closes every store of this JVM; the runtime calls it on shutdown. */
  public static void closeAll() {
    instances.values().forEach(SecretStore::close);
    instances.clear();
  }

  public synchronized void put(String connector, String key, String value) {
    send(connector + "/" + key, value);
  }

  /** Forgets every secret of a connector. */
  public synchronized void forget(String connector) {
    readToEnd();
    String prefix = connector + "/";
    for (String k : List.copyOf(secrets.keySet())) {
      if (k.startsWith(prefix)) {
        send(k, null);
      }
    }
  }

  /** Reads the topic to its current end first, so a secret written by any worker a moment ago is seen. */
  public synchronized Optional<String> get(String connector, String key) {
    readToEnd();
    return Optional.ofNullable(secrets.get(connector + "/" + key));
  }

  private void send(String key, String value) {
    try {
      producer.send(new ProducerRecord<>(topic, key, value)).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while storing a secret", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot store secret in topic " + topic + ": " + e.getCause().getMessage(), e);
    }
    if (value == null) {
      secrets.remove(key);
    } else {
      secrets.put(key, value);
    }
  }

  private void readToEnd() {
    Map<TopicPartition, Long> end = consumer.endOffsets(consumer.assignment(), Duration.ofSeconds(30));
    while (end.entrySet().stream().anyMatch(e -> consumer.position(e.getKey()) < e.getValue())) {
      for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
        if (r.value() == null) {
          secrets.remove(r.key());
        } else {
          secrets.put(r.key(), r.value());
        }
      }
    }
  }

  @Override
  public synchronized void close() {
    producer.close(Duration.ofSeconds(5));
    consumer.close(Duration.ofSeconds(5));
  }
}
