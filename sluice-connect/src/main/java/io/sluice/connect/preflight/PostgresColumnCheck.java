package io.sluice.connect.preflight;

import io.sluice.connect.preflight.ColumnCheckOutcome.Invalid;
import io.sluice.connect.preflight.ColumnCheckOutcome.Skipped;
import io.sluice.connect.defaults.PostgresTypeFidelity;
import io.sluice.connect.defaults.PostgresTypeFidelity.ColumnType;
import io.sluice.connect.defaults.PostgresTypeFidelity.Kind;
import io.sluice.connect.defaults.PostgresTypeFidelity.NotCarried;
import io.sluice.source.Engine;
import io.sluice.source.SourceConnection;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Before a PostgreSQL source is created, updated or validated: the columns of the tables it will capture whose type the
 * pipeline cannot carry faithfully ({@link PostgresTypeFidelity}), read from the source database with the config's own
 * connection settings and filtered as Debezium filters ({@link CaptureFilters}). A column the user accepts the loss of
 * ({@value #ACCEPT_LOSS}) is reported apart and does not refuse the config.
 *
 * <p>A database the check cannot reach, or a config it cannot read, skips the check: Debezium's own validation already
 * reports the connection on {@code database.hostname}, and Connect refuses such a config without help.
 */
public final class PostgresColumnCheck {
  /**
   * Sluice's key for a loss the user accepts: a comma-separated list of regular expressions matched against fully
   * qualified column names ({@code schema.table.column}), as Debezium matches {@code column.exclude.list}.
   */
  public static final String ACCEPT_LOSS = "sluice.columns.accept.loss";
  /** The key a refusal is reported on: excluding the column is the remedy every finding has. */
  public static final String REPORTED_ON = CaptureFilters.COLUMN_EXCLUDE;

  private static final int CONNECT_TIMEOUT_SECONDS = 10;
  private static final int SOCKET_TIMEOUT_SECONDS = 30;

  private static final String COLUMNS = """
      SELECT n.nspname, c.relname, a.attname, a.atttypid, format_type(a.atttypid, a.atttypmod), a.attndims
      FROM pg_catalog.pg_attribute a
      JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
      JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
        AND n.nspname NOT IN ('pg_catalog', 'information_schema')
        AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp%'
      ORDER BY n.nspname, c.relname, a.attnum""";

  private static final String TYPES = """
      SELECT t.oid, t.typname, t.typtype, t.typcategory = 'A' AND t.typelem <> 0, t.typelem, t.typbasetype,
             format_type(t.oid, NULL)
      FROM pg_catalog.pg_type t""";

  private PostgresColumnCheck() {}

  /** Whether the check applies to a connector of this class. */
  public static boolean appliesTo(String connectorClass) {
    return Engine.ofConnectorClass(connectorClass).orElse(null) == Engine.POSTGRESQL;
  }

  /** What is wrong with a {@value #ACCEPT_LOSS} that does not compile, said on that key. */
  static String acceptLossProblem(PatternSyntaxException e) {
    return ACCEPT_LOSS + " must be a comma-separated list of regular expressions of schema.table.column names: "
        + e.getDescription() + " in '" + e.getPattern() + "'";
  }

  /** The regular expression that matches exactly this name, as a user would write it into a list. */
  static String regex(String name) {
    StringBuilder out = new StringBuilder();
    for (char ch : name.toCharArray()) {
      if ("\\.[]{}()*+?^$|,".indexOf(ch) >= 0) {
        out.append('\\');
      }
      out.append(ch);
    }
    return out.toString();
  }

  /**
   * Columns read: {@code refused} block the config, {@code accepted} are losses the config accepts;
   * {@code serverMajor} is the source server's major version, which other checks read ({@link PublicationCheck}).
   */
  public record Checked(List<ColumnFinding> refused, List<ColumnFinding> accepted, int serverMajor)
      implements ColumnCheckOutcome.Checked {
    public Checked {
      refused = List.copyOf(refused);
      accepted = List.copyOf(accepted);
    }
  }

  /**
   * Checks a PostgreSQL source config whose secrets are clear values (references already resolved by the caller).
   */
  public static ColumnCheckOutcome check(Map<String, String> config) {
    List<Pattern> accept;
    try {
      accept = CaptureFilters.patterns(config.get(ACCEPT_LOSS));
    } catch (PatternSyntaxException e) {
      return new Invalid(ACCEPT_LOSS, acceptLossProblem(e));
    }
    CaptureFilters filters;
    try {
      filters = CaptureFilters.of(config);
    } catch (PatternSyntaxException e) {
      return new Skipped("a table or column filter is not a valid regular expression (Debezium reports it)");
    }
    SourceConnection source;
    try {
      source = SourceConnection.of(Engine.POSTGRESQL, config, SourceConnection.Secrets.AS_GIVEN);
    } catch (SourceConnection.Incomplete e) {
      return new Skipped(e.getMessage() + " (Debezium reports it)");
    }
    String url = source.jdbcUrl();
    try (Connection c = connect(source)) {
      c.setReadOnly(true);
      Map<Long, TypeRow> types = types(c);
      List<ColumnFinding> refused = new ArrayList<>();
      List<ColumnFinding> accepted = new ArrayList<>();
      try (PreparedStatement s = c.prepareStatement(COLUMNS); ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          String schema = rs.getString(1);
          String table = rs.getString(2);
          String column = rs.getString(3);
          if (!filters.capturesTable(schema, table) || !filters.capturesColumn(schema, table, column)) {
            continue;
          }
          ColumnType type = columnType(types, rs.getLong(4), 0);
          if (!(PostgresTypeFidelity.verdict(type, rs.getInt(6)) instanceof NotCarried lost)) {
            continue;
          }
          String shown = rs.getString(5);
          if (type.kind() == Kind.DOMAIN) {
            shown += ", a domain over " + baseOf(type).shown();
          }
          ColumnFinding f = new ColumnFinding(schema, table, column, shown, lost);
          (CaptureFilters.matchesAny(accept, f.qualifiedName()) ? accepted : refused).add(f);
        }
      }
      return new Checked(refused, accepted, c.getMetaData().getDatabaseMajorVersion());
    } catch (SQLException e) {
      return new Skipped("cannot read the columns of " + url + " as " + source.user() + ": "
          + firstLine(e.getMessage()));
    }
  }

  private static Connection connect(SourceConnection source) throws SQLException {
    // User, password and Debezium's TLS settings, under the names the driver gives them.
    Properties p = source.properties();
    String url = source.jdbcUrl();
    p.setProperty("connectTimeout", String.valueOf(CONNECT_TIMEOUT_SECONDS));
    p.setProperty("loginTimeout", String.valueOf(CONNECT_TIMEOUT_SECONDS));
    p.setProperty("socketTimeout", String.valueOf(SOCKET_TIMEOUT_SECONDS));
    p.setProperty("ApplicationName", "sluice-column-check");
    // The driver itself, not DriverManager: the REST extension's class loader is not the worker's plugins'.
    Connection c = new org.postgresql.Driver().connect(url, p);
    if (c == null) {
      throw new SQLException("the PostgreSQL driver does not accept " + url);
    }
    return c;
  }

  private record TypeRow(String name, String typtype, boolean array, long element, long base, String shown) {}

  private static Map<Long, TypeRow> types(Connection c) throws SQLException {
    Map<Long, TypeRow> out = new HashMap<>();
    try (PreparedStatement s = c.prepareStatement(TYPES); ResultSet rs = s.executeQuery()) {
      while (rs.next()) {
        out.put(rs.getLong(1), new TypeRow(rs.getString(2), rs.getString(3), rs.getBoolean(4), rs.getLong(5),
            rs.getLong(6), rs.getString(7)));
      }
    }
    return out;
  }

  private static ColumnType columnType(Map<Long, TypeRow> types, long oid, int depth) {
    TypeRow t = types.get(oid);
    if (t == null || depth > 16) {
      return new ColumnType("oid " + oid, null, Kind.PSEUDO, null);
    }
    Kind kind = Kind.of(t.typtype(), t.array());
    ColumnType inner = switch (kind) {
      case DOMAIN -> columnType(types, t.base(), depth + 1);
      case ARRAY -> columnType(types, t.element(), depth + 1);
      default -> null;
    };
    return new ColumnType(t.name(), t.shown(), kind, inner);
  }

  private static ColumnType baseOf(ColumnType type) {
    return type.kind() == Kind.DOMAIN ? baseOf(type.inner()) : type;
  }

  private static String firstLine(String message) {
    return message == null ? "" : message.lines().findFirst().orElse("");
  }
}
