package io.sluice.ops.offsets;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A MySQL or MariaDB binary log as {@code SHOW BINLOG EVENTS} lists it: read-only (it needs the replication
 * privileges a Debezium user has anyway), and the server does the decoding. It shows each event's type and place, not
 * its rows: how many rows a row event holds is not visible here.
 */
final class BinlogEvents {
  private static final int PAGE = 1000;

  private BinlogEvents() {}

  /** One event: its file, start and end position, type as the server names it, and the server's summary. */
  record Event(String file, long pos, long end, String type, String info) {
    /** A MariaDB GTID event that opens a transaction ({@code BEGIN GTID 0-1-42}). */
    boolean opensMariaDbTransaction() {
      return type.equals("Gtid") && info.toUpperCase(Locale.ROOT).startsWith("BEGIN GTID");
    }

    /** A MySQL {@code BEGIN} query, which opens a transaction there. */
    boolean isBeginQuery() {
      return type.equals("Query") && info.trim().equalsIgnoreCase("BEGIN");
    }

    /** A GTID event of either server: it names the transaction that follows. */
    boolean isGtid() {
      return type.equals("Gtid") || type.equals("Anonymous_Gtid");
    }

    boolean isRows() {
      return type.startsWith("Write_rows") || type.startsWith("Update_rows") || type.startsWith("Delete_rows");
    }

    boolean isCommit() {
      return type.equals("Xid") || (type.equals("Query") && info.trim().equalsIgnoreCase("COMMIT"));
    }

    /** A statement logged on its own (DDL): a change of its own, outside any transaction. */
    boolean isStatement() {
      return type.equals("Query") && !isBeginQuery() && !isCommit();
    }

    /**
     * Events a Debezium connector does not receive unless it asks for the original SQL ({@code include.query}); they
     * are left out of its count of events processed in a transaction.
     */
    boolean isQueryAnnotation() {
      return type.equals("Annotate_rows") || type.equals("Rows_query");
    }
  }

  /** The events from {@code file}:{@code pos} on, through the later files the server still holds, page by page. */
  static Iterable<Event> from(SourceDatabase source, String file, long pos) {
    return () -> new java.util.Iterator<>() {
      private final List<String> files = binaryLogs(source);
      private int fileIndex = files.indexOf(file);
      private long next = pos;
      private List<Event> page = List.of();
      private int i;

      {
        if (fileIndex < 0) {
          throw new IllegalArgumentException("binlog file " + file + " is no longer on the server (it holds " + files
              + "): the events after the position cannot be read");
        }
      }

      @Override
      public boolean hasNext() {
        while (i >= page.size()) {
          if (fileIndex >= files.size()) {
            return false;
          }
          page = show(source, files.get(fileIndex), next);
          i = 0;
          if (page.size() < PAGE) {
            fileIndex++;
            next = 4;
          } else {
            next = page.get(page.size() - 1).end();
          }
          if (page.isEmpty() && fileIndex >= files.size()) {
            return false;
          }
        }
        return true;
      }

      @Override
      public Event next() {
        if (!hasNext()) {
          throw new java.util.NoSuchElementException();
        }
        return page.get(i++);
      }
    };
  }

  /** Whether the server is MariaDB (its GTIDs are {@code domain-server-sequence}, its GTID events open transactions). */
  static boolean isMariaDb(SourceDatabase source) {
    try (Connection c = source.connect(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT VERSION()")) {
      return rs.next() && rs.getString(1).toLowerCase(Locale.ROOT).contains("mariadb");
    } catch (SQLException e) {
      throw unreadable(source, e);
    }
  }

  /**
   * MariaDB's GTID position of the transactions written before {@code file}:{@code pos}, as a connector resuming
   * there must hold it ({@code BINLOG_GTID_POS}); null where the server cannot tell.
   */
  static String mariaDbGtidPosition(SourceDatabase source, String file, long pos) {
    try (Connection c = source.connect(); PreparedStatement s = c.prepareStatement("SELECT BINLOG_GTID_POS(?, ?)")) {
      s.setString(1, file);
      s.setLong(2, pos);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    } catch (SQLException e) {
      throw unreadable(source, e);
    }
  }

  private static List<String> binaryLogs(SourceDatabase source) {
    List<String> out = new ArrayList<>();
    try (Connection c = source.connect(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SHOW BINARY LOGS")) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    } catch (SQLException e) {
      throw unreadable(source, e);
    }
    return out;
  }

  private static List<Event> show(SourceDatabase source, String file, long pos) {
    // SHOW statements take no bind parameters; the file name was checked against SHOW BINARY LOGS.
    String sql = "SHOW BINLOG EVENTS IN '" + file.replace("'", "''") + "' FROM " + pos + " LIMIT " + PAGE;
    List<Event> out = new ArrayList<>();
    try (Connection c = source.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        out.add(new Event(rs.getString("Log_name"), rs.getLong("Pos"), rs.getLong("End_log_pos"),
            rs.getString("Event_type"), String.valueOf(rs.getString("Info"))));
      }
    } catch (SQLException e) {
      throw unreadable(source, e);
    }
    return out;
  }

  private static IllegalArgumentException unreadable(SourceDatabase source, SQLException e) {
    return new IllegalArgumentException("cannot read the binary log on " + source + ": " + e.getMessage()
        + " (SHOW BINLOG EVENTS needs the REPLICATION SLAVE or BINLOG MONITOR privilege; pass --source-jdbc/"
        + "--source-user/--source-password)", e);
  }
}
