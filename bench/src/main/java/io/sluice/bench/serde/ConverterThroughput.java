package io.sluice.bench.serde;

import io.sluice.kafka.EmbeddedKafka;
import io.sluice.registry.SchemaRegistry;
import io.sluice.serde.connect.AvroConverter;
import io.sluice.serde.connect.JsonEnvelopeConverter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.storage.Converter;

/**
 * Converter throughput on Debezium-shaped change events (an orders row with a decimal, a microsecond timestamp, a
 * zoned timestamp and a JSON column, inside the envelope with its source block), records per second on one thread,
 * each converter on the very same records: Kafka's JSON converter without schemas (the baseline the serde issue
 * names), with schemas, Sluice's JSON converter (the same bytes with schemas; the worker's default, so what a
 * pipeline carries unless told otherwise), and Sluice's Avro, JSON Schema and Protobuf converters on Sluice's
 * registry (in this JVM, on an embedded broker; after the first record no registry call is made). Rounds alternate
 * between the converters so a slow minute of a shared machine hits all of them; the median round counts. Beside
 * records per second of wall-clock time, the thread's CPU time per record: on a loaded machine the wall clock also
 * counts the time the thread waited for a core, the CPU time does not.
 *
 * <p>Run: {@code bench/run io.sluice.bench.serde.ConverterThroughput [records] [rounds]}.
 */
