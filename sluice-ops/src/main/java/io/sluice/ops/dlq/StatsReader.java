package io.sluice.ops.dlq;

import io.sluice.topics.TransactionMarkers;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;

/** Computes {@link DlqStats}: offsets and rates of the dead-letter topic, lag of the sinks that feed it. */
final class StatsReader {
  /** The largest sink lag, in offsets, read to see whether it is transaction markers only. */
  private static final long MARKER_PROBE = 100;
  private final Map<String, Object> clientProperties;
  private final Clock clock;

  StatsReader(Map<String, Object> clientProperties, Clock clock) {
    this.clientProperties = clientProperties;
    this.clock = clock;
  }

  DlqStats stats(String topic, List<ConnectDeadLetterTopics.Sink> knownSinks, String warning) {
    Instant now = clock.instant();
    DlqReader reader = new DlqReader(clientProperties);
    try (KafkaConsumer<byte[], byte[]> consumer = reader.consumer()) {
      List<TopicPartition> tps = DlqReader.partitions(consumer, topic);
      Map<TopicPartition, Long> begin = consumer.beginningOffsets(tps);
      Map<TopicPartition, Long> end = consumer.endOffsets(tps);
      List<DlqStats.PartitionOffsets> partitions = new ArrayList<>();
      long records = 0;
      for (TopicPartition tp : tps) {
        partitions.add(new DlqStats.PartitionOffsets(tp.partition(), begin.get(tp), end.get(tp)));
        records += end.get(tp) - begin.get(tp);
      }
      long lastHour = since(consumer, tps, end, now.minus(Duration.ofHours(1)));
      long lastDay = since(consumer, tps, end, now.minus(Duration.ofHours(24)));

      // The newest record of each partition: its time, and the connector that wrote it (when Connect said so).
      Map<TopicPartition, Long> lastStart = new HashMap<>();
      tps.forEach(tp -> lastStart.put(tp, Math.max(begin.get(tp), end.get(tp) - 1)));
      List<DlqRecord> newest = new ArrayList<>();
      DlqReader.scan(consumer, lastStart, end, Duration.ofSeconds(10), r -> newest.add(r));
      Instant newestTime = newest.stream().map(DlqRecord::timestamp).max(Comparator.naturalOrder()).orElse(null);

      Map<String, ConnectDeadLetterTopics.Sink> sinks = new LinkedHashMap<>();
      for (ConnectDeadLetterTopics.Sink s : knownSinks) {
        if (s.deadLetterTopic().equals(topic)) {
          sinks.put(s.connector(), s);
        }
      }
      for (DlqRecord r : newest) {
        String connector = r.error().connector();
        if (connector != null && !sinks.containsKey(connector)) {
          sinks.put(connector, new ConnectDeadLetterTopics.Sink(connector, topic, "connect-" + connector, null));
        }
      }
      List<DlqStats.SinkLag> lags = new ArrayList<>();
      try (Admin admin = Admin.create(clientProperties)) {
        for (ConnectDeadLetterTopics.Sink s : sinks.values()) {
          lags.add(lag(admin, consumer, s));
        }
      }
      return new DlqStats(topic, partitions, records, lastHour, lastDay / 24.0, newestTime, lags, now, warning);
    }
  }

  private static long since(KafkaConsumer<?, ?> consumer, List<TopicPartition> tps, Map<TopicPartition, Long> end,
                            Instant from) {
    Map<TopicPartition, Long> query = new HashMap<>();
    tps.forEach(tp -> query.put(tp, from.toEpochMilli()));
    long n = 0;
    for (Map.Entry<TopicPartition, OffsetAndTimestamp> e : consumer.offsetsForTimes(query).entrySet()) {
      if (e.getValue() != null) {
        n += end.get(e.getKey()) - e.getValue().offset();
      }
    }
    return n;
  }

  private static DlqStats.SinkLag lag(Admin admin, KafkaConsumer<?, ?> consumer, ConnectDeadLetterTopics.Sink sink) {
    Map<TopicPartition, OffsetAndMetadata> offsets;
    try {
      offsets = admin.listConsumerGroupOffsets(sink.group()).partitionsToOffsetAndMetadata()
          .get(30, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot read the offsets of group " + sink.group() + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
    Map<TopicPartition, Long> committed = new HashMap<>();
    offsets.forEach((tp, om) -> {
      if (om != null) {
        committed.put(tp, om.offset());
      }
    });
    if (committed.isEmpty()) {
      return new DlqStats.SinkLag(sink.connector(), sink.group(), null, List.of(), sink.state());
    }
    Map<TopicPartition, Long> latest = consumer.endOffsets(committed.keySet());
    // A sink that read everything of a topic written in transactions is short of the end by their markers only.
    Set<TopicPartition> caughtUp = TransactionMarkers.only(consumer, committed, latest, MARKER_PROBE,
        Duration.ofSeconds(2));
    List<DlqStats.PartitionLag> partitions = new ArrayList<>();
    long total = 0;
    for (TopicPartition tp : committed.keySet().stream()
        .sorted(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition)).toList()) {
      long lag = caughtUp.contains(tp) ? 0 : Math.max(0, latest.get(tp) - committed.get(tp));
      partitions.add(new DlqStats.PartitionLag(tp.topic(), tp.partition(), committed.get(tp), latest.get(tp), lag));
      total += lag;
    }
    return new DlqStats.SinkLag(sink.connector(), sink.group(), total, partitions, sink.state());
  }
}
