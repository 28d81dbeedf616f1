package io.sluice.ops.snapshot;

import io.sluice.ops.offsets.SourceDatabase;
import io.sluice.topics.KafkaCluster;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/**
 * The table in the source database that Debezium's signal-based incremental snapshots write their watermarks to
 * ({@code signal.data.collection}), in the shape Debezium's documentation gives: {@code id}, {@code type},
 * {@code data}. Created only when the operator asks, with the connector's own credentials: many operators may only read
 * the source, and read-only incremental snapshots need no table.
 */
final class SignalTable {
  private SignalTable() {}

  /** {@code debezium_signal} beside the first table asked for (its schema, or its database for MySQL/MariaDB). */
  static String defaultName(AdHocSnapshot.Source source, SnapshotRequest request) {
    String first = request.tables().get(0);
    String parent = first.substring(0, first.lastIndexOf('.'));
    return parent.replace("\\", "") + ".debezium_signal";
  }

  /** Creates {@code table} unless it exists; says what it did. */
  static String create(AdHocSnapshot.Source source, String table, KafkaCluster cluster, String secretsTopic) {
    var c = source.config();
    String host = c.getOrDefault("database.hostname", "127.0.0.1");
    String url = switch (source.engine()) {
      case "Postgres" -> "jdbc:postgresql://" + host + ":" + c.getOrDefault("database.port", "5432") + "/"
          + c.getOrDefault("database.dbname", "postgres");
      case "MySql" -> "jdbc:mysql://" + host + ":" + c.getOrDefault("database.port", "3306") + "/";
      case "MariaDb" -> "jdbc:mariadb://" + host + ":" + c.getOrDefault("database.port", "3306") + "/";
      default -> throw new AdHocSnapshot.Refused("Sluice creates signal tables in PostgreSQL, MySQL and MariaDB;"
          + " create it in " + source.engine() + " yourself and set signal.data.collection");
    };
    Properties p = new Properties();
    if (c.get("database.user") != null) {
      p.setProperty("user", c.get("database.user"));
    }
    String password = SourceDatabase.resolve(c.get("database.password"), cluster, secretsTopic);
    if (password != null) {
      p.setProperty("password", password);
    }
    String ddl = "CREATE TABLE IF NOT EXISTS " + table
        + " (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL)";
    try (Connection db = DriverManager.getConnection(url, p); Statement s = db.createStatement()) {
      s.execute(ddl);
    } catch (SQLException e) {
      throw new AdHocSnapshot.Refused("cannot create signal table " + table + " in " + url + " as "
          + c.get("database.user") + ": " + e.getMessage() + " (with read access only, use --read-only instead)");
    }
    return "created signal table " + table + " in " + url + " (" + ddl + ")";
  }
}
