package io.sluice.bench.dlq;

import io.sluice.kafka.EmbeddedKafka;
import io.sluice.kafka.ExitControl;
import io.sluice.ops.dlq.DeadLetterQueue;
import io.sluice.ops.dlq.ReplayRequest;
import io.sluice.ops.dlq.ReplayResult;
import io.sluice.ops.progress.Progress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Replay throughput of {@code sluice dlq replay}: N dead-letter records, shaped as Kafka Connect's DLQ writes them
 * (the original JSON value and key, the ten {@code __connect.errors.*} headers with a short stack trace), produced back
 * to their original topic through an embedded broker in this JVM. Target: at least 50,000 records/s on 2 cores.
 *
 * <p>Baseline, same JVM and minute: the same replay with the Kafka producer's defaults (16 KiB batches, 5 ms linger,
 * no compression) instead of Sluice's (512 KiB lz4 batches, 10 ms linger; both idempotent with acks=all).
 *
 * <p>Run: {@code bench/run io.sluice.bench.dlq.DlqReplayBenchmark [records]} (default 1,000,000;
 * through {@code BENCH_JAVA_OPTS}: {@code -Dbaseline=false} skips the baseline, {@code -Drounds=N} (default 2),
 * {@code -Dproducer.KEY=VALUE} overrides a producer setting of the Sluice run).
 */
public final class DlqReplayBenchmark {
  static final double TARGET = 50_000;

  public static void main(String[] args) throws Exception {
    int records = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    boolean baseline = Boolean.parseBoolean(System.getProperty("baseline", "true"));
    int rounds = Integer.getInteger("rounds", 2);
    ExitControl.install((code, message) -> { });
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().dataDir(Files.createTempDirectory("sluice-dlq-bench"))
        .port(0).start()) {
      String bootstrap = kafka.bootstrapServers();
      try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
        // One DLQ partition, as Connect creates it; the original topic has four.
        admin.createTopics(List.of(new NewTopic("orders", 4, (short) 1), new NewTopic("orders-dlq", 1, (short) 1)))
            .all().get();
      }
      long t0 = System.nanoTime();
      fill(bootstrap, records);
      System.out.printf(Locale.ROOT, "filled %,d DLQ records in %.1f s%n", records, (System.nanoTime() - t0) / 1e9);

      DeadLetterQueue.Builder tunedBuilder = DeadLetterQueue.builder().bootstrapServers(bootstrap);
      // Tuning runs: -Dproducer.KEY=VALUE overrides a producer setting of the Sluice run.
      System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith("producer."))
          .forEach(k -> tunedBuilder.producerProperty(k.substring("producer.".length()), System.getProperty(k)));
      DeadLetterQueue tuned = tunedBuilder.build();
      DeadLetterQueue defaults = DeadLetterQueue.builder().bootstrapServers(bootstrap)
          .producerProperty("batch.size", "16384").producerProperty("linger.ms", "5")
          .producerProperty("compression.type", "none").producerProperty("buffer.memory", "33554432").build();
      run("warm-up (100,000)", tuned, ReplayRequest.of("orders-dlq").withGroup("warmup").withLimit(100_000L));
      // Alternating rounds, because other work on a shared machine comes and goes within a minute.
      List<Double> sluice = new ArrayList<>();
      List<Double> plain = new ArrayList<>();
      for (int round = 1; round <= rounds; round++) {
        sluice.add(run("sluice settings", tuned, ReplayRequest.of("orders-dlq").withGroup("tuned-" + round)));
        if (baseline) {
          plain.add(run("client defaults", defaults, ReplayRequest.of("orders-dlq").withGroup("defaults-" + round)));
        }
      }
      double best = Collections.max(sluice);
      System.out.printf(Locale.ROOT, "best of %d: %,.0f records/s; ratio to target (%,.0f records/s): %.2f%n", rounds,
          best, TARGET, best / TARGET);
      if (baseline) {
        System.out.printf(Locale.ROOT, "ratio to client defaults (best to best): %.2fx%n", best / Collections.max(plain));
      }
    }
  }

  private static double run(String label, DeadLetterQueue dlq, ReplayRequest request) {
    long t0 = System.nanoTime();
    ReplayResult result = dlq.replay(request, Progress.NONE);
    double seconds = (System.nanoTime() - t0) / 1e9;
    double rate = result.replayed() / seconds;
    System.out.printf(Locale.ROOT, "%-18s %,10d records in %6.1f s  %,9.0f records/s%n", label, result.replayed(),
        seconds, rate);
    return rate;
  }

  private static void fill(String bootstrap, int records) {
    String trace = "org.apache.kafka.connect.errors.DataException: Converting byte[] to Kafka Connect data failed due "
        + "to serialization error: \n\tat org.apache.kafka.connect.json.JsonConverter.toConnectData(JsonConverter.java:348)"
        + "\n\tat org.apache.kafka.connect.storage.Converter.toConnectData(Converter.java:98)"
        + "\n\tat org.apache.kafka.connect.runtime.WorkerSinkTask.lambda$convertAndTransformRecord$1(WorkerSinkTask.java:560)"
        + "\n\tat org.apache.kafka.connect.runtime.errors.RetryWithToleranceOperator.execAndRetry(RetryWithToleranceOperator.java:207)"
        + "\n\tat org.apache.kafka.connect.runtime.WorkerSinkTask.convertMessages(WorkerSinkTask.java:532)"
        + "\n\tat org.apache.kafka.connect.runtime.WorkerSinkTask.poll(WorkerSinkTask.java:358)";
    Map<String, Object> config = Map.of("bootstrap.servers", bootstrap, "compression.type", "lz4",
        "batch.size", 512 * 1024, "linger.ms", 20, "buffer.memory", 128L * 1024 * 1024);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(),
        new ByteArraySerializer())) {
      for (int i = 0; i < records; i++) {
        RecordHeaders h = new RecordHeaders();
        header(h, "topic", "orders");
        header(h, "partition", Integer.toString(i % 4));
        header(h, "offset", Integer.toString(i / 4));
        header(h, "connector.name", "orders-sink");
        header(h, "task.id", "0");
        header(h, "stage", "VALUE_CONVERTER");
        header(h, "class.name", "org.apache.kafka.connect.json.JsonConverter");
        header(h, "exception.class.name", "org.apache.kafka.connect.errors.DataException");
        header(h, "exception.message", "Converting byte[] to Kafka Connect data failed due to serialization error: ");
        header(h, "exception.stacktrace", trace);
        String key = "{\"id\":" + i + "}";
        String value = "{\"id\":" + i + ",\"customer\":\"customer-" + (i % 9973) + "\",\"item\":\"item-" + (i % 501)
            + "\",\"qty\":\"" + (i % 17) + ".5\",\"status\":\"NEW\",\"created_at\":\"2026-11-23T10:" + (i % 60)
            + ":00Z\"}";
        producer.send(new ProducerRecord<>("orders-dlq", 0, key.getBytes(StandardCharsets.UTF_8),
            value.getBytes(StandardCharsets.UTF_8), h));
      }
    }
  }

  private static void header(RecordHeaders h, String name, String value) {
    h.add("__connect.errors." + name, value.getBytes(StandardCharsets.UTF_8));
  }
}