public final class ConverterThroughput {
  private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();
  private static final Schema ROW = SchemaBuilder.struct().name("shop.public.orders.Value").optional()
      .field("id", Schema.INT64_SCHEMA)
      .field("customer_id", Schema.INT64_SCHEMA)
      .field("status", Schema.STRING_SCHEMA)
      .field("total", Decimal.builder(2).parameter("connect.decimal.precision", "12").build())
      .field("placed_at", SchemaBuilder.int64().name("io.debezium.time.MicroTimestamp").version(1).build())
      .field("updated_at", SchemaBuilder.string().name("io.debezium.time.ZonedTimestamp").version(1).optional().build())
      .field("note", Schema.OPTIONAL_STRING_SCHEMA)
      .field("attrs", SchemaBuilder.string().name("io.debezium.data.Json").version(1).optional().build())
      .build();
  private static final Schema SOURCE = SchemaBuilder.struct().name("io.debezium.connector.postgresql.Source")
      .field("version", Schema.STRING_SCHEMA).field("connector", Schema.STRING_SCHEMA)
      .field("name", Schema.STRING_SCHEMA).field("ts_ms", Schema.INT64_SCHEMA)
      .field("snapshot", SchemaBuilder.string().optional().defaultValue("false").build())
      .field("db", Schema.STRING_SCHEMA).field("sequence", Schema.OPTIONAL_STRING_SCHEMA)
      .field("schema", Schema.STRING_SCHEMA).field("table", Schema.STRING_SCHEMA)
      .field("txId", Schema.OPTIONAL_INT64_SCHEMA).field("lsn", Schema.OPTIONAL_INT64_SCHEMA)
      .field("xmin", Schema.OPTIONAL_INT64_SCHEMA).build();
  private static final Schema ENVELOPE = SchemaBuilder.struct().name("shop.public.orders.Envelope").version(2)
      .optional().field("before", ROW).field("after", ROW).field("source", SOURCE)
      .field("op", Schema.STRING_SCHEMA).field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA).build();

  public static void main(String[] args) throws Exception {
    int records = args.length > 0 ? Integer.parseInt(args[0]) : 50_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 9;
    List<Struct> events = events(10_000);
    String topic = "shop.public.orders";
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().dataDir(Files.createTempDirectory("serde-bench-kafka"))
            .port(0).start();
        SchemaRegistry registry = SchemaRegistry.builder().bootstrapServers(kafka.bootstrapServers())
            .topic("_schemas").port(0).start()) {
      Map<String, Converter> converters = new LinkedHashMap<>();
      converters.put("JSON, no schemas (baseline)", json(false));
      converters.put("JSON with schemas", json(true));
      JsonEnvelopeConverter envelope = new JsonEnvelopeConverter();
      envelope.configure(Map.of("converter.type", "value"));
      converters.put("JSON with schemas (Sluice)", envelope);
      AvroConverter avro = new AvroConverter();
      avro.configure(Map.of("schema.registry.url", registry.url()), false);
      converters.put("Avro (Sluice)", avro);
      io.sluice.serde.connect.JsonSchemaConverter jsonSchema = new io.sluice.serde.connect.JsonSchemaConverter();
      jsonSchema.configure(Map.of("schema.registry.url", registry.url()), false);
      converters.put("JSON Schema (Sluice)", jsonSchema);
      io.sluice.serde.connect.ProtobufConverter protobuf = new io.sluice.serde.connect.ProtobufConverter();
      protobuf.configure(Map.of("schema.registry.url", registry.url()), false);
      converters.put("Protobuf (Sluice)", protobuf);

      Map<String, double[]> write = new LinkedHashMap<>();
      Map<String, double[]> read = new LinkedHashMap<>();
      Map<String, double[]> writeCpu = new LinkedHashMap<>();
      Map<String, double[]> readCpu = new LinkedHashMap<>();
      Map<String, Double> size = new LinkedHashMap<>();
      for (String name : converters.keySet()) {
        write.put(name, new double[rounds]);
        read.put(name, new double[rounds]);
        writeCpu.put(name, new double[rounds]);
        readCpu.put(name, new double[rounds]);
      }
      // One topic (so one subject) per converter: a subject holds one schema type.
      Map<String, String> topics = new LinkedHashMap<>();
      converters.keySet().forEach(name -> topics.put(name, topic + "." + topics.size()));
      // Warm-up: JIT and, for the registry-backed converters, the one registration.
      for (Map.Entry<String, Converter> c : converters.entrySet()) {
        serialize(c.getValue(), topics.get(c.getKey()), events, records / 2);
      }
      for (int round = 0; round < rounds; round++) {
        for (Map.Entry<String, Converter> c : converters.entrySet()) {
          long t0 = System.nanoTime();
          long c0 = CPU.getCurrentThreadCpuTime();
          List<byte[]> bytes = serialize(c.getValue(), topics.get(c.getKey()), events, records);
          writeCpu.get(c.getKey())[round] = (CPU.getCurrentThreadCpuTime() - c0) / 1e3 / records;
          write.get(c.getKey())[round] = records / ((System.nanoTime() - t0) / 1e9);
          size.put(c.getKey(), bytes.stream().mapToInt(b -> b.length).average().orElse(0));
          long t1 = System.nanoTime();
          long c1 = CPU.getCurrentThreadCpuTime();
          long sink = 0;
          for (byte[] b : bytes) {
            sink += c.getValue().toConnectData(topics.get(c.getKey()), b).value() == null ? 0 : 1;
          }
          readCpu.get(c.getKey())[round] = (CPU.getCurrentThreadCpuTime() - c1) / 1e3 / records;
          read.get(c.getKey())[round] = sink / ((System.nanoTime() - t1) / 1e9);
        }
      }
      String baseline = converters.keySet().iterator().next();
      double baseWrite = median(write.get(baseline));
      double baseRead = median(read.get(baseline));
      System.out.printf(Locale.ROOT, "%n%,d Debezium change events per round, %d rounds, median round, one thread, "
          + "%d cores%n", records, rounds, Runtime.getRuntime().availableProcessors());
      System.out.printf(Locale.ROOT, "%-30s %14s %8s %14s %8s %12s %12s %12s%n", "converter", "write rec/s", "ratio",
          "read rec/s", "ratio", "bytes/rec", "write µs CPU", "read µs CPU");
      for (String name : converters.keySet()) {
        double w = median(write.get(name));
        double r = median(read.get(name));
        System.out.printf(Locale.ROOT, "%-30s %,14.0f %7.2fx %,14.0f %7.2fx %12.0f %12.2f %12.2f%n", name, w,
            w / baseWrite, r, r / baseRead, size.get(name), median(writeCpu.get(name)), median(readCpu.get(name)));
      }
      System.out.printf(Locale.ROOT, "load average at the end: %.2f%n",
          ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }
    System.exit(0);
  }

  private static JsonConverter json(boolean schemas) {
    JsonConverter c = new JsonConverter();
    c.configure(Map.of("schemas.enable", String.valueOf(schemas), "converter.type", "value"));
    return c;
  }

  private static List<byte[]> serialize(Converter c, String topic, List<Struct> events, int n) {
    List<byte[]> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(c.fromConnectData(topic, ENVELOPE, events.get(i % events.size())));
    }
    return out;
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  private static List<Struct> events(int n) {
    List<Struct> out = new ArrayList<>(n);
    long micros = 1_764_054_000_000_000L;
    for (int i = 0; i < n; i++) {
      Struct row = new Struct(ROW).put("id", (long) i).put("customer_id", (long) (i % 997))
          .put("status", i % 3 == 0 ? "paid" : "placed").put("total", BigDecimal.valueOf(1999 + i, 2))
          .put("placed_at", micros + i * 1_000L).put("updated_at", "2026-11-25T07:00:00.123456Z")
          .put("note", i % 5 == 0 ? null : "leave at the door").put("attrs", "{\"gift\":" + (i % 2 == 0) + "}");
      Struct source = new Struct(SOURCE).put("version", "3.6.0.Final").put("connector", "postgresql")
          .put("name", "shop").put("ts_ms", 1_764_054_000_000L + i).put("snapshot", "false").put("db", "shop")
          .put("sequence", "[\"24023928\",\"24023928\"]").put("schema", "public").put("table", "orders")
          .put("txId", 700L + i).put("lsn", 24_023_928L + i).put("xmin", null);
      out.add(new Struct(ENVELOPE).put("after", row).put("source", source).put("op", i % 4 == 0 ? "u" : "c")
          .put("ts_ms", 1_764_054_000_001L + i));
    }
    return out;
  }
}
