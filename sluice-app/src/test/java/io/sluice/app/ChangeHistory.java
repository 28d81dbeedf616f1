package io.sluice.app;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Random;

/**
 * A known history of changes to one table, in PostgreSQL or MariaDB, written while a test inflicts its faults: what
 * {@link DeliveryCheck} holds a source's topic against. The table is {@code ledger(k int primary key, seq bigint,
 * txn bigint)}; every change, an insert of a new key or an update of an existing one, sets {@code seq} to a value no
 * other change has, so that each change can be told apart in the topic. Changes are written by one thread in
 * transactions of 1 to 20 changes (an update may hit a key twice in one transaction), paced to a rate; one transaction
 * in ten is rolled back, and its sequence values must never reach the topic. One writer, so sequence values rise in
 * commit order, and per key the topic must hold them rising. The writer outlives a restart of its database: it
 * connects again and counts the transaction the break cut short as rolled back, or as committed when the break came
 * with its commit and its changes are in the table.
 */
final class ChangeHistory implements AutoCloseable {
  static final String TABLE = "ledger";
  private static final byte COMMITTED = 1;
  private static final byte ROLLED_BACK = 2;

  /** Where the table is: a new connection to its database each time. */
  interface Database {
    Connection connect() throws SQLException;
  }

  private final Database db;
  private final int changesPerSecond;
  private final Random random;
  /** By sequence value (index = seq): the key it changed, and whether its transaction committed or rolled back. */
  private int[] keys = new int[1 << 16];
  private byte[] outcomes = new byte[1 << 16];
  /** The highest sequence value whose transaction has ended (committed or rolled back); 0 before the first. */
  private long ended;
  private long committedChanges;
  private long rolledBackChanges;
  private int nextKey = 1;
  private volatile boolean running;
  /** True from {@link #start} until the writer's last transaction has ended. */
  private volatile boolean writing;
  private volatile RuntimeException failure;
  private Thread thread;

