package io.sluice.app.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A steady mix of shop changes at a given rate: new customers, orders with their lines, status updates, attribute
 * updates and deleted orders. While the file {@code hold} exists it stops and says so with the file {@code held}
 * ({@code sluice demo --check} holds the load to compare the two databases).
 */
final class ShopLoad implements Runnable {
  /** Every status the load writes: the copy may hold a constraint that allows these and no other. */
  static final List<String> STATUSES = List.of("new", "paid", "packed", "shipped", "delivered");
  private static final String[] PRODUCTS = {"kettle", "mug", "teapot", "strainer", "tea 250 g", "tray"};

  private final ShopDatabases dbs;
  private final int perSecond;
  private final Path hold;
  private final Path held;
  private final Consumer<String> log;
  private final AtomicLong changes = new AtomicLong();
  private volatile boolean running = true;

  ShopLoad(ShopDatabases dbs, int perSecond, Path controlDir, Consumer<String> log) {
    this.dbs = dbs;
    this.perSecond = perSecond;
    this.hold = controlDir.resolve("hold");
    this.held = controlDir.resolve("held");
    this.log = log;
  }

  long changes() {
    return changes.get();
  }

  void stop() {
    running = false;
  }

  @Override
  public void run() {
    long nanosPerChange = 1_000_000_000L / Math.max(1, perSecond);
    long next = System.nanoTime();
    while (running) {
      try {
        if (Files.exists(hold)) {
          Files.writeString(held, String.valueOf(changes.get()));
          Thread.sleep(100);
          next = System.nanoTime();
          continue;
        }
        Files.deleteIfExists(held);
        try (Connection c = dbs.source()) {
          c.setAutoCommit(true);
          while (running && !Files.exists(hold)) {
            // Paced by rows changed, as --rate says: an order with its lines is several changes.
            int changed = oneChange(c);
            changes.addAndGet(changed);
            next += nanosPerChange * Math.max(1, changed);
            long wait = next - System.nanoTime();
            if (wait > 0) {
              Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            } else if (wait < -1_000_000_000L) {
              next = System.nanoTime(); // fell a second behind: do not burst to catch up
            }
          }
        }
      } catch (InterruptedException e) {
        return;
      } catch (SQLException | IOException | RuntimeException e) {
        if (running) {
          log.accept("load: " + e.getMessage() + "; retrying in 1 s");
          try {
            Thread.sleep(1000);
          } catch (InterruptedException stop) {
            return;
          }
        }
      }
    }
  }

  /** One step of the mix; returns how many rows it changed. */
  private int oneChange(Connection c) throws SQLException {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    int pick = r.nextInt(100);
    long maxCustomer = max(c, "customers");
    if (pick < 10 || maxCustomer == 0) {
      try (PreparedStatement s = c.prepareStatement("INSERT INTO public.customers (name, email, attributes) "
          + "VALUES (?, ?, ?::jsonb)")) {
        int n = r.nextInt(1_000_000);
        s.setString(1, "Customer " + n);
        s.setString(2, "customer" + n + "@example.com");
        s.setString(3, "{\"tier\":\"" + (n % 3 == 0 ? "gold" : "basic") + "\",\"newsletter\":" + (n % 2 == 0) + "}");
        return s.executeUpdate();
      }
    }
    if (pick < 50) {
      int lines = 1 + r.nextInt(3);
      c.setAutoCommit(false);
      try {
        long order;
        try (PreparedStatement s = c.prepareStatement("INSERT INTO public.orders (customer_id, status, total) "
            + "VALUES (?, 'new', 0) RETURNING id")) {
          s.setLong(1, 1 + r.nextLong(maxCustomer));
          try (ResultSet rs = s.executeQuery()) {
            rs.next();
            order = rs.getLong(1);
          }
        }
        try (PreparedStatement s = c.prepareStatement("INSERT INTO public.order_lines (order_id, line_no, product, "
            + "quantity, price) VALUES (?, ?, ?, ?, ?)")) {
          for (int i = 1; i <= lines; i++) {
            s.setLong(1, order);
            s.setInt(2, i);
            s.setString(3, PRODUCTS[r.nextInt(PRODUCTS.length)]);
            s.setInt(4, 1 + r.nextInt(5));
            s.setBigDecimal(5, java.math.BigDecimal.valueOf(100 + r.nextInt(5000), 2));
            s.addBatch();
          }
          s.executeBatch();
        }
        try (PreparedStatement s = c.prepareStatement("UPDATE public.orders SET total = (SELECT sum(quantity * price) "
            + "FROM public.order_lines WHERE order_id = ?) WHERE id = ?")) {
          s.setLong(1, order);
          s.setLong(2, order);
          s.executeUpdate();
        }
        c.commit();
        return 2 + lines;
      } catch (SQLException e) {
        c.rollback();
        throw e;
      } finally {
        c.setAutoCommit(true);
      }
    }
    long maxOrder = max(c, "orders");
    if (maxOrder == 0) {
      return 0;
    }
    if (pick < 85) {
      try (PreparedStatement s = c.prepareStatement("UPDATE public.orders SET status = ? WHERE id = ?")) {
        s.setString(1, STATUSES.get(r.nextInt(STATUSES.size())));
        s.setLong(2, 1 + r.nextLong(maxOrder));
        return s.executeUpdate();
      }
    }
    if (pick < 95) {
      try (PreparedStatement s = c.prepareStatement("UPDATE public.customers SET attributes = attributes || "
          + "jsonb_build_object('visits', ?) WHERE id = ?")) {
        s.setInt(1, r.nextInt(100));
        s.setLong(2, 1 + r.nextLong(maxCustomer));
        return s.executeUpdate();
      }
    }
    // A cancelled order goes with its lines.
    try (PreparedStatement s = c.prepareStatement("WITH gone AS (DELETE FROM public.order_lines WHERE order_id = ? "
        + "RETURNING 1) SELECT count(*) FROM gone")) {
      long id = 1 + r.nextLong(maxOrder);
      s.setLong(1, id);
      int removed;
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        removed = rs.getInt(1);
      }
      try (PreparedStatement d = c.prepareStatement("DELETE FROM public.orders WHERE id = ?")) {
        d.setLong(1, id);
        return removed + d.executeUpdate();
      }
    }
  }

  private static long max(Connection c, String table) throws SQLException {
    try (var s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT coalesce(max(id), 0) FROM public."
        + table)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
