package io.sluice.ops.offsets;

import com.fasterxml.jackson.databind.JsonNode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Does the source still hold the changes from a position on? A position the source no longer retains cannot be
 * streamed from: the changes in between are gone and only a new snapshot brings them back. One check per source
 * database type, each read-only.
 */
sealed interface RetentionCheck permits RetentionCheck.PostgresSlot, RetentionCheck.MySqlBinlogs,
    RetentionCheck.Unchecked {

  /** The verdict, with the facts it rests on in words an operator can act on. */
  record Verdict(boolean retained, String explanation) {}

  Verdict check(JsonNode position);

  static RetentionCheck forSource(OffsetFormat format, SourceDatabase source) {
    if (format instanceof PostgresOffsets) {
      return new PostgresSlot(source);
    }
    if (format instanceof MySqlOffsets) {
      return new MySqlBinlogs(source);
    }
    return new Unchecked(format.database() + " retention is not checked: compare the target with"
        + " sys.fn_cdc_get_min_lsn() for each capture instance yourself");
  }

  /** The replication slot must exist and must not have confirmed a position past the target. */
  record PostgresSlot(SourceDatabase source) implements RetentionCheck {
    @Override
    public Verdict check(JsonNode position) {
      long target = PostgresOffsets.lowestLsn(position);
      String sql = "SELECT restart_lsn::text, confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = ?";
      try (Connection c = source.connect(); PreparedStatement s = c.prepareStatement(sql)) {
        s.setString(1, source.slotName());
        try (ResultSet rs = s.executeQuery()) {
          if (!rs.next()) {
            return new Verdict(false, "replication slot " + source.slotName() + " does not exist on " + source.jdbcUrl()
                + ": the server keeps no changes for this connector, so no position can be streamed from; a snapshot"
                + " (sluice offsets reset --snapshot initial) is the way back");
          }
          String restart = rs.getString(1);
          String confirmed = rs.getString(2);
          String boundText = confirmed != null ? confirmed : restart;
          if (boundText == null) {
            return new Verdict(false, "replication slot " + source.slotName() + " has no restart position (it was"
                + " invalidated): its changes are gone; a snapshot is the way back");
          }
          long bound = Target.lsn(boundText).value();
          String facts = "slot " + source.slotName() + ": restart_lsn " + restart + ", confirmed_flush_lsn " + confirmed
              + "; target " + PostgresOffsets.hex(target);
          if (Long.compareUnsigned(target, bound) < 0) {
            return new Verdict(false, "target LSN " + PostgresOffsets.hex(target) + " is before what replication slot "
                + source.slotName() + " still holds (" + facts + "): the server streams only changes committed after "
                + boundText + ", so the changes between are gone and cannot be delivered again; a snapshot"
                + " (sluice offsets reset --snapshot initial) is the way back");
          }
          return new Verdict(true, "retained (" + facts + ")");
        }
      } catch (SQLException e) {
        throw new IllegalStateException("cannot check replication slot " + source.slotName() + " on " + source + ": "
            + e.getMessage() + " (pass --source-jdbc/--source-user/--source-password, or --force to skip the check)", e);
      }
    }
  }

  /** The binlog file must still be on the server. */
  record MySqlBinlogs(SourceDatabase source) implements RetentionCheck {
    @Override
    public Verdict check(JsonNode position) {
      String file = position.path("file").asText();
      List<String> logs = new ArrayList<>();
      try (Connection c = source.connect(); Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SHOW BINARY LOGS")) {
        while (rs.next()) {
          logs.add(rs.getString(1));
        }
      } catch (SQLException e) {
        throw new IllegalStateException("cannot list binary logs on " + source + ": " + e.getMessage()
            + " (pass --source-jdbc/--source-user/--source-password, or --force to skip the check)", e);
      }
      String held = logs.isEmpty() ? "none" : logs.get(0) + " … " + logs.get(logs.size() - 1);
      if (!logs.contains(file)) {
        return new Verdict(false, "binlog file " + file + " is no longer on the server (it holds " + held + "): the"
            + " changes between are gone and cannot be delivered again; a snapshot is the way back");
      }
      return new Verdict(true, "retained (binlog " + file + " is on the server, which holds " + held + ")");
    }
  }

  /** For sources Sluice cannot check: the verdict says so and lets the operator decide. */
  record Unchecked(String why) implements RetentionCheck {
    @Override
    public Verdict check(JsonNode position) {
      return new Verdict(true, why);
    }
  }
}
