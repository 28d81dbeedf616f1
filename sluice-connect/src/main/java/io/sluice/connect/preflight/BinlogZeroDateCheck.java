package io.sluice.connect.preflight;

import io.sluice.source.Engine;
import io.sluice.source.SourceConnection;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Collectors;

/**
 * Before a MariaDB or MySQL source is created, updated or validated: a warning, never a refusal, naming the captured
 * {@code date}, {@code datetime} and {@code timestamp} columns that can hold a zero date while the server's
 * {@code sql_mode} lets one be written. Debezium's binlog source reads {@code 0000-00-00} and a date with a zero month
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
  private static final int TIMEOUT_MS = 10_000;

  private static final String COLUMNS = """
      SELECT table_schema, table_name, column_name, column_type FROM information_schema.columns
      WHERE data_type IN ('date', 'datetime', 'timestamp')
        AND table_schema NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys')
      ORDER BY table_schema, table_name, ordinal_position""";

  private BinlogZeroDateCheck() {}

  /** Whether the check applies to a connector of this class. */
  public static boolean appliesTo(String connectorClass) {
    Engine engine = Engine.ofConnectorClass(connectorClass).orElse(null);
    return engine == Engine.MARIADB || engine == Engine.MYSQL;
  }

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
   * The warning for a binlog source config whose secrets are clear values; empty where no captured column can hold a
   * zero date, and where the server or the config cannot be read ({@code skipped} is told why).
   */
  public static Optional<String> warning(Map<String, String> config, java.util.function.Consumer<String> skipped) {
    Engine engine = Engine.ofConnectorClass(config.get(SourceConnection.CONNECTOR_CLASS)).orElse(null);
    if (engine != Engine.MARIADB && engine != Engine.MYSQL) {
      return Optional.empty();
    }
    List<Pattern> accept;
    CaptureFilters filters;
    SourceConnection source;
    try {
      accept = CaptureFilters.patterns(config.get(PostgresColumnCheck.ACCEPT_LOSS));
      filters = CaptureFilters.ofBinlog(config);
      source = SourceConnection.of(engine, config, SourceConnection.Secrets.AS_GIVEN);
    } catch (PatternSyntaxException | SourceConnection.Incomplete e) {
      skipped.accept(e.getMessage() + " (Debezium reports it)");
      return Optional.empty();
    }
    try (Connection c = connect(source)) {
      String sqlMode;
      try (PreparedStatement s = c.prepareStatement("SELECT @@GLOBAL.sql_mode"); ResultSet rs = s.executeQuery()) {
        rs.next();
        sqlMode = rs.getString(1);
      }
      if (!allowsZeroDates(sqlMode)) {
        return Optional.empty();
      }
      List<String> columns = new ArrayList<>();
      try (PreparedStatement s = c.prepareStatement(COLUMNS); ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          String db = rs.getString(1);
          String table = rs.getString(2);
          String column = rs.getString(3);
          String name = db + "." + table + "." + column;
          if (filters.capturesTable(db, table) && filters.capturesColumn(db, table, column)
              && !CaptureFilters.matchesAny(accept, name)) {
            columns.add(name + " (" + rs.getString(4) + ")");
          }
        }
      }
      return columns.isEmpty() ? Optional.empty() : Optional.of(message(engine, sqlMode, columns));
    } catch (SQLException e) {
      skipped.accept("cannot read the columns of " + source + ": " + e.getMessage().lines().findFirst().orElse(""));
      return Optional.empty();
    }
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

  private static Connection connect(SourceConnection source) throws SQLException {
    Properties p = source.properties();
    // The driver itself, not DriverManager: the REST extension's class loader is not the worker's plugins'.
    p.setProperty("connectTimeout", String.valueOf(TIMEOUT_MS));
    p.setProperty("socketTimeout", String.valueOf(3 * TIMEOUT_MS));
    Driver driver = source.engine() == Engine.MARIADB ? new org.mariadb.jdbc.Driver() : new com.mysql.cj.jdbc.Driver();
    Connection c = driver.connect(source.jdbcUrl(), p);
    if (c == null) {
      throw new SQLException("the " + source.engine() + " driver does not accept " + source.jdbcUrl());
    }
    return c;
  }
}
