package io.sluice.app.demo;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The demo's two PostgreSQL servers, from the binaries Maven brought (nothing installed): the shop (source, logical
 * replication on) and its copy (the sink's target). Their data lives under the data directory, so a second demo
 * reuses it.
 */
final class ShopDatabases implements AutoCloseable {
  static final String USER = "postgres";
  static final String SOURCE_DB = "shop";
  static final String SINK_DB = "shop_copy";
  static final List<String> TABLES = List.of("customers", "orders", "order_lines");

  private final EmbeddedPostgres source;
  private final Path sinkData;
  private final int sinkPort;
  private volatile EmbeddedPostgres sink;

  private ShopDatabases(EmbeddedPostgres source, EmbeddedPostgres sink, Path sinkData) {
    this.source = source;
    this.sink = sink;
    this.sinkData = sinkData;
    this.sinkPort = sink.getPort();
  }

  static ShopDatabases start(Path dir, int sourcePort, int sinkPort) throws IOException {
    EmbeddedPostgres source = server(dir.resolve("source-pg"), sourcePort, true);
    try {
      EmbeddedPostgres sink = server(dir.resolve("sink-pg"), sinkPort, false);
      ShopDatabases dbs = new ShopDatabases(source, sink, dir.resolve("sink-pg"));
      dbs.createSchema();
      return dbs;
    } catch (IOException | RuntimeException e) {
      source.close();
      throw e;
    }
  }

  private static EmbeddedPostgres server(Path data, int port, boolean logical) throws IOException {
    Files.createDirectories(data);
    // The demo stops the servers itself, after removing its connectors and slot: no hook of the library's racing it.
    ProcessBuilder.Redirect log = ProcessBuilder.Redirect.appendTo(data.resolveSibling(data.getFileName() + ".log")
        .toFile());
    EmbeddedPostgres.Builder b = EmbeddedPostgres.builder().setDataDirectory(data).setCleanDataDirectory(false)
        .setPort(port).setServerConfig("max_connections", "50").setRegisterShutdownHook(false)
        .setOutputRedirector(log).setErrorRedirector(log);
    if (logical) {
      // The embedded server commits asynchronously (synchronous_commit=off), and a change reaches the replication
      // slot only once its WAL is flushed: by the WAL writer, every wal_writer_delay (200 ms by default), which
      // was most of the demo's freshness at low rates. 10 ms flushes about as soon as a synchronous commit would
      // (PostgreSQL's default), without an fsync per commit that would cap the load.
      b.setServerConfig("wal_level", "logical").setServerConfig("max_replication_slots", "8")
          .setServerConfig("max_wal_senders", "8").setServerConfig("wal_writer_delay", "10ms");
    }
    return b.start();
  }

  String sourceUrl() {
    return "jdbc:postgresql://127.0.0.1:" + source.getPort() + "/" + SOURCE_DB;
  }

  String sinkUrl() {
    return "jdbc:postgresql://127.0.0.1:" + sinkPort + "/" + SINK_DB;
  }

  /** The sink-down fault: the copy's server stops, as a sink database that went away. */
  synchronized boolean stopSink() throws IOException {
    if (sink == null) {
      return false;
    }
    sink.close();
    sink = null;
    return true;
  }

  /** Starts the copy's server again on its data and port. */
  synchronized boolean startSink() throws IOException {
    if (sink != null) {
      return false;
    }
    sink = server(sinkData, sinkPort, false);
    return true;
  }

  int sourcePort() {
    return source.getPort();
  }

  int sinkPort() {
    return sinkPort;
  }

  Connection source() throws SQLException {
    return source.getDatabase(USER, SOURCE_DB).getConnection();
  }

  Connection sink() throws SQLException {
    return sink.getDatabase(USER, SINK_DB).getConnection();
  }

  /** The shop: numeric, text, timestamptz, jsonb and a composite key; created once, kept across runs. */
  private void createSchema() {
    try {
      createDatabase(source, SOURCE_DB);
      createDatabase(sink, SINK_DB);
      try (Connection c = source(); Statement s = c.createStatement()) {
        s.execute("CREATE TABLE IF NOT EXISTS public.customers (id serial PRIMARY KEY, name text NOT NULL, "
            + "email text, attributes jsonb, created_at timestamptz NOT NULL DEFAULT now())");
        s.execute("CREATE TABLE IF NOT EXISTS public.orders (id bigserial PRIMARY KEY, customer_id int NOT NULL, "
            + "status text NOT NULL, total numeric(12,2) NOT NULL, placed_at timestamptz NOT NULL DEFAULT now())");
        s.execute("CREATE TABLE IF NOT EXISTS public.order_lines (order_id bigint NOT NULL, line_no int NOT NULL, "
            + "product text NOT NULL, quantity int NOT NULL, price numeric(10,2) NOT NULL, "
            + "PRIMARY KEY (order_id, line_no))");
        // Deletes carry the whole old row, so the sink can delete by key and the topic shows what went.
        for (String t : TABLES) {
          s.execute("ALTER TABLE public." + t + " REPLICA IDENTITY FULL");
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create the demo shop: " + e.getMessage(), e);
    }
  }

  private static void createDatabase(EmbeddedPostgres pg, String name) throws SQLException {
    try (Connection c = pg.getPostgresDatabase().getConnection(); Statement s = c.createStatement();
        var rs = s.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + name + "'")) {
      if (!rs.next()) {
        s.execute("CREATE DATABASE " + name);
      }
    }
  }

  /** Drops the source's replication slot, so a stopped demo does not hold WAL back. */
  void dropSlot(String slot) {
    try (Connection c = source(); Statement s = c.createStatement()) {
      s.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '" + slot
          + "' AND NOT active");
    } catch (SQLException e) {
      // Reported by the caller's log line; the slot is dropped on the next stop.
      throw new IllegalStateException("cannot drop replication slot " + slot + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void close() throws IOException {
    try {
      stopSink();
    } finally {
      source.close();
    }
  }
}
