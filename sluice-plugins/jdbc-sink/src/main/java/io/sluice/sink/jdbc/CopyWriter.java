package io.sluice.sink.jdbc;

import io.debezium.connector.jdbc.JdbcKafkaSinkRecord;
import io.debezium.connector.jdbc.JdbcSinkConnectorConfig;
import io.debezium.connector.jdbc.dialect.DatabaseDialect;
import io.debezium.connector.jdbc.type.JdbcType;
import io.debezium.relational.TableId;
import io.debezium.sink.SinkConnectorConfig.PrimaryKeyMode;
import io.debezium.sink.column.ColumnDescriptor;
import io.sluice.sink.jdbc.types.InfiniteTemporalType;
import io.debezium.sink.field.FieldDescriptor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;
import org.postgresql.core.BaseConnection;

/**
 * Writes a put's upserts and deletes into PostgreSQL by COPY: each table's rows go into a temporary staging table,
 * then into the table by one {@code INSERT … SELECT … ON CONFLICT DO UPDATE}, and its deletes by one
 * {@code DELETE … USING} over a staging table of keys, all in one transaction. Debezium's sink sends the same changes
 * as one upsert or delete statement per row in JDBC batches.
 *
 * <p>Only what ends exactly as Debezium's writes end is written here; {@link #write} writes nothing of anything else,
 * and the caller hands the put to Debezium's sink. Each key's last change in the put is the one applied, upserts before
 * deletes, as Debezium's reduction buffer does ({@link PutChanges}). Values go only where {@link CopyText} proves the
 * column gets Debezium's value. A table is used only when it exists and has a column for every field: creating and
 * altering tables stays with Debezium, which does it on the put that needs it, and this writer reads the table's
 * columns again after that.
 */
final class CopyWriter implements BulkWriter {
  /** A table as this writer found it in the catalog: its name in SQL and each column's type. */
  private record Table(String sql, Map<String, ColumnType> columnTypes) {}

  /**
   * A column's type: its {@code typname} (a domain's base type's, as the driver's metadata gives Debezium), the
   * column's full type as SQL, with its length or precision, and as SQL without them.
   */
  private record ColumnType(String name, String sql, String unmodified) {}

  /** How one put's records for one table are written: the columns and how each is copied, key columns first. */
  private record Plan(Table table, List<Field> fields, List<String> columns, List<CopyText.Column> copied,
      int keyCount) {}

  /** One table's upserts or deletes of a put in COPY's text, upserts before deletes as Debezium flushes them. */
  private record Staged(Plan plan, boolean deletes, String text, int rows) {}

  private final JdbcSinkConnectorConfig config;
  private final SinkConnection sinkConnection;
  private final boolean fixedOffsetZone;
  /** The task's dialect with its own column types; null where it has none, and source-typed fields go Debezium's way. */
  private final DatabaseDialect dialect;
  /** Whether the open connection's driver sends a string as {@code varchar} (its {@code stringtype}). */
  private boolean varcharStrings;
  /**
   * A type {@code t} of namespace {@code n} as SQL without length or precision: by its own name, as
   * {@code format_type(oid, NULL)}'s {@code character} and {@code bit} would mean {@code char(1)} and {@code bit(1)}.
   */
  private static final String UNMODIFIED = "quote_ident(n.nspname) || '.' || quote_ident(t.typname)";
  /** The type each cast of the open connection's bindings casts to, as SQL without length or precision. */
  private final Map<String, Optional<String>> castTypes = new HashMap<>();
  private final Map<String, Table> tables = new HashMap<>();
  /** Staging tables of the open connection, by the target table and columns they stage. */
  private final Map<String, String> staging = new HashMap<>();
  private Connection connection;
  /** Characters of COPY text a row took in the last put: the next put's buffer is sized by it. */
  private int rowChars = 64;
  /** Read by the worker's metrics reporters. */
  private volatile long rows;

  CopyWriter(JdbcSinkConnectorConfig config, DatabaseDialect dialect, SinkConnection sinkConnection) {
    this.config = config;
    this.dialect = dialect;
    this.sinkConnection = sinkConnection;
    this.fixedOffsetZone = CopyText.fixedOffset(config.useTimeZone());
  }

