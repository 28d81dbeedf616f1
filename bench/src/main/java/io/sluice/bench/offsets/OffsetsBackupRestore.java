package io.sluice.bench.offsets;

import io.sluice.connect.ConnectRuntime;
import io.sluice.connect.offsets.OffsetBackup;
import io.sluice.kafka.EmbeddedKafka;
import io.sluice.kafka.ExitControl;
import io.sluice.ops.offsets.OffsetSurgery;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * {@code sluice offsets backup} and {@code restore} of a {@code connect-offsets} topic holding 100,000 records over
 * 1,000 connectors (100 partitions each, SQL-Server-shaped keys), against an embedded broker and a Connect worker
 * that created the topic as it does in production (25 partitions, compacted). Baseline: the hand procedure's tools
 * in the same process and minute, a plain consumer reading the topic to its end (what {@code kcat -C -K '\t' -e}
 * does) and a plain producer writing the records back (what {@code kcat -P -K '\t'} does), with none of the checks.
 *
 * <p>Run: {@code bench/run io.sluice.bench.offsets.OffsetsBackupRestore [connectors] [partitionsPerConnector]}.
 */
public final class OffsetsBackupRestore {
  public static void main(String[] args) throws Exception {
    int connectors = args.length > 0 ? Integer.parseInt(args[0]) : 1_000;
    int perConnector = args.length > 1 ? Integer.parseInt(args[1]) : 100;
    int total = connectors * perConnector;
    ExitControl.install((code, message) -> { });
    Path dir = Files.createTempDirectory("sluice-offsets-bench");
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().dataDir(dir.resolve("kafka")).port(0).start();
        ConnectRuntime worker = ConnectRuntime.builder().bootstrapServers(kafka.bootstrapServers()).restPort(freePort())
            .pluginPath(Path.of(System.getProperty("sluice.plugin.path", dir.resolve("plugins").toString())))
            .dataDir(dir.resolve("data")).start()) {
      String bootstrap = kafka.bootstrapServers();
      List<String[]> records = new ArrayList<>(total);
      for (int c = 0; c < connectors; c++) {
        for (int p = 0; p < perConnector; p++) {
          records.add(new String[] {
              "[\"source-" + c + "\",{\"server\":\"server" + c + "\",\"database\":\"db" + p + "\"}]",
              "{\"transaction_id\":null,\"event_serial_no\":1,\"commit_lsn\":\"0000002d:0000" + String.format(
                  Locale.ROOT, "%04x", p) + ":0003\",\"change_lsn\":\"0000002d:00000a40:0002\"}"});
        }
      }
      long seed = produce(bootstrap, records);
      System.out.printf(Locale.ROOT, "seeded %,d records over %,d connectors in %.2f s%n", total, connectors,
          seed / 1e9);

      OffsetSurgery surgery = OffsetSurgery.builder().bootstrapServers(bootstrap).connectUrl(worker.restUrl())
          .backupDir(dir.resolve("backups")).readTimeout(Duration.ofMinutes(2)).verifyTimeout(Duration.ofMinutes(2))
          .build();
      for (int run = 1; run <= 2; run++) {
        long rawRead = rawRead(bootstrap);
        long t0 = System.nanoTime();
        OffsetSurgery.BackupReport backup = surgery.backup(null, null, Duration.ofMinutes(2));
        long backupNanos = System.nanoTime() - t0;
        if (backup.manifest().records() != total) {
          throw new IllegalStateException("backup holds " + backup.manifest().records() + " records, not " + total);
        }
        List<String[]> lines = new ArrayList<>();
        OffsetBackup.read(backup.file()).records().forEach(r -> lines.add(new String[] {r.key(), r.value()}));
        long rawWrite = produce(bootstrap, lines);
        t0 = System.nanoTime();
        OffsetSurgery.RestoreReport restore = surgery.restore(backup.file(), null, false);
        long restoreNanos = System.nanoTime() - t0;
        System.out.printf(Locale.ROOT, "run %d%n", run);
        report("backup", total, backupNanos, rawRead, "plain consumer to end");
        report("restore (safety backup, write, verify)", total, restoreNanos, rawWrite, "plain producer");
        System.out.printf(Locale.ROOT, "  restore estimate before it started: %.1f s; budget 300 s: restore used %.1f%%"
            + " of it (%.0fx inside)%n", restore.estimate().total().toMillis() / 1000.0,
            restoreNanos / 1e9 / 300 * 100, 300 / (restoreNanos / 1e9));
      }
    }
  }

  private static void report(String what, int records, long nanos, long baselineNanos, String baseline) {
    System.out.printf(Locale.ROOT, "  %-40s %,10.0f records/s  %6.2f s   (%s: %.2f s, %.2fx its time)%n", what,
        records / (nanos / 1e9), nanos / 1e9, baseline, baselineNanos / 1e9, (double) nanos / baselineNanos);
  }

  private static long produce(String bootstrap, List<String[]> records) throws Exception {
    long t0 = System.nanoTime();
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers", bootstrap,
        "acks", "all", "linger.ms", "5", "batch.size", "524288"), new ByteArraySerializer(), new ByteArraySerializer())) {
      List<Future<RecordMetadata>> sent = new ArrayList<>(records.size());
      for (String[] r : records) {
        sent.add(producer.send(new ProducerRecord<>(ConnectRuntime.OFFSETS_TOPIC, r[0].getBytes(StandardCharsets.UTF_8),
            r[1] == null ? null : r[1].getBytes(StandardCharsets.UTF_8))));
      }
      for (Future<RecordMetadata> f : sent) {
        f.get();
      }
    }
    return System.nanoTime() - t0;
  }

  private static long rawRead(String bootstrap) {
    long t0 = System.nanoTime();
    long n = 0;
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of("bootstrap.servers", bootstrap,
        "enable.auto.commit", "false"), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts = consumer.partitionsFor(ConnectRuntime.OFFSETS_TOPIC).stream()
          .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
      Map<TopicPartition, Long> end = consumer.endOffsets(parts);
      while (end.entrySet().stream().anyMatch(e -> consumer.position(e.getKey()) < e.getValue())) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          n += r.serializedKeySize() > 0 ? 1 : 0;
        }
      }
    }
    if (n == 0) {
      throw new IllegalStateException("nothing read");
    }
    return System.nanoTime() - t0;
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
