package io.sluice.connect.offsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The group offsets backup: the CSV standard tooling reads, its manifest, and what reading it back refuses. */
class GroupOffsetsBackupTest {
  @TempDir Path dir;

  @Test
  void writesTheCsvKafkaConsumerGroupsReadsAndReadsItBack() throws Exception {
    Clock clock = Clock.fixed(Instant.parse("2026-01-02T03:04:05.678Z"), ZoneOffset.UTC);
    Map<TopicPartition, Long> offsets = new LinkedHashMap<>();
    offsets.put(new TopicPartition("shop.orders", 1), 40L);
    offsets.put(new TopicPartition("shop.customers", 0), 7L);
    offsets.put(new TopicPartition("shop.orders", 0), 12L);
    Path file = new GroupOffsetsBackup(dir, clock).write("orders/sink", "cluster-1", "connect-orders-sink",
        "orders-sink", offsets);
    assertEquals("orders_sink-20260102T030405.678Z.csv", file.getFileName().toString());
    assertEquals(List.of("shop.customers,0,7", "shop.orders,0,12", "shop.orders,1,40"), Files.readAllLines(file));

    GroupOffsetsBackup.Backup back = GroupOffsetsBackup.read(file);
    assertEquals(offsets, back.offsets());
    assertEquals("connect-orders-sink", back.manifest().group());
    assertEquals("orders-sink", back.manifest().connector());
    assertEquals("cluster-1", back.manifest().clusterId());
    assertEquals(3, back.manifest().partitions());
    assertTrue(GroupOffsetsBackup.isGroupBackup(file));
  }

  @Test
  void aChangedFileOrALineThatIsNotTopicPartitionOffsetIsRefused() throws Exception {
    Path file = new GroupOffsetsBackup(dir, Clock.systemUTC()).write("g", null, "g", null,
        Map.of(new TopicPartition("t", 0), 5L));
    Files.writeString(file, "t,0,6\n");
    IllegalArgumentException changed = assertThrows(IllegalArgumentException.class, () -> GroupOffsetsBackup.read(file));
    assertTrue(changed.getMessage().contains("does not match its manifest's SHA-256"), changed.getMessage());

    Path bare = Files.writeString(dir.resolve("by-hand.csv"), "t,0,6\nt;1;7\n");
    IllegalArgumentException malformed = assertThrows(IllegalArgumentException.class,
        () -> GroupOffsetsBackup.read(bare));
    assertTrue(malformed.getMessage().contains("line 2 is not topic,partition,offset"), malformed.getMessage());

    Path handWritten = Files.writeString(dir.resolve("fine.csv"), "t,0,6\n\nt,1,7\n");
    GroupOffsetsBackup.Backup read = GroupOffsetsBackup.read(handWritten);
    assertNull(read.manifest());
    assertEquals(Map.of(new TopicPartition("t", 0), 6L, new TopicPartition("t", 1), 7L), read.offsets());
  }
}