  /** A writer for a sink whose settings this writer can follow: PostgreSQL, upserts, keys from the record. */
  static Optional<CopyWriter> forSink(JdbcSinkConnectorConfig config, DatabaseDialect dialect,
      Map<String, String> props) {
    SinkConnection connection = SinkConnection.of(props);
    if (!connection.url().startsWith("jdbc:postgresql:") || !upsertsByKey(config)) {
      return Optional.empty();
    }
    return Optional.of(new CopyWriter(config, dialect, connection));
  }

  /** Whether the sink upserts rows by a key of the record's, the only writes the sink's own writers take. */
  static boolean upsertsByKey(JdbcSinkConnectorConfig config) {
    return config.getInsertMode() == JdbcSinkConnectorConfig.InsertMode.UPSERT
        && (config.getPrimaryKeyMode() == PrimaryKeyMode.RECORD_KEY
        || config.getPrimaryKeyMode() == PrimaryKeyMode.RECORD_VALUE);
  }

  @Override
  public long rows() {
    return rows;
  }

  @Override
  public Outcome write(List<SinkRecord> records) throws SQLException {
    try {
      return writeIfProvable(records);
    } catch (SQLException | IOException | RuntimeException e) {
      reset(); // a table changed under us, the connection broke: read it all again next time
      if (e instanceof SQLException sql) {
        throw sql;
      }
      throw new SQLException("COPY into the sink failed: " + e, e);
    }
  }

  private Outcome writeIfProvable(List<SinkRecord> records) throws SQLException, IOException {
    Optional<Map<String, PutChanges.Changes>> changed = PutChanges.byTable(records, config);
    if (changed.isEmpty()) {
      return Outcome.REFUSED;
    }
    Map<String, PutChanges.Changes> byTable = changed.get();
    Connection c = connection();
    // Every table's plan and every value's text before anything is sent: one field or value without a provable
    // text sends the whole put Debezium's way.
    List<Staged> staged = new ArrayList<>();
    for (Map.Entry<String, PutChanges.Changes> e : byTable.entrySet()) {
      Optional<Table> table = table(c, e.getKey());
      if (table.isEmpty()) {
        return tableSql(config, e.getKey()) == null ? Outcome.REFUSED : Outcome.NO_TABLE;
      }
      for (Map<Struct, JdbcKafkaSinkRecord> changes : List.of(e.getValue().upserts, e.getValue().deletes)) {
        if (changes.isEmpty()) {
          continue;
        }
        boolean deletes = changes == e.getValue().deletes;
        Optional<Plan> plan = plan(c, table.get(), changes.values(), deletes);
        Optional<String> text = plan.flatMap(p -> copyText(p, changes));
        if (text.isEmpty()) {
          return Outcome.REFUSED;
        }
        staged.add(new Staged(plan.get(), deletes, text.get(), changes.size()));
      }
    }
    CopyManager copy = c.unwrap(PGConnection.class).getCopyAPI();
    for (Staged s : staged) {
      String stage = stage(c, s.plan);
      // Bytes, not the driver's Reader overload: that one encodes each 65,536 characters on their own, so a character
      // outside the BMP whose surrogate pair straddles two of them would reach the table as '?'.
      copy.copyIn("COPY " + stage + " (" + String.join(",", s.plan.columns) + ") FROM STDIN",
          new ByteArrayInputStream(s.text.getBytes(StandardCharsets.UTF_8)));
      try (Statement statement = c.createStatement()) {
        statement.executeUpdate(s.deletes ? delete(s.plan, stage) : merge(s.plan, stage));
      }
    }
    c.commit();
    rows += staged.stream().mapToLong(Staged::rows).sum();
    return Outcome.WRITTEN;
  }

