package io.sluice.sink.jdbc;

import java.sql.SQLException;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.UnaryOperator;

/** What an error says, down its causes and a SQL error's next one, without repeats: for a line that must say why. */
final class ErrorText {
  private ErrorText() {}

  /** Every message, as each error gives it. */
  static String of(Throwable e) {
    return join(e, UnaryOperator.identity(), false);
  }

  /**
   * Every message, with a database error cut to the database's own words: Hibernate repeats a batch's whole SQL
   * before the reason PostgreSQL gives at the end ({@code ERROR: …}), and a batch's error is its next one's.
   */
  static String reasons(Throwable e) {
    return join(e, m -> {
      int reason = m.lastIndexOf("ERROR: ");
      return reason > 0 ? m.substring(reason) : m.length() > 500 ? m.substring(0, 500) + "…" : m;
    }, true);
  }

  private static String join(Throwable e, UnaryOperator<String> shown, boolean nextOnly) {
    Set<String> messages = new LinkedHashSet<>();
    for (Throwable c = e; c != null; c = c.getCause()) {
      SQLException next = c instanceof SQLException sql ? sql.getNextException() : null;
      if (next == null || !nextOnly) {
        messages.add(shown.apply(String.valueOf(c.getMessage()).strip()));
      }
      if (next != null) {
        messages.add(shown.apply(String.valueOf(next.getMessage()).strip()));
      }
    }
    return String.join("; ", messages);
  }
}
