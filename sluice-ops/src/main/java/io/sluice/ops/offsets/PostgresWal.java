package io.sluice.ops.offsets;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The changes a PostgreSQL replication slot still holds, read with {@code pg_logical_slot_peek_binary_changes}: it
 * does not consume them (the slot does not move) and writes nothing. The slot must be idle, so the connector is
 * stopped first.
 */
final class PostgresWal {
  private PostgresWal() {}

  /** One pgoutput message: B(egin), C(ommit), I(nsert), U(pdate), D(elete), T(runcate), R(elation), ... */
  record Message(long lsn, long xid, char type) {
    boolean isChange() {
      return type == 'I' || type == 'U' || type == 'D' || type == 'T';
    }

    /** Debezium's name for the message type, as it stores it in {@code messageType}. */
    String operation() {
      return switch (type) {
        case 'I' -> "INSERT";
        case 'U' -> "UPDATE";
        case 'D' -> "DELETE";
        case 'T' -> "TRUNCATE";
        case 'B' -> "BEGIN";
        case 'C' -> "COMMIT";
        default -> "MESSAGE";
      };
    }
  }

  static List<Message> peek(SourceDatabase source, int max) {
    String sql = "SELECT lsn::text, xid::text, get_byte(data, 0) FROM pg_logical_slot_peek_binary_changes(?, NULL, ?,"
        + " 'proto_version', '1', 'publication_names', ?)";
    try (Connection c = source.connect(); PreparedStatement s = c.prepareStatement(sql)) {
      s.setString(1, source.slotName());
      s.setInt(2, max);
      s.setString(3, source.publicationName());
      List<Message> out = new ArrayList<>();
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          out.add(new Message(Target.lsn(rs.getString(1)).value(), Long.parseLong(rs.getString(2)), (char) rs.getInt(3)));
        }
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the pending changes of replication slot " + source.slotName() + ": "
          + e.getMessage(), e);
    }
  }

  /**
   * The first change the connector would emit on resume, found the way Debezium's resume logic finds its restart
   * point: right after the message at {@code lsnProc}, or else from the start of the first transaction that commits
   * after {@code lsnCommit}.
   */
  static Message nextChange(List<Message> messages, Long lsnCommit, Long lsnProc) {
    int start = -1;
    if (lsnCommit == null || lsnProc == null) {
      start = 0;
    } else {
      boolean afterStored = false;
      int txStart = -1;
      for (int i = 0; i < messages.size() && start < 0; i++) {
        Message m = messages.get(i);
        if (afterStored) {
          if (m.lsn() != lsnProc) {
            start = i;
          }
          continue;
        }
        if (m.lsn() == lsnProc) {
          afterStored = true;
        }
        if (m.type() == 'B') {
          txStart = i;
        } else if (m.type() == 'C' && Long.compareUnsigned(m.lsn(), lsnCommit) > 0) {
          start = txStart >= 0 ? txStart : 0;
        }
      }
    }
    if (start < 0) {
      return null;
    }
    for (int i = start; i < messages.size(); i++) {
      if (messages.get(i).isChange()) {
        return messages.get(i);
      }
    }
    return null;
  }

  /** The commit LSN the connector would have stored when it reached {@code change}: the last commit before it. */
  static long lastCommitBefore(List<Message> messages, Message change, long fallback) {
    long last = fallback;
    for (Message m : messages) {
      if (m == change) {
        break;
      }
      if (m.type() == 'C' && Long.compareUnsigned(m.lsn(), last) > 0) {
        last = m.lsn();
      }
    }
    return last;
  }
}
