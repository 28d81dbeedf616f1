package io.sluice.sink.jdbc;

import io.debezium.connector.jdbc.JdbcKafkaSinkRecord;
import io.debezium.connector.jdbc.JdbcSinkConnectorConfig;
import io.debezium.connector.jdbc.dialect.DatabaseDialect;
import io.debezium.sink.field.FieldDescriptor;
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
 * What {@code schema.evolution=basic} leaves out of Debezium's sink, for PostgreSQL: Debezium adds a column for a new
 * field and nothing else, so a source column widened (int to bigint, varchar(20) to text) keeps its narrow column at
 * the sink and the first wider value fails the task, and a source column dropped keeps its NOT NULL at the sink and
 * the first row without it fails the task. Before a put is written, each table its records name is brought up to
 * their schema: a column whose field now has a wider type of the same family is altered to it ({@link #widens}), and
 * a NOT NULL column without a default that the records no longer carry (and that is no key) takes NULLs. Nothing is
 * narrowed, retyped across families or removed. Each value schema is looked at once per table.
 */
final class ColumnEvolution implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ColumnEvolution.class);
  private static final List<String> INTEGERS = List.of("smallint", "integer", "bigint");
  private static final Pattern VARCHAR = Pattern.compile("character varying\\((\\d+)\\)");
  private static final Pattern NUMERIC = Pattern.compile("numeric\\((\\d+),(\\d+)\\)");

  /** A table's column as the catalog has it. */
  private record Column(String type, boolean notNull, boolean hasDefault) {}

  private final JdbcSinkConnectorConfig config;
  private final DatabaseDialect dialect;
  private final String url;
  private final Properties connectionProperties;
  /** The value schemas already followed, with the tables they were followed into. */
  private final Map<Schema, Set<String>> followed = new IdentityHashMap<>();
  private Connection connection;

  private ColumnEvolution(JdbcSinkConnectorConfig config, DatabaseDialect dialect, String url,
      Properties connectionProperties) {
    this.config = config;
    this.dialect = dialect;
    this.url = url;
    this.connectionProperties = connectionProperties;
  }

  /** For a PostgreSQL sink with {@code schema.evolution=basic}; empty elsewhere. */
  static Optional<ColumnEvolution> forSink(JdbcSinkConnectorConfig config, DatabaseDialect dialect,
      Map<String, String> props) {
    String url = props.getOrDefault("connection.url", "");
    if (dialect == null || !url.startsWith("jdbc:postgresql:")
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
    String sql = table == null ? null : CopyWriter.tableSql(config, table);
    if (sql == null) {
      return false;
    }
    Connection c = connection();
    Map<String, Column> columns = columns(c, sql);
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
        continue; // a new column is Debezium's to add
      }
      String want = normalized(dialect.getSchemaType(field.getSchema()).getTypeName(field.getSchema(), false));
      if (widens(have.type, want)) {
        alterations.add("ALTER COLUMN " + CopyWriter.quote(column) + " TYPE " + want);
      }
    }
    columns.forEach((column, have) -> {
      if (have.notNull && !have.hasDefault && !carried.contains(column) && !keys.contains(column)) {
        alterations.add("ALTER COLUMN " + CopyWriter.quote(column) + " DROP NOT NULL");
      }
    });
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

  private String column(Map<String, FieldDescriptor> fields, String field) {
    FieldDescriptor d = fields.get(field);
    return CopyWriter.column(config, d == null ? field : d.getColumnName());
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
