package io.sluice.ops.offsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The MySQL and SQL Server formats on records shaped exactly as Debezium writes them to {@code connect-offsets} (no
 * MySQL or SQL Server server runs in these tests), the PostgreSQL one where no server is needed, and the parsing of
 * targets.
 */
class OffsetFormatTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static ObjectNode json(String text) throws Exception {
    return (ObjectNode) JSON.readTree(text);
  }

  private static Map<String, String> shown(OffsetFormat f, JsonNode offset) {
    return f.describe(offset).stream().collect(Collectors.toMap(Field::name, Field::shown));
  }

  @Test
  void formatsAreChosenByConnectorClass() {
    assertEquals("PostgreSQL", OffsetFormat.forConnectorClass("io.debezium.connector.postgresql.PostgresConnector")
        .orElseThrow().database());
    assertEquals("MySQL", OffsetFormat.forConnectorClass("io.debezium.connector.mysql.MySqlConnector").orElseThrow()
        .database());
    assertEquals("MariaDB", OffsetFormat.forConnectorClass("io.debezium.connector.mariadb.MariaDbConnector").orElseThrow()
        .database());
    assertEquals("SQL Server", OffsetFormat.forConnectorClass("io.debezium.connector.sqlserver.SqlServerConnector")
        .orElseThrow().database());
    assertTrue(OffsetFormat.forConnectorClass("io.debezium.connector.jdbc.JdbcSinkConnector").isEmpty());
  }

  @Test
  void mysqlPositionsAreDecodedAndMovedWithEventAndRowReset() throws Exception {
    // As Debezium MySQL writes it in the middle of a transaction.
    ObjectNode stored = json("{\"transaction_id\":null,\"ts_sec\":1700000000,\"file\":\"mysql-bin.000003\","
        + "\"pos\":1542,\"row\":1,\"server_id\":223344,\"event\":2}");
    MySqlOffsets f = new MySqlOffsets();
    f.validate(stored);
    Map<String, String> s = shown(f, stored);
    assertEquals("\"mysql-bin.000003\"", s.get("file"));
    assertEquals("1542", s.get("pos"));
    assertEquals("2023-11-14T22:13:20Z (1700000000)", s.get("ts_sec"));
    assertEquals(List.of("file", "pos", "row", "event", "ts_sec", "server_id", "transaction_id"),
        f.describe(stored).stream().map(Field::name).toList());

    ObjectNode moved = f.moveTo(stored, Target.binlog("mysql-bin.000002", "4", null));
    assertEquals("mysql-bin.000002", moved.path("file").asText());
    assertEquals(4, moved.path("pos").asLong());
    assertEquals(0, moved.path("event").asLong());
    assertEquals(0, moved.path("row").asLong());
    assertEquals(223344, moved.path("server_id").asLong(), "fields the move does not concern stay");
    f.validate(moved);

    // Which change comes next is in the binary log, not in the position (MariaDbOffsetSurgeryTest reads it).
    IllegalArgumentException noSource = assertThrows(IllegalArgumentException.class, () -> f.skipOne(stored, null));
    assertTrue(noSource.getMessage().contains("needs read access to its binary log"), noSource.getMessage());
  }

  @Test
  void mysqlWithGtidsRefusesAMoveWithoutGtids() throws Exception {
    ObjectNode stored = json("{\"ts_sec\":1700000000,\"file\":\"mysql-bin.000003\",\"pos\":1542,"
        + "\"gtids\":\"3e11fa47-71ca-11e1-9e33-c80aa9429562:1-77\",\"server_id\":1}");
    MySqlOffsets f = new MySqlOffsets();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> f.moveTo(stored, Target.binlog("mysql-bin.000003", "4", null)));
    assertTrue(e.getMessage().contains("give --gtids as well"), e.getMessage());
    ObjectNode moved = f.moveTo(stored, Target.binlog("mysql-bin.000003", "4",
        "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-50"));
    assertEquals("3e11fa47-71ca-11e1-9e33-c80aa9429562:1-50", moved.path("gtids").asText());
  }

  @Test
  void sqlServerPositionsAreDecodedAndMoved() throws Exception {
    ObjectNode stored = json("{\"transaction_id\":null,\"event_serial_no\":2,"
        + "\"commit_lsn\":\"0000002d:00000a58:0003\",\"change_lsn\":\"0000002d:00000a40:0002\"}");
    SqlServerOffsets f = new SqlServerOffsets();
    f.validate(stored);
    assertEquals(List.of("change_lsn", "commit_lsn", "event_serial_no", "transaction_id"),
        f.describe(stored).stream().map(Field::name).toList());
    ObjectNode moved = f.moveTo(stored, Target.changeLsn("0000002C:00000100:0001", "0000002c:00000120:0004"));
    assertEquals("0000002c:00000100:0001", moved.path("change_lsn").asText());
    assertEquals("0000002c:00000120:0004", moved.path("commit_lsn").asText());
    assertEquals(0, moved.path("event_serial_no").asLong());
    assertEquals(3, f.skipOne(stored, null).path("event_serial_no").asLong());
    assertThrows(IllegalArgumentException.class, () -> f.moveTo(stored, Target.lsn("0/16B3748")));
  }

  @Test
  void wrongTypesInAPositionAreRefused() throws Exception {
    PostgresOffsets pg = new PostgresOffsets();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> pg.validate(json("{\"lsn\":\"0/16B3748\",\"ts_usec\":1}")));
    assertTrue(e.getMessage().contains("wrong type for 'lsn'"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> pg.validate(json("{\"lsn\":1,\"ts_usec\":1.5}")));
    pg.validate(json("{\"lsn\":1,\"txId\":null,\"ts_usec\":1}"));
    assertThrows(IllegalArgumentException.class,
        () -> new MySqlOffsets().validate(json("{\"file\":\"mysql-bin.000001\",\"pos\":\"4\"}")));
    assertThrows(IllegalArgumentException.class,
        () -> new SqlServerOffsets().validate(json("{\"commit_lsn\":\"not-an-lsn\"}")));
  }

  @Test
  void postgresMoveSetsAllThreeLsnsAndDropsSnapshotMarkers() throws Exception {
    ObjectNode stored = json("{\"last_snapshot_record\":true,\"lsn\":30516976,\"txId\":744,\"ts_usec\":1,"
        + "\"snapshot\":true}");
    ObjectNode moved = new PostgresOffsets().moveTo(stored, Target.lsn("0/1D1A000"));
    for (String f : List.of("lsn", "lsn_proc", "lsn_commit")) {
      assertEquals(0x1D1A000L, moved.path(f).asLong(), f);
    }
    assertFalse(moved.has("snapshot") || moved.has("last_snapshot_record"));
    assertEquals(744, moved.path("txId").asLong());
  }

  @Test
  void targetsParseTheFormsOperatorsCopy() {
    assertEquals(0x16B3748L, Target.lsn("0/16B3748").value());
    assertEquals((0x16L << 32) | 0xB374D848L, Target.lsn("16/B374D848").value());
    assertEquals(23806792L, Target.lsn("23806792").value());
    assertEquals("16/B374D848", PostgresOffsets.hex(Target.lsn("16/B374D848").value()));
    for (String bad : List.of("", "abc", "1/", "-5", "0/123456789", "99999999999999999999")) {
      assertThrows(IllegalArgumentException.class, () -> Target.lsn(bad), bad);
    }
    assertThrows(IllegalArgumentException.class, () -> Target.binlog("mysql-bin", "4", null));
    assertThrows(IllegalArgumentException.class, () -> Target.binlog("mysql-bin.000001", "x", null));
    assertThrows(IllegalArgumentException.class, () -> Target.binlog("mysql-bin.000001", "3", null));
    assertThrows(IllegalArgumentException.class, () -> Target.binlog("mysql-bin.000001", "4", "nonsense"));
    assertEquals("0-1-42", Target.binlog("mysql-bin.000001", "4", "0-1-42").gtids());
    assertThrows(IllegalArgumentException.class, () -> Target.changeLsn("2d:a58:3", "0000002d:00000a58:0003"));
  }

  @Test
  void theNextChangeIsFoundAsDebeziumResumes() {
    // Two transactions after the stored position: B/I/C at 100..120, B/I/I/C at 120..230 (a BEGIN shares the LSN of
    // the first change, and the previous commit's end LSN can be the next transaction's first LSN).
    List<PostgresWal.Message> wal = List.of(
        new PostgresWal.Message(100, 7, 'B'), new PostgresWal.Message(100, 7, 'I'), new PostgresWal.Message(120, 7, 'C'),
        new PostgresWal.Message(120, 8, 'B'), new PostgresWal.Message(120, 8, 'I'), new PostgresWal.Message(210, 8, 'U'),
        new PostgresWal.Message(230, 8, 'C'));
    // Stored between transactions, after commit 90: the next change is the insert at 100.
    PostgresWal.Message next = PostgresWal.nextChange(wal, 90L, 90L, "COMMIT", 0);
    assertEquals(100, next.lsn());
    assertEquals("INSERT", next.operation());
    // After the first transaction's commit (LSN 120, shared with the next BEGIN and insert): the insert at 120.
    PostgresWal.Message second = PostgresWal.nextChange(wal, 120L, 120L, "COMMIT", 0);
    assertEquals(wal.get(4), second);
    assertEquals(2, PostgresWal.eventsAtLsnThrough(wal, second), "BEGIN and the insert share LSN 120");
    assertEquals(120, PostgresWal.lastCommitBefore(wal, second, 90));
    assertTrue(PostgresWal.moreChangesInTransaction(wal, second));
    assertEquals(230, PostgresWal.commitOf(wal, second).lsn());
    // In the middle of the second transaction, its insert processed: the update at 210.
    assertEquals(210, PostgresWal.nextChange(wal, 120L, 120L, "INSERT", 2).lsn());
    assertFalse(PostgresWal.moreChangesInTransaction(wal, wal.get(5)));
    // Nothing after the last commit.
    assertEquals(null, PostgresWal.nextChange(wal, 230L, 230L, "COMMIT", 0));
  }
}
