package io.sluice.sink.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/**
 * The write freshness histogram as the worker's registry holds it: records with known commit times, written at a
 * known time, land in the buckets Prometheus would put them in (a value equal to a bound counts under it), cumulative,
 * with the sum and the count.
 */
class WriteFreshnessTest {
  private static final Schema SOURCE = SchemaBuilder.struct().field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA).build();
  private static final Schema ENVELOPE = SchemaBuilder.struct().field("source", SOURCE)
      .field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA).build();
  private static final long NOW = 1_700_000_000_000L;

  private static SinkRecord committedAt(Long sourceTs, Long envelopeTs) {
    Struct value = new Struct(ENVELOPE).put("source", new Struct(SOURCE).put("ts_ms", sourceTs))
        .put("ts_ms", envelopeTs);
    return new SinkRecord("t", 0, null, null, ENVELOPE, value, 0);
  }

  private static SinkRecord secondsOld(double seconds) {
    return committedAt(NOW - Math.round(seconds * 1000), null);
  }

  @Test
  void recordsLandInCumulativeBucketsWithSumAndCount() throws Exception {
    try (Metrics registry = new Metrics();
        PluginMetricsImpl plugin = new PluginMetricsImpl(registry, Map.of("connector", "orders-sink", "task", "0"))) {
      AtomicLong clock = new AtomicLong(NOW);
      WriteFreshness freshness = WriteFreshness.publish(plugin, clock::get);
      List<SinkRecord> put = new ArrayList<>(List.of(secondsOld(0.02), secondsOld(0.05), secondsOld(0.3),
          secondsOld(1.0), secondsOld(1.2), secondsOld(45), secondsOld(7200)));
      // The envelope's own ts_ms when the source block has none; nothing for records without either, or no envelope.
      put.add(committedAt(null, NOW - 4000));
      put.add(committedAt(null, null));
      put.add(new SinkRecord("t", 0, null, null, null, null, 1));
      put.add(new SinkRecord("t", 0, null, null, Schema.STRING_SCHEMA, "not an envelope", 2));
      freshness.written(put);
      // A clock behind the source (another machine's) counts as no delay rather than a negative one.
      clock.set(NOW - 10_000);
      freshness.written(List.of(secondsOld(0)));

      Map<String, Double> expected = new LinkedHashMap<>();
      expected.put("0.05", 3.0); // 0.02 s, 0.05 s (on the bound), the clock behind
      expected.put("0.1", 3.0);
      expected.put("0.25", 3.0);
      expected.put("0.5", 4.0);
      expected.put("0.75", 4.0);
      expected.put("1.0", 5.0);
      expected.put("1.5", 6.0);
      expected.put("2.5", 6.0);
      expected.put("5.0", 7.0); // the envelope's ts_ms, 4 s
      expected.put("10.0", 7.0);
      expected.put("30.0", 7.0);
      expected.put("60.0", 8.0);
      expected.put("120.0", 8.0);
      expected.put("300.0", 8.0);
      expected.put("600.0", 8.0);
      expected.put("1800.0", 8.0);
      expected.put("3600.0", 8.0);
      expected.put("+Inf", 9.0);
      Map<String, Double> actual = new LinkedHashMap<>();
      expected.keySet().forEach(le -> actual.put(le, value(registry, WriteFreshness.BUCKET, Map.of("le", le))));
      assertEquals(expected, actual);
      assertEquals(9.0, value(registry, WriteFreshness.COUNT, Map.of()));
      assertEquals(0.02 + 0.05 + 0.3 + 1.0 + 1.2 + 45 + 7200 + 4, value(registry, WriteFreshness.SUM, Map.of()),
          1e-9);

      freshness.unpublish();
      assertNull(registry.metric(name(WriteFreshness.COUNT, Map.of())));
    }
  }

  private static MetricName name(String metric, Map<String, String> tags) {
    Map<String, String> all = new LinkedHashMap<>(Map.of("connector", "orders-sink", "task", "0"));
    all.putAll(tags);
    return new MetricName(metric, "plugins", "", all);
  }

  private static double value(Metrics registry, String metric, Map<String, String> tags) {
    KafkaMetric m = registry.metric(name(metric, tags));
    return ((Number) m.metricValue()).doubleValue();
  }
}
