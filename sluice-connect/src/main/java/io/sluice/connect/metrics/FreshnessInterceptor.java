package io.sluice.connect.metrics;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Measures, on a sink connector's consumer, the time from a change's commit in the source database to the moment the
 * sink committed the record's offset.
 *
 * <p>Why at the offset commit: a sink task only lets Connect commit offsets it has written (the JDBC sink flushes in
 * {@code put} and acknowledges in {@code preCommit}), so a committed offset is the first point at which the change is
 * known to be in the target. The figure therefore includes up to one {@code offset.flush.interval.ms} of commit delay
 * (1 s in Sluice). The commit time is the Debezium envelope's {@code source.ts_ms}, else its {@code ts_ms}; records
 * that are not JSON (another converter) or carry neither are not measured.
 *
 * <p>Kafka creates interceptors by class name, so the link to the exporter is a per-worker registry: the worker passes
 * its id as {@value #WORKER_KEY} in the consumer config, and the exporter of that worker registers a
 * {@link Recorder} under the same id.
 */
public final class FreshnessInterceptor implements ConsumerInterceptor<byte[], byte[]> {
  public static final String WORKER_KEY = "sluice.metrics.worker";
  private static final Map<String, Recorder> recorders = new ConcurrentHashMap<>();
  private static final JsonFactory JSON = new JsonFactory();
  /** Bounds memory when commits stall: past this many pending records a partition stops being sampled. */
  private static final int MAX_PENDING = 200_000;

  /** Receives one observation per committed change event. */
  @FunctionalInterface
  interface Recorder {
    void observe(String connector, double seconds);
  }

  private final Map<TopicPartition, ArrayDeque<long[]>> pending = new HashMap<>();
  private String worker;
  private String connector;

  static void register(String worker, Recorder recorder) {
    recorders.put(worker, recorder);
  }

  static void unregister(String worker, Recorder recorder) {
    recorders.remove(worker, recorder);
  }

  @Override
  public void configure(Map<String, ?> configs) {
    Object w = configs.get(WORKER_KEY);
    worker = w == null ? null : w.toString();
    connector = connectorOf(String.valueOf(configs.get(ConsumerConfig.CLIENT_ID_CONFIG)));
  }

  /** Connect names a sink task's consumer {@code connector-consumer-<connector>-<task>}. */
  static String connectorOf(String clientId) {
    String prefix = "connector-consumer-";
    if (clientId == null || !clientId.startsWith(prefix)) {
      return null;
    }
    int dash = clientId.lastIndexOf('-');
    return dash <= prefix.length() ? null : clientId.substring(prefix.length(), dash);
  }

  @Override
  public ConsumerRecords<byte[], byte[]> onConsume(ConsumerRecords<byte[], byte[]> records) {
    if (connector == null || worker == null || !recorders.containsKey(worker)) {
      return records;
    }
    synchronized (pending) {
      for (ConsumerRecord<byte[], byte[]> r : records) {
        long ts = commitTimeMillis(r.value());
        if (ts <= 0) {
          continue;
        }
        ArrayDeque<long[]> q = pending.computeIfAbsent(new TopicPartition(r.topic(), r.partition()),
            tp -> new ArrayDeque<>());
        if (q.size() < MAX_PENDING) {
          q.addLast(new long[] {r.offset(), ts});
        }
      }
    }
    return records;
  }

  @Override
  public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {
    Recorder recorder = worker == null ? null : recorders.get(worker);
    if (recorder == null || connector == null) {
      return;
    }
    long now = System.currentTimeMillis();
    synchronized (pending) {
      offsets.forEach((tp, committed) -> {
        ArrayDeque<long[]> q = pending.get(tp);
        // The committed offset is the next one to read: every record below it has been written.
        while (q != null && !q.isEmpty() && q.peekFirst()[0] < committed.offset()) {
          recorder.observe(connector, Math.max(0, now - q.pollFirst()[1]) / 1000.0);
        }
      });
    }
  }

  @Override
  public void close() {
    synchronized (pending) {
      pending.clear();
    }
  }

  /**
   * The change's commit time from a JSON change event, with or without the converter's {@code schema}/{@code payload}
   * wrapper; 0 when there is none. Streams the bytes, skipping the schema, so it costs little per record.
   */
  static long commitTimeMillis(byte[] value) {
    if (value == null || value.length == 0 || value[0] != '{') {
      return 0;
    }
    try (JsonParser p = JSON.createParser(value)) {
      p.nextToken();
      return envelopeTime(p, true);
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  private static long envelopeTime(JsonParser p, boolean top) throws IOException {
    long tsMs = 0;
    long sourceTs = 0;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken t = p.nextToken();
      if (top && "payload".equals(field) && t == JsonToken.START_OBJECT) {
        return envelopeTime(p, false);
      } else if ("source".equals(field) && t == JsonToken.START_OBJECT) {
        sourceTs = numberField(p, "ts_ms");
      } else if ("ts_ms".equals(field) && t == JsonToken.VALUE_NUMBER_INT) {
        tsMs = p.getLongValue();
      } else {
        p.skipChildren();
      }
    }
    return sourceTs > 0 ? sourceTs : tsMs;
  }

  private static long numberField(JsonParser p, String name) throws IOException {
    long out = 0;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken t = p.nextToken();
      if (name.equals(field) && t == JsonToken.VALUE_NUMBER_INT) {
        out = p.getLongValue();
      } else {
        p.skipChildren();
      }
    }
    return out;
  }
}
