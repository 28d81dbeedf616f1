package io.sluice.sink.jdbc;

import io.debezium.connector.jdbc.JdbcKafkaSinkRecord;
import io.debezium.connector.jdbc.JdbcSinkConnectorConfig;
import io.debezium.connector.jdbc.dialect.DatabaseDialect;
import io.debezium.sink.field.FieldDescriptor;
import io.sluice.sink.jdbc.types.EnumTypeOfTarget;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@code schema.evolution=basic} leaves out of Debezium's sink, for PostgreSQL, MariaDB and MySQL: Debezium adds a
 * column for a new field and nothing else, so a source column widened (int to bigint, varchar(20) to text) keeps its
 * narrow column at the sink and the first wider value fails the task, and a source column dropped keeps its NOT NULL
 * at the sink and the first row without it fails the task. Before a put is written, each table its records name is
 * brought up to their schema: a column whose field now has a wider type of the same family is altered to it
 * ({@link #widens}, {@link #binlogWidens}), and a NOT NULL column without a default that the records no longer carry
 * (and that is no key) takes NULLs. Nothing is narrowed, retyped across families or removed. Into MariaDB, a new text
 * column with a default is added here, with the default that Debezium's dialect would leave out. Each value schema is
 * looked at once per table.
 *
 * <p>MariaDB and MySQL alter a column by restating all of it ({@code MODIFY COLUMN}): the column's own definition, as
 * {@code SHOW CREATE TABLE} prints it, is restated with only its type (or its NOT NULL) changed, so that its default,
 * character set, collation and comment stay as they were.
 */
final class ColumnEvolution implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ColumnEvolution.class);
  private static final List<String> INTEGERS = List.of("smallint", "integer", "bigint");
  private static final Pattern VARCHAR = Pattern.compile("character varying\\((\\d+)\\)");
  private static final Pattern NUMERIC = Pattern.compile("numeric\\((\\d+),(\\d+)\\)");

  /** A table's column as the catalog has it. */
  private record Column(String type, boolean notNull, boolean hasDefault) {}

  private static final List<String> BINLOG_INTEGERS = List.of("tinyint", "smallint", "mediumint", "int", "bigint");
  private static final List<String> BINLOG_TEXTS = List.of("tinytext", "text", "mediumtext", "longtext");
  private static final Pattern BINLOG_INTEGER = Pattern.compile("(tinyint|smallint|mediumint|int|bigint)(\\(\\d+\\))?"
      + "( unsigned)?( zerofill)?");
  private static final Pattern BINLOG_VARCHAR = Pattern.compile("varchar\\((\\d+)\\)");
  private static final Pattern BINLOG_DECIMAL = Pattern.compile("decimal\\((\\d+),(\\d+)\\)");

  private final JdbcSinkConnectorConfig config;
  private final DatabaseDialect dialect;
  /** Whether the sink writes to MariaDB or MySQL (else PostgreSQL). */
  private final boolean binlog;
  private final String url;
  private final Properties connectionProperties;
  /** The value schemas already followed, with the tables they were followed into. */
  private final Map<Schema, Set<String>> followed = new IdentityHashMap<>();
  private Connection connection;

  private ColumnEvolution(JdbcSinkConnectorConfig config, DatabaseDialect dialect, String url,
      Properties connectionProperties) {
    this.config = config;
    this.dialect = dialect;
    this.binlog = !url.startsWith("jdbc:postgresql:");
    this.url = url;
    this.connectionProperties = connectionProperties;
  }

  /** For a PostgreSQL, MariaDB or MySQL sink with {@code schema.evolution=basic}; empty elsewhere. */
  static Optional<ColumnEvolution> forSink(JdbcSinkConnectorConfig config, DatabaseDialect dialect,
      Map<String, String> props) {
    String url = props.getOrDefault("connection.url", "");
    boolean known = url.startsWith("jdbc:postgresql:") || url.startsWith("jdbc:mariadb:")
        || url.startsWith("jdbc:mysql:");
    if (dialect == null || !known
        || config.getSchemaEvolutionMode() != JdbcSinkConnectorConfig.SchemaEvolutionMode.BASIC) {
      return Optional.empty();
    }
    Properties p = new Properties();
    for (String pair : props.getOrDefault("hibernate.agroal.jdbcProperties", "").split(";")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        p.setProperty(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
      }
    }
    if (props.get("connection.username") != null) {
      p.setProperty("user", props.get("connection.username"));
    }
    if (props.get("connection.password") != null) {
      p.setProperty("password", props.get("connection.password"));
    }
    return Optional.of(new ColumnEvolution(config, dialect, url, p));
  }

  /**
   * Brings the tables of {@code records} up to their value schemas; answers whether it altered a table (what read the
   * table's columns before must read them again). A failure is logged and leaves the put to fail as it would have.
   */
  boolean follow(List<SinkRecord> records) {
    boolean altered = false;
    for (SinkRecord r : records) {
      Schema schema = r.valueSchema();
      if (schema == null || r.value() == null) {
        continue;
      }
      Set<String> topics = followed.computeIfAbsent(schema, s -> new java.util.HashSet<>());
      if (!topics.add(r.topic())) {
        continue;
      }
      if (followed.size() > 10_000) {
        followed.clear(); // schemas not cached by their converter: look again rather than grow
      }
      JdbcKafkaSinkRecord record = new JdbcKafkaSinkRecord(r, config);
      if (record.isDelete() || record.isTombstone() || record.isSchemaChange() || record.isTruncate()) {
        topics.remove(r.topic()); // no row: the next upsert of this schema is the one to look at
        continue;
      }
      try {
        altered |= follow(record);
      } catch (SQLException | RuntimeException e) {
        topics.remove(r.topic());
        reset();
        LOG.warn("The sink table of topic {} could not be brought up to its records' schema ({}); the put goes on"
            + " as Debezium's sink writes it", r.topic(), ErrorText.of(e));
      }
    }
    return altered;
  }

  private boolean follow(JdbcKafkaSinkRecord record) throws SQLException {
    String table = config.getCollectionNamingStrategy().resolveCollectionName(record, config.getCollectionNameFormat());
    String sql = table == null ? null : binlog ? binlogTableSql(table) : CopyWriter.tableSql(config, table);
    if (sql == null) {
      return false;
    }
    Connection c = connection();
    Map<String, Column> columns = binlog ? binlogColumns(c, table) : columns(c, sql);
    if (columns.isEmpty()) {
      return false; // not made yet: Debezium makes it from these records
    }
    // Debezium's record names its non-key fields, and describes them all, only once it has named its key fields.
    java.util.Collection<String> keyFields = record.keyFieldNames();
    Map<String, FieldDescriptor> fields = record.allFields();
    List<String> keys = keyFields.stream().map(f -> column(fields, f)).toList();
    List<String> alterations = new ArrayList<>();
    Set<String> carried = new java.util.HashSet<>();
    for (String name : record.nonKeyFieldNames()) {
      FieldDescriptor field = fields.get(name);
      String column = column(fields, name);
      carried.add(column);
      Column have = columns.get(column);
      if (have == null || field == null) {
        String add = have == null && field != null ? mariaDbAddWithDefault(field) : null;
        if (add != null) {
          alterations.add(add);
        }
        continue; // any other new column is Debezium's to add
      }
      String named = dialect.getSchemaType(field.getSchema()).getTypeName(field.getSchema(), false);
      if (binlog) {
        String want = binlogNormalized(named);
        if (binlogWidens(have.type, want)) {
          alterations.add(binlogModify(c, sql, column, want));
        }
      } else if (widens(have.type, normalized(named))) {
        alterations.add("ALTER COLUMN " + CopyWriter.quote(column) + " TYPE " + normalized(named));
      }
    }
    for (Map.Entry<String, Column> e : columns.entrySet()) {
      String column = e.getKey();
      Column have = e.getValue();
      if (have.notNull && !have.hasDefault && !carried.contains(column) && !keys.contains(column)) {
        alterations.add(binlog ? binlogModify(c, sql, column, null)
            : "ALTER COLUMN " + CopyWriter.quote(column) + " DROP NOT NULL");
      }
    }
    alterations.removeIf(java.util.Objects::isNull);
    if (alterations.isEmpty()) {
      return false;
    }
    String alter = "ALTER TABLE " + sql + " " + String.join(", ", alterations);
    try (Statement s = c.createStatement()) {
      s.execute(alter);
      c.commit();
    } catch (SQLException e) {
      c.rollback();
      throw e;
    }
    LOG.info("Sink table {} brought up to the schema of topic {}: {}", sql, record.topicName(), alter);
    return true;
  }

  /**
   * The clause adding a MariaDB text column for a field with a default, with that default; null for any other field,
   * whose column Debezium's sink adds. Debezium's MySQL dialect, which its MariaDB dialect inherits, leaves out the
   * default of a text or blob column (MySQL before 8.0.13 had none there), and MariaDB then fills the rows already in
   * the table with the type's implicit default, the empty string, where the source's rows hold the default.
   */
  private String mariaDbAddWithDefault(FieldDescriptor field) {
    Schema schema = field.getSchema();
    if (!url.startsWith("jdbc:mariadb:") || schema.type() != Schema.Type.STRING
        || !(schema.defaultValue() instanceof String value)) {
      return null;
    }
    String type = binlogNormalized(dialect.getSchemaType(schema).getTypeName(schema, false));
    if (!BINLOG_TEXTS.contains(type)) {
      return null;
    }
    return "ADD COLUMN " + binlogQuote(config.getColumnNamingStrategy().resolveColumnName(field.getColumnName()))
        + " " + type + (schema.isOptional() ? " NULL" : " NOT NULL") + " DEFAULT "
        + EnumTypeOfTarget.binlogLiteral(value);
  }

  private String column(Map<String, FieldDescriptor> fields, String field) {
    FieldDescriptor d = fields.get(field);
    String name = d == null ? field : d.getColumnName();
    // MariaDB's and MySQL's column names are case-insensitive: the catalog's are looked up in lower case.
    return binlog ? config.getColumnNamingStrategy().resolveColumnName(name).toLowerCase(Locale.ROOT)
        : CopyWriter.column(config, name);
  }

  /** A MariaDB or MySQL table name as the sink's statements name it, quoted; null for more than two parts. */
  private static String binlogTableSql(String name) {
    String[] parts = io.debezium.relational.TableId.parseParts(name);
    if (parts.length > 2) {
      return null;
    }
    return java.util.Arrays.stream(parts).map(ColumnEvolution::binlogQuote)
        .collect(java.util.stream.Collectors.joining("."));
  }

  private static String binlogQuote(String identifier) {
    return '`' + identifier.replace("`", "``") + '`';
  }

  /** A MariaDB or MySQL table's columns, by lower-case name; empty where there is no such table. */
  private static Map<String, Column> binlogColumns(Connection c, String name) throws SQLException {
    String[] parts = io.debezium.relational.TableId.parseParts(name);
    Map<String, Column> out = new LinkedHashMap<>();
    try (PreparedStatement s = c.prepareStatement("SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE,"
        + " COLUMN_DEFAULT IS NOT NULL FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = COALESCE(?, DATABASE())"
        + " AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION")) {
      s.setString(1, parts.length == 2 ? parts[0] : null);
      s.setString(2, parts[parts.length - 1]);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          out.put(rs.getString(1).toLowerCase(Locale.ROOT), new Column(binlogNormalized(rs.getString(2)),
              "NO".equals(rs.getString(3)), rs.getBoolean(4)));
        }
      }
    } finally {
      c.rollback();
    }
    return out;
  }

  /**
   * The clause restating {@code column} of {@code table} as {@code SHOW CREATE TABLE} defines it, with the type
   * {@code type}, or (for null) with its own type and without its NOT NULL; null where its definition is not found.
   */
  private String binlogModify(Connection c, String table, String column, String type) throws SQLException {
    String definition = binlogDefinition(c, table, column);
    if (definition == null) {
      LOG.warn("The definition of column {} of table {} was not found; the column is left as it is", column, table);
      return null;
    }
    // The definition is the quoted name, the column's type as the catalog spells it, then its attributes.
    int name = definition.indexOf('`', 1) + 1;
    String rest = definition.substring(name).trim();
    int typeEnd = 0;
    int depth = 0;
    boolean quoted = false;
    while (typeEnd < rest.length() && (depth > 0 || quoted || rest.charAt(typeEnd) != ' ')) {
      char ch = rest.charAt(typeEnd);
      quoted ^= ch == '\'';
      depth += quoted ? 0 : ch == '(' ? 1 : ch == ')' ? -1 : 0;
      typeEnd++;
    }
    String ownType = rest.substring(0, typeEnd);
    String attributes = rest.substring(typeEnd);
    if (type == null) {
      return "MODIFY COLUMN " + definition.substring(0, name) + " " + ownType
          + attributes.replaceFirst(" NOT NULL", " NULL");
    }
    return "MODIFY COLUMN " + definition.substring(0, name) + " " + type
        + attributes.replaceFirst("^( unsigned)?( zerofill)?", "");
  }

  /** One column's definition in {@code SHOW CREATE TABLE}, without its trailing comma; null where absent. */
  private static String binlogDefinition(Connection c, String table, String column) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW CREATE TABLE " + table)) {
      if (!rs.next()) {
        return null;
      }
      for (String line : rs.getString(2).split("\n")) {
        String l = line.trim();
        if (l.startsWith("`") && l.length() > 1 && l.indexOf('`', 1) > 0
            && l.substring(1, l.indexOf('`', 1)).replace("``", "`").equalsIgnoreCase(column)) {
          return l.endsWith(",") ? l.substring(0, l.length() - 1) : l;
        }
      }
      return null;
    } finally {
      c.rollback();
    }
  }

  /**
   * A MariaDB or MySQL type name as this class compares it: lower case, without an integer's display width (MariaDB
   * prints {@code int(11)}, Debezium names {@code int}), {@code integer} as {@code int}.
   */
  static String binlogNormalized(String type) {
    String t = type.trim().toLowerCase(Locale.ROOT).replace(", ", ",");
    Matcher integer = BINLOG_INTEGER.matcher(t);
    if (integer.matches()) {
      return integer.group(1) + (integer.group(3) == null ? "" : integer.group(3))
          + (integer.group(4) == null ? "" : integer.group(4));
    }
    return t.startsWith("integer") ? "int" + t.substring("integer".length())
        : t.startsWith("numeric") ? "decimal" + t.substring("numeric".length()) : t;
  }

  /**
   * Whether a MariaDB or MySQL column of type {@code from} takes every value of {@code to} once altered to it,
   * keeping each value it holds: a wider integer (unsigned to a wider signed one too, never signed to unsigned), a
   * wider decimal, double for float, a longer varchar, a text type for a varchar (a varchar holds at most 65,535 bytes,
   * so {@code text} and up hold any) or a longer text type.
   */
  static boolean binlogWidens(String from, String to) {
    if (from.equals(to)) {
      return false;
    }
    Matcher a = BINLOG_INTEGER.matcher(from);
    Matcher b = BINLOG_INTEGER.matcher(to);
    if (a.matches() && b.matches()) {
      if (a.group(4) != null || b.group(4) != null) {
        return false; // zerofill pads to a width: leave it to the owner
      }
      int width = BINLOG_INTEGERS.indexOf(a.group(1));
      int wider = BINLOG_INTEGERS.indexOf(b.group(1));
      boolean unsignedFrom = a.group(3) != null;
      boolean unsignedTo = b.group(3) != null;
      return unsignedFrom == unsignedTo ? wider > width : unsignedFrom && wider > width;
    }
    if (from.equals("float")) {
      return to.equals("double");
    }
    Matcher varchar = BINLOG_VARCHAR.matcher(from);
    if (varchar.matches()) {
      Matcher longer = BINLOG_VARCHAR.matcher(to);
      return BINLOG_TEXTS.indexOf(to) >= 1
          || (longer.matches() && Integer.parseInt(longer.group(1)) > Integer.parseInt(varchar.group(1)));
    }
    if (BINLOG_TEXTS.contains(from)) {
      return BINLOG_TEXTS.indexOf(to) > BINLOG_TEXTS.indexOf(from);
    }
    Matcher decimal = BINLOG_DECIMAL.matcher(from);
    Matcher wider = BINLOG_DECIMAL.matcher(to);
    if (decimal.matches() && wider.matches()) {
      int p = Integer.parseInt(decimal.group(1));
      int s = Integer.parseInt(decimal.group(2));
      int p2 = Integer.parseInt(wider.group(1));
      int s2 = Integer.parseInt(wider.group(2));
      return s2 >= s && p2 - s2 >= p - s;
    }
    return false;
  }

  private static Map<String, Column> columns(Connection c, String table) throws SQLException {
    Map<String, Column> out = new LinkedHashMap<>();
    try (PreparedStatement s = c.prepareStatement("SELECT a.attname, format_type(a.atttypid, a.atttypmod),"
        + " a.attnotnull, a.atthasdef FROM pg_attribute a WHERE a.attrelid = to_regclass(?) AND a.attnum > 0"
        + " AND NOT a.attisdropped")) {
      s.setString(1, table);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          out.put(rs.getString(1), new Column(rs.getString(2), rs.getBoolean(3), rs.getBoolean(4)));
        }
      }
    } finally {
      c.rollback();
    }
    return out;
  }

  /** A type name as PostgreSQL's {@code format_type} writes it, for the names Debezium's sink gives columns. */
  static String normalized(String type) {
    String t = type.trim().toLowerCase(Locale.ROOT).replace(", ", ",");
    if (t.startsWith("varchar")) {
      return "character varying" + t.substring("varchar".length());
    }
    if (t.startsWith("decimal")) {
      return "numeric" + t.substring("decimal".length());
    }
    return switch (t) {
      case "int2" -> "smallint";
      case "int", "int4" -> "integer";
      case "int8" -> "bigint";
      case "float4" -> "real";
      case "float8", "float" -> "double precision";
      default -> t;
    };
  }

  /**
   * Whether a column of type {@code from} (as {@code format_type} writes it) takes every value of {@code to} once
   * altered to it, keeping each value it holds: a wider integer or numeric, double for real, a longer varchar or text.
   */
  static boolean widens(String from, String to) {
    if (from.equals(to)) {
      return false;
    }
    if (INTEGERS.contains(from)) {
      return INTEGERS.indexOf(to) > INTEGERS.indexOf(from) || to.equals("numeric");
    }
    if (from.equals("real")) {
      return to.equals("double precision");
    }
    Matcher varchar = VARCHAR.matcher(from);
    if (varchar.matches()) {
      Matcher longer = VARCHAR.matcher(to);
      return to.equals("text") || to.equals("character varying")
          || (longer.matches() && Integer.parseInt(longer.group(1)) > Integer.parseInt(varchar.group(1)));
    }
    Matcher numeric = NUMERIC.matcher(from);
    if (numeric.matches()) {
      Matcher wider = NUMERIC.matcher(to);
      if (to.equals("numeric")) {
        return true;
      }
      if (!wider.matches()) {
        return false;
      }
      int p = Integer.parseInt(numeric.group(1));
      int s = Integer.parseInt(numeric.group(2));
      int p2 = Integer.parseInt(wider.group(1));
      int s2 = Integer.parseInt(wider.group(2));
      return s2 >= s && p2 - s2 >= p - s;
    }
    return false;
  }

  private Connection connection() throws SQLException {
    if (connection == null) {
      connection = DriverManager.getConnection(url, connectionProperties);
      connection.setAutoCommit(false);
    }
    return connection;
  }

  private void reset() {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException ignored) {
        // Broken already; a new one is opened next time.
      }
      connection = null;
    }
  }

  @Override
  public void close() {
    reset();
  }
}
