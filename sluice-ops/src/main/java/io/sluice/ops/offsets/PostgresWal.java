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
   * The first change the connector would emit on resume from a stored position. After a whole transaction
   * ({@code messageType} COMMIT, or no type) that is the first change of the first transaction committing after
   * {@code lsnCommit}; in the middle of one, the change after the {@code eventsProcessed}-th message at
   * {@code lsnProc} (a BEGIN and the first change can share an LSN, hence the count).
   */
  static Message nextChange(List<Message> messages, Long lsnCommit, Long lsnProc, String messageType,
      long eventsProcessed) {
    if (lsnCommit == null || lsnProc == null) {
      return firstChangeFrom(messages, 0, messages.size());
    }
    boolean midTransaction = messageType != null && !messageType.equals("COMMIT") && !messageType.equals("BEGIN");
    if (midTransaction) {
      int seen = 0;
      int at = -1;
      for (int i = 0; i < messages.size(); i++) {
        Message m = messages.get(i);
        if (m.type() == 'B') {
          // Counted per transaction, as in a stream started at lsn_proc (an earlier COMMIT ending there is not in it).
          seen = 0;
        }
        if (m.lsn() == lsnProc) {
          seen++;
          if (eventsProcessed > 0 ? seen == eventsProcessed : m.operation().equals(messageType)) {
            at = i;
          }
        }
      }
      if (at >= 0) {
        Message next = firstChangeFrom(messages, at + 1, messages.size());
        if (next != null) {
          return next;
        }
      }
    }
    int txStart = 0;
    for (int i = 0; i < messages.size(); i++) {
      Message m = messages.get(i);
      if (m.type() == 'B') {
        txStart = i;
      } else if (m.type() == 'C' && Long.compareUnsigned(m.lsn(), lsnCommit) > 0) {
        Message first = firstChangeFrom(messages, txStart, i);
        if (first != null) {
          return first;
        }
      }
    }
    return null;
  }

  private static Message firstChangeFrom(List<Message> messages, int from, int to) {
    for (int i = from; i < to; i++) {
      if (messages.get(i).isChange()) {
        return messages.get(i);
      }
    }
    return null;
  }

  /** The COMMIT of {@code change}'s transaction, or null when the peek ended before it. */
  static Message commitOf(List<Message> messages, Message change) {
    boolean after = false;
    for (Message m : messages) {
      after |= m == change;
      if (after && m.type() == 'C') {
        return m;
      }
    }
    return null;
  }

  /** Whether another change follows {@code change} inside its transaction. */
  static boolean moreChangesInTransaction(List<Message> messages, Message change) {
    boolean after = false;
    for (Message m : messages) {
      if (after && m.type() == 'C') {
        return false;
      }
      if (after && m.isChange()) {
        return true;
      }
      after |= m == change;
    }
    return false;
  }

  /**
   * How many messages of {@code change}'s transaction share its LSN up to and including it (its BEGIN can). The
   * previous transaction's COMMIT may end at the same LSN, but a stream started at that LSN does not contain it.
   */
  static long eventsAtLsnThrough(List<Message> messages, Message change) {
    int at = 0;
    while (messages.get(at) != change) {
      at++;
    }
    int begin = at;
    while (begin > 0 && messages.get(begin).type() != 'B') {
      begin--;
    }
    long n = 0;
    for (int i = begin; i <= at; i++) {
      if (messages.get(i).lsn() == change.lsn()) {
        n++;
      }
    }
    return n;
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