  /** The table, made empty in {@code db}, and a writer of {@code changesPerSecond} (not yet started). */
  ChangeHistory(Database db, int changesPerSecond, long seed) {
    this.db = db;
    this.changesPerSecond = changesPerSecond;
    this.random = new Random(seed);
    try (Connection c = db.connect(); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE " + TABLE + " (k int PRIMARY KEY, seq bigint NOT NULL, txn bigint NOT NULL)");
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Starts writing, in a thread of its own, until {@link #close}. */
  void start() {
    running = true;
    writing = true;
    thread = new Thread(this::write, "change-history");
    thread.start();
  }

  private void write() {
    long started = System.nanoTime();
    long written = 0;
    long seq = ended + 1;
    long txn = 0;
    int failedInARow = 0;
    Connection c = null;
    try {
      while (running) {
        long dueNanos = started + written * 1_000_000_000L / changesPerSecond;
        long aheadMs = (dueNanos - System.nanoTime()) / 1_000_000;
        if (aheadMs > 0) {
          Thread.sleep(aheadMs);
        }
        txn++;
        int size = 1 + random.nextInt(20);
        boolean rollBack = random.nextInt(10) == 0;
        int[] changed = new int[size];
        int keysBefore = nextKey;
        boolean committed;
        try {
          if (c == null) {
            c = connect();
          }
          writeChanges(c, seq, txn, changed);
          if (rollBack) {
            c.rollback();
          } else {
            c.commit();
          }
          committed = !rollBack;
          failedInARow = 0;
        } catch (SQLException e) {
          // The connection broke (the database restarting, as a fault of the test): the database rolled the
          // transaction back, unless the break came with its commit, which the next connection finds out.
          if (++failedInARow > 5) {
            throw e;
          }
          close(c);
          c = connect();
          committed = !rollBack && landed(c, seq);
        }
        if (!committed) {
          // The keys this transaction inserted do not exist: later transactions insert them.
          nextKey = keysBefore;
        }
        ended(seq, changed, !committed);
        seq += size;
        written += size;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (SQLException | RuntimeException e) {
      failure = new IllegalStateException("the history's writer failed after sequence value " + ended, e);
    } finally {
      close(c);
      writing = false;
    }
  }

  /** Writes the changes of one transaction, sequence values from {@code seq}, and fills in the keys they changed. */
  private void writeChanges(Connection c, long seq, long txn, int[] changed) throws SQLException {
    try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + TABLE + " (k, seq, txn) VALUES (?, ?, ?)");
        PreparedStatement update = c.prepareStatement("UPDATE " + TABLE + " SET seq = ?, txn = ? WHERE k = ?")) {
      for (int i = 0; i < changed.length; i++) {
        // A new key three times in ten, else one of the last 1,000 keys: most keys are changed many times.
        boolean fresh = nextKey == 1 || random.nextInt(10) < 3;
        int key = fresh ? nextKey++ : nextKey - 1 - random.nextInt(Math.min(nextKey - 1, 1000));
        PreparedStatement s = fresh ? insert : update;
        if (fresh) {
          s.setInt(1, key);
          s.setLong(2, seq + i);
          s.setLong(3, txn);
        } else {
          s.setLong(1, seq + i);
          s.setLong(2, txn);
          s.setInt(3, key);
        }
        changed[i] = key;
        s.executeUpdate();
      }
    }
  }

  /** A connection for the writer, tried again for up to two minutes while the database restarts. */
  private Connection connect() throws SQLException, InterruptedException {
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (true) {
      try {
        Connection c = db.connect();
        c.setAutoCommit(false);
        return c;
      } catch (SQLException e) {
        if (System.nanoTime() > deadline || !running) {
          throw e;
        }
        Thread.sleep(200);
      }
    }
  }

  /**
   * Whether the transaction whose first sequence value is {@code seq} committed: one writer, so no later transaction
   * exists, and every row it changed holds one of its sequence values.
   */
  private static boolean landed(Connection c, long seq) throws SQLException {
    try (PreparedStatement s = c.prepareStatement("SELECT count(*) FROM " + TABLE + " WHERE seq >= ?")) {
      s.setLong(1, seq);
      try (java.sql.ResultSet rs = s.executeQuery()) {
        rs.next();
        long rows = rs.getLong(1);
        c.commit();
        return rows > 0;
      }
    }
  }

  private static void close(Connection c) {
    if (c != null) {
      try {
        c.close();
      } catch (SQLException ignored) {
        // A broken connection: nothing to close cleanly.
      }
    }
  }

  private synchronized void ended(long first, int[] changed, boolean rolledBack) {
    long last = first + changed.length - 1;
    while (last >= keys.length) {
      keys = Arrays.copyOf(keys, keys.length * 2);
      outcomes = Arrays.copyOf(outcomes, outcomes.length * 2);
    }
    for (int i = 0; i < changed.length; i++) {
      keys[(int) first + i] = changed[i];
      outcomes[(int) first + i] = rolledBack ? ROLLED_BACK : COMMITTED;
    }
    if (rolledBack) {
      rolledBackChanges += changed.length;
    } else {
      committedChanges += changed.length;
    }
    ended = last;
  }

  /** The highest sequence value whose transaction has ended; every lower one has ended too. */
  synchronized long ended() {
    check();
    return ended;
  }

  /**
   * Waits (at most a few seconds, while the writer runs) until the transaction of {@code seq} has ended, as the writer
   * records it just after its commit returns (a source may deliver a change before that); false if it never did.
   */
  boolean awaitEnded(long seq) {
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (true) {
      synchronized (this) {
        if (seq <= ended) {
          return true;
        }
      }
      if (!writing || System.nanoTime() > deadline) {
        return false;
      }
      try {
        Thread.sleep(2);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
  }

  /** The highest sequence value of a committed transaction; 0 before the first. */
  synchronized long lastCommitted() {
    for (long seq = ended; seq > 0; seq--) {
      if (outcomes[(int) seq] == COMMITTED) {
        return seq;
      }
    }
    return 0;
  }

  synchronized boolean committed(long seq) {
    return seq > 0 && seq <= ended && outcomes[(int) seq] == COMMITTED;
  }

  synchronized boolean rolledBack(long seq) {
    return seq > 0 && seq <= ended && outcomes[(int) seq] == ROLLED_BACK;
  }

  /** The key the change {@code seq} changed. */
  synchronized int key(long seq) {
    return keys[(int) seq];
  }

  synchronized long committedChanges() {
    return committedChanges;
  }

  synchronized long rolledBackChanges() {
    return rolledBackChanges;
  }

  /** Throws what stopped the writer, if it stopped. */
  void check() {
    if (failure != null) {
      throw failure;
    }
  }

  /** Stops the writer after the transaction in progress ends. */
  @Override
  public void close() throws InterruptedException {
    running = false;
    if (thread != null) {
      thread.join();
      thread = null;
    }
    check();
  }
}
