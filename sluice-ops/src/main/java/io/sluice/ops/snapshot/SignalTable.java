package io.sluice.ops.snapshot;

import io.sluice.ops.offsets.SourceDatabase;
import io.sluice.source.Engine;
import io.sluice.source.SourceConnection;
import io.sluice.topics.KafkaCluster;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.EnumSet;
import java.util.Properties;
import java.util.Set;

/**
 * The table in the source database that Debezium's signal-based incremental snapshots write their watermarks to
 * ({@code signal.data.collection}), in the shape Debezium's documentation gives: {@code id}, {@code type},
 * {@code data}. Created only when the operator asks, with the connector's own credentials: many operators may only read
 * the source, and read-only incremental snapshots need no table.
 */
final class SignalTable {
  /** The engines whose DDL below Sluice knows to be right. */
  private static final Set<Engine> CREATES_IN = EnumSet.of(Engine.POSTGRESQL, Engine.MYSQL, Engine.MARIADB);

  private SignalTable() {}

  /** {@code debezium_signal} beside the first table asked for (its schema, or its database for MySQL/MariaDB). */
  static String defaultName(AdHocSnapshot.Source source, SnapshotRequest request) {
    String first = request.tables().get(0);
    String parent = first.substring(0, first.lastIndexOf('.'));
    return parent.replace("\\", "") + ".debezium_signal";
  }

  /** Creates {@code table} unless it exists; says what it did. */
  static String create(AdHocSnapshot.Source source, String table, KafkaCluster cluster, String secretsTopic) {
    if (!CREATES_IN.contains(source.engine())) {
      throw new AdHocSnapshot.Refused("Sluice creates signal tables in PostgreSQL, MySQL and MariaDB;"
          + " create it in " + source.engine() + " yourself and set signal.data.collection");
    }
    SourceConnection conn;
    try {
      conn = SourceConnection.of(source.engine(), source.config(), SourceDatabase.secrets(cluster, secretsTopic));
    } catch (SourceConnection.Incomplete e) {
      throw new AdHocSnapshot.Refused("cannot create signal table " + table + ": " + e.getMessage());
    }
    String url = conn.jdbcUrl();
    Properties p = conn.properties();
    String ddl = "CREATE TABLE IF NOT EXISTS " + table
        + " (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL)";
    try (Connection db = DriverManager.getConnection(url, p); Statement s = db.createStatement()) {
      s.execute(ddl);
    } catch (SQLException e) {
      throw new AdHocSnapshot.Refused("cannot create signal table " + table + " in " + url + " as "
          + conn.user() + ": " + e.getMessage() + " (with read access only, use --read-only instead)");
    }
    return "created signal table " + table + " in " + url + " (" + ddl + ")";
  }
}
