package io.sluice.connect.preflight;

import io.sluice.source.Engine;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Before a MariaDB or MySQL source is created, updated or validated ({@link BinlogColumnCheck}): a warning, never a
 * refusal, naming the captured {@code date}, {@code datetime} and {@code timestamp} columns that can hold a zero date
 * while the server's {@code sql_mode} lets one be written. Debezium's binlog source reads {@code 0000-00-00} and a date with a zero month
 * or day as NULL (its row deserializer streaming, its JDBC reads in a snapshot) and a streamed zero timestamp as the
 * epoch, before any converter sees them, so such a value does not arrive as it left and nothing says so at run time.
 * Every other value of these types arrives exactly, hence a warning: the server's mode decides whether the loss can
 * happen, and a column the user accepts the loss of ({@link PostgresColumnCheck#ACCEPT_LOSS}) is not named.
 *
 * <p>A server that cannot be read is left to Debezium's own validation, as for PostgreSQL; the check reads only the
 * catalog, never the tables' rows (a zero date written before the mode changed is not found).
 */
public final class BinlogZeroDateCheck {
  /** Names more than this many columns by count only, so the warning stays one readable line. */
  static final int NAMED = 10;
  private static final Set<String> DATES = Set.of("date", "datetime", "timestamp");

  private BinlogZeroDateCheck() {}

  /**
   * Whether a server in this {@code sql_mode} accepts a zero date: it refuses one only with {@code NO_ZERO_DATE} and
   * {@code NO_ZERO_IN_DATE} in a strict mode (without one, both only warn and store the zero).
   */
  static boolean allowsZeroDates(String sqlMode) {
    Set<String> modes = Arrays.stream(sqlMode == null ? new String[0] : sqlMode.toUpperCase(Locale.ROOT).split(","))
        .map(String::trim).collect(Collectors.toSet());
    boolean strict = modes.contains("STRICT_TRANS_TABLES") || modes.contains("STRICT_ALL_TABLES");
    return !(strict && modes.contains("NO_ZERO_DATE") && modes.contains("NO_ZERO_IN_DATE"));
  }

  /**
   * The warning about {@code columns} (a source's captured columns whose loss it does not accept) on a server in
   * {@code sqlMode}; empty where none of them is a date that can hold a zero date.
   */
  static Optional<String> warning(Engine engine, String sqlMode, List<BinlogColumnCheck.Column> columns) {
    if (!allowsZeroDates(sqlMode)) {
      return Optional.empty();
    }
    List<String> dates = columns.stream().filter(c -> DATES.contains(c.dataType().toLowerCase(Locale.ROOT)))
        .map(c -> c.qualifiedName() + " (" + c.columnType() + ")").toList();
    return dates.isEmpty() ? Optional.empty() : Optional.of(message(engine, sqlMode, dates));
  }

  static String message(Engine engine, String sqlMode, List<String> columns) {
    String named = columns.size() <= NAMED ? String.join(", ", columns)
        : String.join(", ", columns.subList(0, NAMED)) + " and " + (columns.size() - NAMED) + " more";
    return "zero dates: the " + engine + " server's sql_mode (" + (sqlMode == null || sqlMode.isEmpty() ? "empty"
        : sqlMode) + ") lets " + (columns.size() == 1 ? "a captured column" : columns.size() + " captured columns")
        + " hold a zero date (0000-00-00, or a zero month or day): " + named + ". Debezium's binlog source delivers "
        + "such a date as NULL, and a streamed zero timestamp as 1970-01-01 00:00:00, so it does not arrive as it left. "
        + "Refuse them at the source (add NO_ZERO_DATE,NO_ZERO_IN_DATE to a strict sql_mode; rows written before keep "
        + "theirs), or accept the loss (add the columns to " + PostgresColumnCheck.ACCEPT_LOSS + ").";
  }
}
