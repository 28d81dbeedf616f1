package io.sluice.ops.offsets;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.connect.testing.BinlogMariaDb;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MySQL retention check against a real server: Debian's MariaDB, started by the test with binary logging on. The
 * test fails under CI and is skipped elsewhere, saying so, where {@code mariadbd} is not installed.
 */
class MySqlRetentionTest {
  @TempDir static Path dir;
  private static BinlogMariaDb db;

  @BeforeAll
  static void start() throws Exception {
    db = BinlogMariaDb.start(dir, "MySQL retention check against a server");
  }

  @AfterAll
  static void stop() throws Exception {
    if (db != null) {
      db.close();
    }
  }

  private static RetentionCheck.Verdict check(String file) {
    ObjectNode config = new ObjectMapper().createObjectNode().put("database.hostname", "127.0.0.1")
        .put("database.port", String.valueOf(db.port())).put("database.user", "root");
    SourceDatabase source = SourceDatabase.from(new MySqlOffsets(), config, SourceDatabase.Overrides.NONE, io.sluice.topics.KafkaCluster.of("unused"), "unused");
    ObjectNode position = new ObjectMapper().createObjectNode().put("file", file).put("pos", 4);
    return RetentionCheck.forSource(new MySqlOffsets(), source).check(position);
  }

  @Test
  void aPurgedBinlogFileIsNotRetained() throws Exception {
    RetentionCheck.Verdict first = check("mysql-bin.000001");
    assertTrue(first.retained(), first.explanation());
    db.execute("FLUSH BINARY LOGS");
    db.purgeTo("mysql-bin.000002");
    RetentionCheck.Verdict purged = check("mysql-bin.000001");
    assertFalse(purged.retained());
    assertTrue(purged.explanation().contains("binlog file mysql-bin.000001 is no longer on the server")
        && purged.explanation().contains("mysql-bin.000002") && purged.explanation().contains("snapshot"),
        purged.explanation());
    assertTrue(check("mysql-bin.000002").retained());
  }
}
