package io.sluice.exporter;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.sluice.connect.ConnectRuntime;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
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
 * sink committed the record's offset: {@code svc_cdc_freshness_commit_seconds}. (The time to the sink's write of the
 * record is the sink task's own measure, {@link WriteFreshness}.)
 *
 * <p>Why at the offset commit: a sink task only lets Connect commit offsets it has written (the JDBC sink flushes in
 * {@code put} and acknowledges in {@code preCommit}), so a committed offset is the first point at which the change is
 * known to be in the target. The figure therefore includes up to one {@code offset.flush.interval.ms} of commit delay
 * (1 s in Sluice). The commit time is the Debezium envelope's {@code source.ts_ms}, else its {@code ts_ms}; records
 * that are not JSON (another converter) or carry neither are not measured.
 *
 * <p>Kafka creates interceptors by class name, so the link to the exporter is a per-worker registry: the worker passes
 * its REST address as {@link ConnectRuntime#WORKER_KEY} in the consumer config, and the exporter of that worker registers a
 * {@link Recorder} under the same id.
 */
public final class FreshnessInterceptor implements ConsumerInterceptor<byte[], byte[]> {
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
    Object w = configs.get(ConnectRuntime.WORKER_KEY);
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
    long fast = debeziumSourceTime(value);
    if (fast > 0) {
      return fast;
    }
    try (JsonParser p = JSON.createParser(value)) {
      p.nextToken();
      return envelopeTime(p, true);
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  private static final byte[] SOURCE_OPEN = "\"source\":{".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] TS_MS = "\"ts_ms\":".getBytes(StandardCharsets.US_ASCII);

  /**
   * {@code source.ts_ms} of a Debezium envelope found by a byte search from the end, 0 when the shape is not the
   * expected one (the full parse then decides). Tokenizing the whole record, schema included, cost a fifth of a sink
   * task's CPU. Searching from the end is sound for Debezium's envelope: the source block comes after
   * {@code before}/{@code after} and only {@code transaction}, {@code op} and the {@code ts_*} fields follow it;
   * the schema part names fields as {@code "field":"source"}, never as an object key; and inside JSON strings the
   * quotes of the pattern would be escaped, so a string value cannot match.
   */
  static long debeziumSourceTime(byte[] value) {
    int source = lastIndexOf(value, SOURCE_OPEN);
    if (source < 0) {
      return 0;
    }
    int i = indexOf(value, TS_MS, source + SOURCE_OPEN.length);
    if (i < 0) {
      return 0;
    }
    // The ts_ms found must still belong to the source object: no closing brace of it in between.
    for (int k = source + SOURCE_OPEN.length; k < i; k++) {
      if (value[k] == '}' || value[k] == '{') {
        return 0;
      }
    }
    long out = 0;
    int digits = 0;
    for (int k = i + TS_MS.length; k < value.length && digits < 19; k++, digits++) {
      byte b = value[k];
      if (b < '0' || b > '9') {
        return digits > 0 && (b == ',' || b == '}') ? out : 0;
      }
      out = out * 10 + (b - '0');
    }
    return 0;
  }

  private static int lastIndexOf(byte[] data, byte[] pattern) {
    outer:
    for (int i = data.length - pattern.length; i >= 0; i--) {
      for (int j = 0; j < pattern.length; j++) {
        if (data[i + j] != pattern[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  private static int indexOf(byte[] data, byte[] pattern, int from) {
    outer:
    for (int i = from; i <= data.length - pattern.length; i++) {
      for (int j = 0; j < pattern.length; j++) {
        if (data[i + j] != pattern[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
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
