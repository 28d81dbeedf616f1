package io.sluice.connect.offsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.kafka.testing.CheckedSends;
import io.sluice.kafka.testing.SharedKafka;
import io.sluice.testing.RetainedHeap;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reading Connect's offsets topic and its backups holds one record per key, however long the history the topic
 * still keeps (a compacted topic keeps its active segment's history, for up to {@code segment.ms}: a week by
 * default). On the shared broker.
 */
class OffsetsTopicTest {
  @TempDir Path dir;

  private static String key(int connector, int partition) {
    return "[\"c" + connector + "\",{\"server\":\"s" + partition + "\"}]";
  }

  @Test
  void aSnapshotOfALongHistoryHoldsTheLatestRecordPerKeyOnly() throws Exception {
    String topic = SharedKafka.unique("offsets-history");
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", SharedKafka.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
    }
    // 20 keys (2 connectors × 10 source partitions), 400,000 positions of 300 bytes each: a long-lived history.
    int records = 400_000;
    String pad = "p".repeat(250);
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(
        Map.of("bootstrap.servers", SharedKafka.bootstrapServers(), "linger.ms", "20"), new StringSerializer(),
        new StringSerializer());
        CheckedSends<String, String> sends = CheckedSends.through(producer)) {
      for (int i = 0; i < records; i++) {
        sends.send(new ProducerRecord<>(topic, key(i % 2, (i / 2) % 10), "{\"lsn\":" + i + ",\"pad\":\"" + pad
            + "\"}"));
      }
      sends.send(new ProducerRecord<>(topic, key(1, 9), null));
    }
    OffsetsTopic offsets = new OffsetsTopic(SharedKafka.bootstrapServers(), topic);
    long before = RetainedHeap.bytes();
    long[] during = {-1};
    OffsetsSnapshot snapshot = offsets.snapshot(Duration.ofMinutes(2), (done, total) -> {
      if (during[0] < 0 && done >= total * 8 / 10) {
        during[0] = RetainedHeap.bytes();
      }
    });
    long grown = during[0] - before;
    System.out.printf("offsets snapshot: heap retained before %,d bytes, at 80%% of %,d records %,d (%+,d)%n",
        before, records, during[0], grown);
    // The history as records (key, value and their strings) retains about 190 MB; the read's own fetches (16 MB a
    // partition, TopicScan's setting) and one poll of records are what stays.
    assertTrue(grown < 48L << 20, "the heap grew by " + grown + " bytes over " + records + " records of 20 keys");
    assertEquals(20, snapshot.records().size());
    assertEquals(1, snapshot.tombstones());
    assertEquals("{\"lsn\":" + (records - 3) + ",\"pad\":\"" + pad + "\"}", // the last of c1, s8
        snapshot.records().stream().filter(r -> r.key().equals(key(1, 8))).findFirst().orElseThrow().value());
    assertEquals(10, offsets.latestFor("c0", Duration.ofMinutes(2)).size());
    assertEquals(snapshot.records(), offsets.latest(Duration.ofMinutes(2)));

    Path file = new OffsetBackup(dir, Clock.systemUTC()).write(null, snapshot);
    OffsetBackup.Backup back = OffsetBackup.read(file);
    assertEquals(snapshot.records().stream().map(OffsetRecord::toTsvLine).toList(),
        back.records().stream().map(OffsetRecord::toTsvLine).toList());
    assertEquals(20, back.manifest().records());
  }

  @Test
  void aBackupFileOfAWholeHistoryReadsAsItsLatestLinePerKey() throws Exception {
    Path file = dir.resolve("history.tsv");
    Files.writeString(file, key(0, 0) + "\t{\"lsn\":1}\n" + key(0, 1) + "\t{\"lsn\":2}\n"
        + key(0, 0) + "\t{\"lsn\":3}\n" + key(0, 1) + "\t\n", StandardCharsets.UTF_8);
    OffsetBackup.Backup backup = OffsetBackup.read(file);
    assertEquals(List.of(new OffsetRecord(key(0, 0), "{\"lsn\":3}", -1, -1), new OffsetRecord(key(0, 1), null, -1,
        -1)), backup.records(), "what producing the lines back leaves: the last line of each key");

    Path written = new OffsetBackup(dir, Clock.systemUTC()).write(dir.resolve("b.tsv"), null,
        new OffsetsSnapshot("cluster", "connect-offsets", Map.of(0, 4L), backup.records()));
    Files.writeString(written, "not a backup line\n", StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.APPEND);
    IllegalArgumentException changed = assertThrows(IllegalArgumentException.class, () -> OffsetBackup.read(written));
    assertTrue(changed.getMessage().contains("does not match its manifest's SHA-256"), changed.getMessage());
    Files.delete(OffsetBackup.manifestOf(written));
    IllegalArgumentException malformed = assertThrows(IllegalArgumentException.class,
        () -> OffsetBackup.read(written));
    assertEquals(written + " line 3 is not key<TAB>value", malformed.getMessage());
  }
}
