package io.sluice.ops.reconcile;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.UUID;

/** Ten-column tables of every canonicalised type, filled with the same deterministic rows on either engine. */
final class TestTables {
  private TestTables() {}

  static Connection connect(String url) throws SQLException {
    Connection c = url.startsWith("jdbc:postgresql:")
        ? DriverManager.getConnection(url, "postgres", "postgres") : DriverManager.getConnection(url);
    if (url.startsWith("jdbc:mariadb:")) {
      try (Statement s = c.createStatement()) {
        s.execute("SET time_zone = '+00:00'");
      }
    }
    return c;
  }

  static void execute(String url, String... sql) throws SQLException {
    try (Connection c = connect(url); Statement s = c.createStatement()) {
      for (String q : sql) {
        s.execute(q);
      }
    }
  }

  /** {@code items}: integer key and one column of each type; {@code seenDigits} is the timestamp precision. */
  static void createItems(String url, String table, int seenDigits) throws SQLException {
    if (url.startsWith("jdbc:postgresql:")) {
      execute(url, "CREATE TABLE " + table + " (id bigint PRIMARY KEY, name text, amount numeric(12,2),"
          + " ratio double precision, flag boolean, born date, seen timestamp(" + seenDigits + "),"
          + " at timestamptz, payload bytea, ref uuid)");
    } else {
      execute(url, "CREATE TABLE " + table + " (id bigint PRIMARY KEY, name varchar(200), amount decimal(12,2),"
          + " ratio double, flag boolean, born date, seen datetime(" + seenDigits + "), at timestamp(6) NULL,"
          + " payload varbinary(64), ref uuid) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci");
    }
  }

  /** Rows {@code from..to-1}, each value a function of the id (every tenth row has NULLs). */
  static void fillItems(String url, String table, long from, long to) throws SQLException {
    boolean pg = url.startsWith("jdbc:postgresql:");
    try (Connection c = connect(url)) {
      c.setAutoCommit(false);
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table
          + " (id, name, amount, ratio, flag, born, seen, at, payload, ref) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
        int batch = 0;
        for (long i = from; i < to; i++) {
          boolean nulls = i % 10 == 9;
          ps.setLong(1, i);
          ps.setString(2, nulls ? null : "name " + i + (i % 3 == 0 ? " Ünïcødé ✓" : ""));
          ps.setBigDecimal(3, nulls ? null : BigDecimal.valueOf(i * 137 % 100_000, 2).negate().add(BigDecimal.valueOf(i)));
          if (nulls) {
            ps.setNull(4, java.sql.Types.DOUBLE);
            ps.setNull(5, java.sql.Types.BOOLEAN);
          } else {
            ps.setDouble(4, i / 7.0);
            ps.setBoolean(5, i % 2 == 0);
          }
          ps.setObject(6, nulls ? null : LocalDate.of(2020, 1, 1).plusDays(i % 2000));
          LocalDateTime seen = seen(i);
          ps.setObject(7, nulls ? null : seen);
          if (pg) {
            ps.setObject(8, nulls ? null : seen.atOffset(ZoneOffset.UTC).plusHours(3));
          } else {
            ps.setObject(8, nulls ? null : seen.plusHours(3));
          }
          ps.setBytes(9, nulls ? null : ("p" + i).getBytes(StandardCharsets.UTF_8));
          UUID ref = new UUID(i * 0x9E3779B97F4A7C15L, i);
          if (pg) {
            ps.setObject(10, ref);
          } else {
            ps.setString(10, ref.toString());
          }
          ps.addBatch();
          if (++batch % 1000 == 0) {
            ps.executeBatch();
          }
        }
        ps.executeBatch();
      }
      c.commit();
    }
  }

  /** A timestamp with microseconds that PostgreSQL rounds and MariaDB truncates differently at 3 digits. */
  static LocalDateTime seen(long i) {
    return LocalDateTime.of(2024, 1, 1, 0, 0).plusSeconds(i * 61).plusNanos((i * 7919 % 1_000_000) * 1000);
  }

  static void copyTable(String url, String from, String to) throws SQLException {
    execute(url, "INSERT INTO " + to + " SELECT * FROM " + from);
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
