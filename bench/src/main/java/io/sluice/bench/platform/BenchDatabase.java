package io.sluice.bench.platform;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** The PostgreSQL a benchmark reads from and writes to: embedded, logical replication on, one database per run. */
final class BenchDatabase implements AutoCloseable {
  private final EmbeddedPostgres pg;

  BenchDatabase() throws IOException {
    this(16);
  }

  /** With room for {@code slots} replication slots and as many WAL senders, each source one of each. */
  BenchDatabase(int slots) throws IOException {
    pg = EmbeddedPostgres.builder()
        .setServerConfig("wal_level", "logical")
        .setServerConfig("max_replication_slots", String.valueOf(slots))
        .setServerConfig("max_wal_senders", String.valueOf(slots))
        // Per pipeline: the source's replication and metadata connections, the exporter's retention probe, and the
        // JDBC sink's connection pool (Debezium's default keeps at least 5 open and grows it under load: 9 a pipeline
        // ran out at 248 of FleetBenchmark's 250).
        .setServerConfig("max_connections", String.valueOf(Math.max(100, slots * 16 + 100)))
        .setServerConfig("synchronous_commit", "off")
        .start();
  }

  int port() {
    return pg.getPort();
  }

  String url(String db) {
    return "jdbc:postgresql://127.0.0.1:" + port() + "/" + db;
  }

  /** A Debezium PostgreSQL source reading {@code db}, with its topics under {@code prefix}. */
  java.util.Map<String, String> sourceConfig(String db, String prefix) {
    java.util.Map<String, String> c = new java.util.HashMap<>();
    c.put("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
    c.put("plugin.name", "pgoutput");
    c.put("database.hostname", "127.0.0.1");
    c.put("database.port", String.valueOf(port()));
    c.put("database.user", "postgres");
    c.put("database.password", "postgres");
    c.put("database.dbname", db);
    c.put("topic.prefix", prefix);
    c.put("slot.name", "slot_" + prefix);
    return c;
  }

  void createDatabase(String db) throws SQLException {
    execute("postgres", "CREATE DATABASE " + db);
  }

  void execute(String db, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url(db), "postgres", "postgres"); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  long count(String db, String table) throws SQLException {
    try (Connection c = DriverManager.getConnection(url(db), "postgres", "postgres"); Statement s = c.createStatement()) {
      ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table);
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      if ("42P01".equals(e.getSQLState())) {
        return 0;
      }
      throw e;
    }
  }

  @Override
  public void close() throws IOException {
    pg.close();
  }
}
