package io.sluice.exporter;

import io.sluice.source.Engine;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;
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

  /**
   * The probe for a connector class, or null when Sluice has none for it. It reads through the connection the
   * connector's config describes ({@link io.sluice.source.SourceConnection}).
   */
  static SourceRetention forClass(String connectorClass, Clock clock) {
    Engine engine = Engine.ofConnectorClass(connectorClass).orElse(null);
    if (engine == null) {
      return null;
    }
    return switch (engine) {
      case POSTGRESQL -> new PostgresSlot();
      case MYSQL, MARIADB -> new MySqlBinlog(clock);
      default -> null;
    };
  }

  /**
   * The reading of each connector, by name, given each one's config; every connector reaches the database through
   * {@code db} (the same server, and the same database where the engine's URL names one). One round trip where the
   * engine allows it.
   */
  Map<String, Reading> read(Connection db, Map<String, Map<String, String>> configs) throws SQLException;

  /** PostgreSQL: the slot's restart LSN against the current WAL position, and its {@code wal_status}. */
  final class PostgresSlot implements SourceRetention {
    /**
     * Every connector's slot and the server's {@code max_slot_wal_keep_size} in one statement: the settings row has
     * no slot name, each slot row no setting. The slots are the server's, whichever database the connection is on.
     */
    private static final String SLOTS = "SELECT NULL::text, NULL::bigint, NULL::text, setting::bigint, unit"
        + " FROM pg_settings WHERE name = 'max_slot_wal_keep_size'"
        + " UNION ALL SELECT slot_name::text, pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::bigint, wal_status,"
        + " NULL, NULL FROM pg_replication_slots WHERE slot_name::text = ANY(?)";

    @Override
    public Map<String, Reading> read(Connection db, Map<String, Map<String, String>> configs) throws SQLException {
      Map<String, String> slotOf = new HashMap<>();
      configs.forEach((connector, config) -> slotOf.put(connector, config.getOrDefault("slot.name", "debezium")));
      long maxKeepBytes = -1;
      Map<String, Long> retained = new HashMap<>();
      Map<String, String> walStatus = new HashMap<>();
      try (PreparedStatement s = db.prepareStatement(SLOTS)) {
        s.setArray(1, db.createArrayOf("text", new TreeSet<>(slotOf.values()).toArray()));
        try (ResultSet rs = s.executeQuery()) {
          while (rs.next()) {
            String slot = rs.getString(1);
            if (slot == null) {
              long v = rs.getLong(4);
              maxKeepBytes = v < 0 ? -1 : v * unitBytes(rs.getString(5));
            } else {
              retained.put(slot, rs.getLong(2));
              walStatus.put(slot, rs.getString(3));
            }
          }
        }
      }
      Map<String, Reading> out = new HashMap<>();
      for (Map.Entry<String, String> e : slotOf.entrySet()) {
        String slot = e.getValue();
        // No slot (yet, or dropped): nothing retained, and nothing to stream from.
        String status = walStatus.get(slot);
        out.put(e.getKey(), new PostgresReading(slot, Math.max(0, retained.getOrDefault(slot, 0L)),
            status == null ? "lost" : status, maxKeepBytes));
      }
      return out;
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

    MySqlBinlog(Clock clock) {
      this.clock = clock;
    }

    /** The server's logs are the same for every connector of it: read once, the same reading for each. */
    @Override
    public Map<String, Reading> read(Connection db, Map<String, Map<String, String>> configs) throws SQLException {
      if (configs.isEmpty()) {
        return Map.of();
      }
      Map<String, String> config = configs.values().iterator().next();
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
      Reading reading = new MySqlReading(age, retention);
      Map<String, Reading> out = new HashMap<>();
      configs.keySet().forEach(connector -> out.put(connector, reading));
      return out;
    }
  }
}