  /** The staged rows' text, or empty when a value has no text provably equal to Debezium's. */
  private Optional<String> copyText(Plan plan, Map<Struct, JdbcKafkaSinkRecord> records) {
    // Sized by the last put's rows, so that a wide row's text is not copied again at every doubling of the buffer.
    StringBuilder out = new StringBuilder((int) Math.min(1 << 26, (long) records.size() * (rowChars + rowChars / 8)));
    for (JdbcKafkaSinkRecord record : records.values()) {
      Struct key = record.filteredKey();
      Struct payload = plan.fields.size() > plan.keyCount ? record.getPayload() : null;
      for (int i = 0; i < plan.fields.size(); i++) {
        // Fields of an equal schema, so at the same index in every record's struct.
        Field field = plan.fields.get(i);
        Struct source = i < plan.keyCount ? key : payload;
        Object value = value(source, field);
        if (i > 0) {
          out.append('\t');
        }
        if (value == null) {
          out.append(CopyText.NULL);
        } else {
          Optional<String> text = plan.copied.get(i).encoder().text(value);
          if (text.isEmpty()) {
            return Optional.empty();
          }
          CopyText.appendField(out, text.get());
        }
      }
      out.append('\n');
    }
    rowChars = Math.max(64, out.length() / records.size());
    return Optional.of(out.toString());
  }

  /** As Debezium binds: an optional field's own value, null included; a required one's value or default. */
  private static Object value(Struct source, Field field) {
    return field.schema().isOptional() && field.schema().defaultValue() != null
        ? source.getWithoutDefault(field.name()) : source.get(field);
  }

