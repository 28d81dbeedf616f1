package io.sluice.kafka.testing;

import io.sluice.kafka.EmbeddedKafka;
import io.sluice.kafka.ExitControl;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The one Kafka broker of a test JVM, started on first use and stopped when the JVM ends.
 *
 * <p>Tests share it to keep the suite fast; each test isolates itself by naming its own topics and groups with
 * {@link #unique(String)}.
 */
public final class SharedKafka {
  private static final AtomicInteger counter = new AtomicInteger();
  private static EmbeddedKafka kafka;

  private SharedKafka() {}

  public static synchronized EmbeddedKafka get() {
    if (kafka == null) {
      ExitControl.install((code, message) -> { });
      try {
        Path dir = Files.createTempDirectory("sluice-test-kafka");
        kafka = EmbeddedKafka.builder().dataDir(dir).port(0).start();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      EmbeddedKafka started = kafka;
      Runtime.getRuntime().addShutdownHook(new Thread(started::close, "shared-kafka-stop"));
    }
    return kafka;
  }

  public static String bootstrapServers() {
    return get().bootstrapServers();
  }

  /** Every record {@code topic} holds now, partition by partition, as bytes. */
  public static List<ConsumerRecord<byte[], byte[]>> readAll(String topic) {
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of("bootstrap.servers",
        bootstrapServers()), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> tps = consumer.partitionsFor(topic).stream()
          .map(p -> new TopicPartition(topic, p.partition())).toList();
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      Map<TopicPartition, Long> end = consumer.endOffsets(tps);
      while (tps.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        consumer.poll(Duration.ofMillis(200)).forEach(out::add);
      }
    }
    return out;
  }

  /** A name no other test in this JVM uses: for topics, groups, connectors. */
  public static String unique(String prefix) {
    return prefix + "-" + ProcessHandle.current().pid() + "-" + counter.incrementAndGet();
  }
}
