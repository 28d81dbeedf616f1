package io.sluice.connect.preflight;

import io.sluice.connect.preflight.ColumnCheckOutcome.Invalid;
import io.sluice.connect.preflight.ColumnCheckOutcome.Skipped;
import io.sluice.connect.defaults.PostgresTypeFidelity;
import io.sluice.connect.defaults.PostgresTypeFidelity.NotCarried;
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
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Before a MariaDB or MySQL source is created, updated or validated: its captured columns, read once from the server's
 * {@code information_schema} with the config's own connection settings and filtered as Debezium filters them
 * ({@link CaptureFilters#ofBinlog}), judged by the binlog sources' checks.
 *
 * <ul>
 *   <li>An {@code enum} or {@code set} with a member that holds a comma is refused: Debezium describes the members in
 *       the schema parameter {@code allowed}, joined by commas, so no consumer can tell the member {@code 'a,b'} from
 *       the members {@code 'a'} and {@code 'b'}; a sink that makes the table makes the wrong members and then refuses
 *       the value. Like {@link PostgresColumnCheck}'s findings, it is reported on {@value PostgresColumnCheck#REPORTED_ON}
 *       unless the config accepts the loss ({@value PostgresColumnCheck#ACCEPT_LOSS}).
 *   <li>Date columns that can hold a zero date are a warning ({@link BinlogZeroDateCheck}).
 * </ul>
 *
 * <p>A server that cannot be read is left to Debezium's own validation, as for PostgreSQL; the check reads only the
 * catalog, never the tables' rows.
 */
public final class BinlogColumnCheck {
  private static final int TIMEOUT_MS = 10_000;

  private static final String COLUMNS = """
      SELECT table_schema, table_name, column_name, data_type, column_type FROM information_schema.columns
      WHERE data_type IN ('date', 'datetime', 'timestamp', 'enum', 'set')
        AND table_schema NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys')
      ORDER BY table_schema, table_name, ordinal_position""";

  private BinlogColumnCheck() {}

  /** Whether the check applies to a connector of this class. */
  public static boolean appliesTo(String connectorClass) {
    Engine engine = Engine.ofConnectorClass(connectorClass).orElse(null);
    return engine == Engine.MARIADB || engine == Engine.MYSQL;
  }

  /**
   * Columns read: {@code refused} block the config, {@code accepted} are losses the config accepts; {@code zeroDates}
   * the warning about date columns that can hold a zero date, where there are such columns.
   */
  public record Checked(List<ColumnFinding> refused, List<ColumnFinding> accepted, Optional<String> zeroDates)
      implements ColumnCheckOutcome.Checked {
    public Checked {
      refused = List.copyOf(refused);
      accepted = List.copyOf(accepted);
    }
  }

  /** A captured column of one of the types the checks judge, as {@code information_schema.columns} shows it. */
  record Column(String database, String table, String name, String dataType, String columnType) {
    String qualifiedName() {
      return database + "." + table + "." + name;
    }
  }

  /** Checks a binlog source config whose secrets are clear values (references already resolved by the caller). */
  public static ColumnCheckOutcome check(Map<String, String> config) {
    Engine engine = Engine.ofConnectorClass(config.get(SourceConnection.CONNECTOR_CLASS)).orElse(null);
    if (engine != Engine.MARIADB && engine != Engine.MYSQL) {
      return new Checked(List.of(), List.of(), Optional.empty());
    }
    List<Pattern> accept;
    try {
      accept = CaptureFilters.patterns(config.get(PostgresColumnCheck.ACCEPT_LOSS));
    } catch (PatternSyntaxException e) {
      return new Invalid(PostgresColumnCheck.ACCEPT_LOSS, PostgresColumnCheck.acceptLossProblem(e));
    }
    CaptureFilters filters;
    SourceConnection source;
    try {
      filters = CaptureFilters.ofBinlog(config);
      source = SourceConnection.of(engine, config, SourceConnection.Secrets.AS_GIVEN);
    } catch (PatternSyntaxException e) {
      return new Skipped("a database, table or column filter is not a valid regular expression (Debezium reports it)");
    } catch (SourceConnection.Incomplete e) {
      return new Skipped(e.getMessage() + " (Debezium reports it)");
    }
    String sqlMode;
    List<Column> columns = new ArrayList<>();
    try (Connection c = connect(source)) {
      try (PreparedStatement s = c.prepareStatement("SELECT @@GLOBAL.sql_mode"); ResultSet rs = s.executeQuery()) {
        rs.next();
        sqlMode = rs.getString(1);
      }
      try (PreparedStatement s = c.prepareStatement(COLUMNS); ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          Column column = new Column(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
              rs.getString(5));
          if (filters.capturesTable(column.database(), column.table())
              && filters.capturesColumn(column.database(), column.table(), column.name())) {
            columns.add(column);
          }
        }
      }
    } catch (SQLException e) {
      return new Skipped("cannot read the columns of " + source + ": "
          + (e.getMessage() == null ? "" : e.getMessage().lines().findFirst().orElse("")));
    }
    List<ColumnFinding> refused = new ArrayList<>();
    List<ColumnFinding> accepted = new ArrayList<>();
    for (Column column : columns) {
      commaMember(column).ifPresent(f -> (CaptureFilters.matchesAny(accept, f.qualifiedName()) ? accepted : refused)
          .add(f));
    }
    List<Column> unaccepted = columns.stream()
        .filter(c -> !CaptureFilters.matchesAny(accept, c.qualifiedName())).toList();
    return new Checked(refused, accepted, BinlogZeroDateCheck.warning(engine, sqlMode, unaccepted));
  }

  /** The finding for an {@code enum} or {@code set} column with a member that holds a comma; empty for others. */
  static Optional<ColumnFinding> commaMember(Column column) {
    String kind = column.dataType().toLowerCase(Locale.ROOT);
    if (!kind.equals("enum") && !kind.equals("set")) {
      return Optional.empty();
    }
    List<String> members = members(column.columnType());
    Optional<String> withComma = members.stream().filter(m -> m.contains(",")).findFirst();
    if (withComma.isEmpty()) {
      return Optional.empty();
    }
    String member = withComma.get();
    String c = PostgresTypeFidelity.COLUMN;
    int longest = members.stream().mapToInt(m -> m.codePointCount(0, m.length())).max().orElse(1);
    String table = column.database() + "." + column.table();
    NotCarried verdict = new NotCarried("Debezium describes its members in the schema parameter allowed, joined by "
        + "commas, so the member " + quoted(member) + " reads as " + String.join(" and ",
            Arrays.stream(member.split(",", -1)).map(BinlogColumnCheck::quoted).toList())
        + " to every consumer: a sink that makes the table (Sluice's JDBC sink with schema.evolution=basic into "
        + "MariaDB or MySQL) makes " + (kind.equals("enum") ? "an enum" : "a set") + " of the wrong members and then "
        + "refuses that value (to its dead letter queue, or the task fails); into a table made beforehand the value "
        + "arrives as it left",
        "carry its text instead (ALTER TABLE " + table + " ADD COLUMN " + c + "_text varchar(" + longest + ") AS ("
        + c + ") STORED, then exclude " + c + "), change the member at the source");
    return Optional.of(new ColumnFinding(column.database(), column.table(), column.name(), column.columnType(),
        verdict));
  }

  /**
   * The members of an {@code enum(...)} or {@code set(...)} column type as {@code information_schema} writes it: each a
   * quoted string, a quote inside doubled ({@code ''}) or escaped ({@code \'}), as is a backslash ({@code \\}).
   */
  static List<String> members(String columnType) {
    List<String> out = new ArrayList<>();
    int open = columnType.indexOf('(');
    if (open < 0) {
      return out;
    }
    StringBuilder member = null;
    for (int i = open + 1; i < columnType.length(); i++) {
      char ch = columnType.charAt(i);
      if (member == null) {
        if (ch == '\'') {
          member = new StringBuilder();
        } else if (ch == ')') {
          break;
        }
      } else if (ch == '\\' && i + 1 < columnType.length()) {
        member.append(columnType.charAt(++i));
      } else if (ch == '\'' && i + 1 < columnType.length() && columnType.charAt(i + 1) == '\'') {
        member.append('\'');
        i++;
      } else if (ch == '\'') {
        out.add(member.toString());
        member = null;
      } else {
        member.append(ch);
      }
    }
    return out;
  }

  private static String quoted(String member) {
    return "'" + member.replace("'", "''") + "'";
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
