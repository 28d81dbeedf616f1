package io.sluice.exporter;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How much change log a source database keeps for a connector, read with the connector's own connection settings.
 * One implementation per database engine.
 */
sealed interface SourceRetention permits SourceRetention.PostgresSlot, SourceRetention.MySqlBinlog {

  /** A reading; which one depends on the engine. */
  sealed interface Reading permits PostgresReading, MySqlReading {}

  /** WAL kept for the connector's replication slot; {@code maxKeepBytes} is -1 when unlimited. */
  record PostgresReading(String slot, long retainedBytes, String walStatus, long maxKeepBytes) implements Reading {}

  /** Age of the oldest binary log the server still has, and how long it keeps them. */
  record MySqlReading(double oldestAgeSeconds, double retentionSeconds) implements Reading {}

  /** The probe for a connector class, or null when Sluice has none for it. */
  static SourceRetention forClass(String connectorClass, Clock clock) {
    return switch (connectorClass) {
      case "io.debezium.connector.postgresql.PostgresConnector" -> new PostgresSlot();
      case "io.debezium.connector.mysql.MySqlConnector" -> new MySqlBinlog(clock, "mysql");
      // The MariaDB plugin carries MariaDB's driver only, which takes its own URL scheme.
      case "io.debezium.connector.mariadb.MariaDbConnector" -> new MySqlBinlog(clock, "mariadb");
      default -> null;
    };
  }

  /** The JDBC URL for the connector's {@code database.*} settings. */
  String jdbcUrl(Map<String, String> config);

  Reading read(Connection db, Map<String, String> config) throws SQLException;

  /** PostgreSQL: the slot's restart LSN against the current WAL position, and its {@code wal_status}. */
  final class PostgresSlot implements SourceRetention {
    @Override
    public String jdbcUrl(Map<String, String> c) {
      return "jdbc:postgresql://" + c.getOrDefault("database.hostname", "localhost") + ":"
          + c.getOrDefault("database.port", "5432") + "/" + c.getOrDefault("database.dbname", "postgres");
    }

    @Override
    public Reading read(Connection db, Map<String, String> config) throws SQLException {
      String slot = config.getOrDefault("slot.name", "debezium");
      long retained = -1;
      String walStatus = "lost";
      try (PreparedStatement s = db.prepareStatement("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)"
          + "::bigint, wal_status FROM pg_replication_slots WHERE slot_name = ?")) {
        s.setString(1, slot);
        try (ResultSet rs = s.executeQuery()) {
          if (!rs.next()) {
            // No slot (yet, or dropped): nothing retained, and nothing to stream from.
            return new PostgresReading(slot, 0, "lost", maxKeepBytes(db));
          }
          retained = rs.getLong(1);
          walStatus = rs.getString(2);
        }
      }
      return new PostgresReading(slot, Math.max(0, retained), walStatus == null ? "lost" : walStatus,
          maxKeepBytes(db));
    }

    private static long maxKeepBytes(Connection db) throws SQLException {
      try (Statement s = db.createStatement();
          ResultSet rs = s.executeQuery("SELECT setting::bigint, unit FROM pg_settings"
              + " WHERE name = 'max_slot_wal_keep_size'")) {
        if (!rs.next()) {
          return -1;
        }
        long v = rs.getLong(1);
        return v < 0 ? -1 : v * unitBytes(rs.getString(2));
      }
    }

    private static long unitBytes(String unit) {
      return switch (unit == null ? "" : unit) {
        case "kB" -> 1024L;
        case "MB" -> 1024L * 1024;
        case "GB" -> 1024L * 1024 * 1024;
        case "8kB" -> 8 * 1024L;
        default -> 1;
      };
    }
  }

  /**
   * MySQL: {@code binlog_expire_logs_seconds} (or {@code expire_logs_days}) for retention. MySQL keeps no creation
   * time for a binary log that SQL can read, so the oldest log's age is measured from when this exporter first saw that
   * file as the oldest: after an exporter restart the age starts again from 0 and so errs on the young side.
   */
  final class MySqlBinlog implements SourceRetention {
    private final Clock clock;
    private final Map<String, Long> firstSeenMs = new ConcurrentHashMap<>();
    private final String scheme;

    MySqlBinlog(Clock clock, String scheme) {
      this.clock = clock;
      this.scheme = scheme;
    }

    @Override
    public String jdbcUrl(Map<String, String> c) {
      return "jdbc:" + scheme + "://" + c.getOrDefault("database.hostname", "localhost") + ":"
          + c.getOrDefault("database.port", "3306") + "/";
    }

    @Override
    public Reading read(Connection db, Map<String, String> config) throws SQLException {
      String oldest = null;
      try (Statement s = db.createStatement(); ResultSet rs = s.executeQuery("SHOW BINARY LOGS")) {
        if (rs.next()) {
          oldest = rs.getString(1);
        }
      }
      double retention;
      try (Statement s = db.createStatement();
          ResultSet rs = s.executeQuery("SELECT @@GLOBAL.binlog_expire_logs_seconds")) {
        retention = rs.next() ? rs.getDouble(1) : 0;
      } catch (SQLException e) {
        // MySQL 5.7 and MariaDB have only the day setting.
        try (Statement s = db.createStatement(); ResultSet rs = s.executeQuery("SELECT @@GLOBAL.expire_logs_days")) {
          retention = rs.next() ? rs.getDouble(1) * 86_400 : 0;
        }
      }
      long now = clock.millis();
      double age = 0;
      if (oldest != null) {
        String key = config.getOrDefault("database.hostname", "") + ":" + config.getOrDefault("database.port", "")
            + "/" + oldest;
        age = (now - firstSeenMs.computeIfAbsent(key, k -> now)) / 1000.0;
      }
      return new MySqlReading(age, retention);
    }
  }
}
