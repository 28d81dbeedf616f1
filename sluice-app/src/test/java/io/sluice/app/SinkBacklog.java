package io.sluice.app;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The records of a pipeline's topic that its sink's consumer group has not committed, as Kafka says them, sampled
 * twice a second: how many records a pipeline really had outstanding at a time, to hold the metrics server's figure
 * against. (The sink commits a second after it writes, so this is never below what it had not written.)
 */
final class SinkBacklog implements AutoCloseable {
  private record Sample(long atMs, long records) {}

  private final Admin admin;
  private final List<Sample> samples = new CopyOnWriteArrayList<>();
  private final Thread thread;
  private volatile boolean running = true;

  SinkBacklog(String bootstrap, String topic, String group) {
    admin = Admin.create(Map.of("bootstrap.servers", bootstrap, "client.id", "test-sink-backlog"));
    thread = new Thread(() -> {
      while (running) {
        try {
          long at = System.currentTimeMillis();
          long records = uncommitted(admin, topic, group);
          samples.add(new Sample(at, records));
          Thread.sleep(500);
        } catch (InterruptedException e) {
          return;
        } catch (Exception e) {
          // Kafka busy for a moment: the next sample.
        }
      }
    }, "sink-backlog");
    thread.setDaemon(true);
    thread.start();
  }

  /** The records of {@code topic} past what {@code group} committed, summed over its partitions, as Kafka says now. */
  static long uncommitted(Admin admin, String topic, String group) throws Exception {
    List<TopicPartition> partitions = admin.describeTopics(List.of(topic)).allTopicNames()
        .get(10, TimeUnit.SECONDS).get(topic).partitions().stream()
        .map(p -> new TopicPartition(topic, p.partition())).toList();
    Map<TopicPartition, OffsetSpec> latest = new java.util.HashMap<>();
    partitions.forEach(p -> latest.put(p, OffsetSpec.latest()));
    Map<TopicPartition, ListOffsetsResultInfo> ends = admin.listOffsets(latest).all().get(10, TimeUnit.SECONDS);
    Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
        .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
    long records = 0;
    for (TopicPartition p : partitions) {
      OffsetAndMetadata c = committed.get(p);
      records += ends.get(p).offset() - (c == null ? 0 : c.offset());
    }
    return records;
  }

  /** The largest backlog sampled from {@code beforeMs} before {@code atMs} to {@code afterMs} after; -1 if none. */
  long largestAround(long atMs, long beforeMs, long afterMs) {
    return samples.stream().filter(s -> s.atMs() >= atMs - beforeMs && s.atMs() <= atMs + afterMs)
        .mapToLong(Sample::records).max().orElse(-1);
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    thread.interrupt();
    thread.join(15_000);
    admin.close();
  }
}