  /**
   * The plan for {@code records} of one table, or empty when they differ in schema (Debezium alters the table
   * between them) or a field has no column or no provable text.
   */
  private Optional<Plan> plan(Connection c, Table table, Iterable<JdbcKafkaSinkRecord> records, boolean keysOnly)
      throws SQLException {
    JdbcKafkaSinkRecord first = records.iterator().next();
    first.keyFieldNames(); // Debezium's record names its non-key fields only after its key fields
    for (JdbcKafkaSinkRecord r : records) {
      if (!Objects.equals(r.filteredKey().schema(), first.filteredKey().schema())
          || (!keysOnly && !Objects.equals(r.getPayload().schema(), first.getPayload().schema()))) {
        return Optional.empty();
      }
    }
    List<Field> fields = new ArrayList<>(first.filteredKey().schema().fields());
    int keyCount = fields.size();
    if (!keysOnly) {
      for (String name : first.nonKeyFieldNames()) {
        fields.add(first.getPayload().schema().field(name));
      }
    }
    Map<String, FieldDescriptor> descriptors = first.allFields();
    List<String> columns = new ArrayList<>();
    List<CopyText.Column> copied = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) {
      Field field = fields.get(i);
      FieldDescriptor descriptor = descriptors.get(field.name());
      String column = column(descriptor == null ? field.name() : descriptor.getColumnName());
      ColumnType type = table.columnTypes.get(column);
      if (type == null) {
        tables.values().remove(table); // a new field: Debezium adds its column, then this writer reads the table again
        return Optional.empty();
      }
      Optional<CopyText.Column> how = CopyText.encoder(field.schema(), type.name(), fixedOffsetZone)
          .map(encoder -> new CopyText.Column(encoder, null, "?"));
      if (how.isEmpty() && dialect != null) {
        how = bound(c, field, column, type, records, i < keyCount);
      }
      if (how.isEmpty()) {
        return Optional.empty();
      }
      columns.add(quote(column));
      copied.add(how.get());
    }
    return Optional.of(new Plan(table, fields, columns, copied, keyCount));
  }

  /**
   * How {@code field} is copied as the task's dialect binds it ({@link CopyText#bound}): its type for the field's
   * schema, and that type's query binding for the column, asked as Debezium's statement asks it, with a value of the
   * put's.
   */
  private Optional<CopyText.Column> bound(Connection c, Field field, String column, ColumnType type,
      Iterable<JdbcKafkaSinkRecord> records, boolean key) throws SQLException {
    // A value that binds as the field's type, not an infinity bound as its text (CopyText.bound takes those too).
    String schemaName = String.valueOf(field.schema().name());
    Object sample = null;
    for (JdbcKafkaSinkRecord r : records) {
      Object value = value(key ? r.filteredKey() : r.getPayload(), field);
      if (value != null && InfiniteTemporalType.infinity(schemaName, value) == null) {
        sample = value;
        break;
      }
      if (sample == null) {
        sample = value;
      }
    }
    JdbcType jdbcType;
    String binding;
    try {
      jdbcType = dialect.getSchemaType(field.schema());
      ColumnDescriptor descriptor = ColumnDescriptor.builder().columnName(column).typeName(type.name()).build();
      binding = jdbcType.getQueryBinding(descriptor, field.schema(), sample);
    } catch (RuntimeException e) {
      return Optional.empty(); // a type Debezium's path fails on, as it always has
    }
    String untypedAs = null;
    if (!varcharStrings && binding != null) {
      Optional<String> context = binding.equals("?") ? Optional.of(type.unmodified()) : castType(c, binding);
      if (context.isEmpty()) {
        return Optional.empty();
      }
      untypedAs = context.get();
    }
    return CopyText.bound(jdbcType, field.schema(), binding, sample, untypedAs);
  }

  /**
   * The type {@code binding}, {@code cast(? as X)}, casts to, as the server names it without length or precision
   * ({@code timestamp(6) with time zone} is {@code timestamp with time zone}); empty for another binding or a type the
   * server does not know.
   */
  private Optional<String> castType(Connection c, String binding) throws SQLException {
    String prefix = "cast(? as ";
    if (!binding.startsWith(prefix) || !binding.endsWith(")")) {
      return Optional.empty();
    }
    String type = binding.substring(prefix.length(), binding.length() - 1);
    Optional<String> known = castTypes.get(type);
    if (known == null) {
      try (PreparedStatement s = c.prepareStatement("SELECT " + UNMODIFIED + " FROM pg_type t JOIN pg_namespace n"
          + " ON n.oid = t.typnamespace WHERE t.oid = to_regtype(?)")) {
        s.setString(1, type);
        try (ResultSet rs = s.executeQuery()) {
          known = Optional.ofNullable(rs.next() ? rs.getString(1) : null);
        }
      } finally {
        c.rollback(); // nothing to keep, and no transaction left open before the COPY's
      }
      castTypes.put(type, known);
    }
    return known;
  }

  private String column(String field) {
    return column(config, field);
  }

  /** A column's name as PostgreSQL holds it: Debezium's naming, folded to lower case unless identifiers are quoted. */
  static String column(JdbcSinkConnectorConfig config, String field) {
    String name = config.getColumnNamingStrategy().resolveColumnName(field);
    return config.isQuoteIdentifiers() ? name : foldAscii(name);
  }

  /** PostgreSQL folds an unquoted identifier's ASCII letters, and only those, to lower case. */
  private static String foldAscii(String name) {
    StringBuilder out = new StringBuilder(name.length());
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      out.append(c >= 'A' && c <= 'Z' ? (char) (c + 32) : c);
    }
    return out.toString();
  }

  static String quote(String identifier) {
    return '"' + identifier.replace("\"", "\"\"") + '"';
  }

  /**
   * The table Debezium's statements name, as the server resolves that name (schema, else the search path); empty
   * when there is none yet or the name is not one this writer can write as Debezium does.
   */
  private Optional<Table> table(Connection c, String name) throws SQLException {
    Table known = tables.get(name);
    if (known != null) {
      return Optional.of(known);
    }
    String sql = tableSql(config, name);
    if (sql == null) {
      return Optional.empty();
    }
    Map<String, ColumnType> columns = new HashMap<>();
    try (PreparedStatement s = c.prepareStatement("SELECT a.attname, coalesce(b.typname, t.typname),"
        + " format_type(a.atttypid, a.atttypmod), " + UNMODIFIED + " FROM pg_attribute a JOIN pg_type t"
        + " ON t.oid = a.atttypid JOIN pg_namespace n ON n.oid = t.typnamespace"
        + " LEFT JOIN pg_type b ON t.typtype = 'd' AND b.oid = t.typbasetype"
        + " WHERE a.attrelid = to_regclass(?) AND a.attnum > 0 AND NOT a.attisdropped")) {
      s.setString(1, sql);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          columns.put(rs.getString(1), new ColumnType(rs.getString(2), rs.getString(3), rs.getString(4)));
        }
      }
    } finally {
      c.rollback(); // nothing to keep, and no transaction left open on the sink database
    }
    if (columns.isEmpty()) {
      return Optional.empty();
    }
    Table table = new Table(sql, Map.copyOf(columns));
    tables.put(name, table);
    return Optional.of(table);
  }

  /**
   * The table Debezium's statements name, quoted as PostgreSQL holds it (schema, else the search path resolves it);
   * null for a name of more than two parts, which this sink does not write as Debezium does.
   */
  static String tableSql(JdbcSinkConnectorConfig config, String name) {
    String[] parts = TableId.parseParts(name);
    if (parts.length > 2) {
      return null;
    }
    return Arrays.stream(parts).map(p -> quote(config.isQuoteIdentifiers() ? p : foldAscii(p)))
        .collect(Collectors.joining("."));
  }

  /**
   * A temporary table with the plan's columns, emptied at every commit: each of the type its column is staged in, the
   * target column's own where the plan names none.
   */
  private String stage(Connection c, Plan plan) throws SQLException {
    List<String> definitions = new ArrayList<>();
    for (int i = 0; i < plan.columns.size(); i++) {
      String column = plan.columns.get(i);
      String type = plan.copied.get(i).stageType();
      definitions.add(column + " " + (type != null ? type
          : plan.table.columnTypes.get(unquote(column)).sql()));
    }
    String key = plan.table.sql + " " + definitions;
    String name = staging.get(key);
    if (name == null) {
      name = "sluice_stage_" + (staging.size() + 1);
      try (Statement s = c.createStatement()) {
        s.execute("CREATE TEMP TABLE " + name + " (" + String.join(",", definitions) + ") ON COMMIT DELETE ROWS");
      }
      staging.put(key, name);
    }
    return name;
  }

  private static String unquote(String quoted) {
    return quoted.substring(1, quoted.length() - 1).replace("\"\"", "\"");
  }

  /** Each staged column as the plan writes it: through its binding, {@code prefix} before the column's name. */
  private static List<String> expressions(Plan plan, String prefix) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < plan.columns.size(); i++) {
      out.add(plan.copied.get(i).expression(prefix + plan.columns.get(i)));
    }
    return out;
  }

  /** Debezium's upsert, for every staged row at once, each value through the binding Debezium's statement has. */
  private static String merge(Plan plan, String stage) {
    String columns = String.join(",", plan.columns);
    String keys = String.join(",", plan.columns.subList(0, plan.keyCount));
    List<String> values = plan.columns.subList(plan.keyCount, plan.columns.size());
    return "INSERT INTO " + plan.table.sql + " (" + columns + ") SELECT " + String.join(",", expressions(plan, ""))
        + " FROM " + stage + " ON CONFLICT (" + keys + ") " + (values.isEmpty() ? "DO NOTHING" : "DO UPDATE SET "
        + values.stream().map(v -> v + "=EXCLUDED." + v).collect(Collectors.joining(",")));
  }

  /** Debezium's delete by key, for every staged key at once. */
  private static String delete(Plan plan, String stage) {
    List<String> keys = expressions(plan, "s.");
    List<String> matches = new ArrayList<>();
    for (int i = 0; i < plan.columns.size(); i++) {
      matches.add("t." + plan.columns.get(i) + " = " + keys.get(i));
    }
    return "DELETE FROM " + plan.table.sql + " t USING " + stage + " s WHERE " + String.join(" AND ", matches);
  }

  private Connection connection() throws SQLException {
    if (connection == null) {
      connection = sinkConnection.open();
      varcharStrings = connection.unwrap(BaseConnection.class).getStringVarcharFlag();
    }
    return connection;
  }

  /** Forgets the connection, its staging tables and what the catalog said. */
  private void reset() {
    tables.clear();
    castTypes.clear();
    staging.clear();
    SinkConnection.discard(connection);
    connection = null;
  }

  @Override
  public void forgetTables() {
    reset();
  }

  @Override
  public void close() {
    reset();
  }
}
