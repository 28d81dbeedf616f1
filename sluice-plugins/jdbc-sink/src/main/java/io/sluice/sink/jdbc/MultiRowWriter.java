package io.sluice.sink.jdbc;

import io.debezium.connector.jdbc.JdbcKafkaSinkRecord;
import io.debezium.connector.jdbc.JdbcSinkConnectorConfig;
import io.debezium.connector.jdbc.PreparedStatementQueryBinder;
import io.debezium.connector.jdbc.dialect.DatabaseDialect;
import io.debezium.connector.jdbc.dialect.DialectStatements;
import io.debezium.connector.jdbc.field.JdbcFieldDescriptor;
import io.debezium.connector.jdbc.relational.TableDescriptor;
import io.debezium.connector.jdbc.type.JdbcType;
import io.debezium.metadata.CollectionId;
import io.debezium.sink.column.ColumnDescriptor;
import io.debezium.sink.valuebinding.ValueBindDescriptor;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Writes a put's upserts into MariaDB or MySQL as a few {@code INSERT … VALUES (…),(…),… ON DUPLICATE KEY UPDATE …}
 * statements of many rows each, and its deletes as {@code DELETE … WHERE (…) OR (…) …}, all in one transaction.
 * Debezium's sink sends the same changes as one statement a row in a JDBC batch, which MariaDB Connector/J sends as
 * that many statements (it has no batch rewrite), each parsed and run on its own.
 *
 * <p>Each row is written with exactly what Debezium's statement for it has. The statement is Debezium's own, made by
 * the task's dialect for the table's first record, with its tuple of values repeated: the table's name, the columns,
 * each column's binding expression ({@code ?}, or the dialect's cast of it) and the update clause are the dialect's. A
 * delete repeats Debezium's {@code WHERE} condition, one for each key. Every value is bound as Debezium's writer binds
 * it: by the dialect's {@code bindValue} for the field, each bound value set on the statement by Debezium's own
 * {@link PreparedStatementQueryBinder}, into a statement of the same driver, connected with the sink's URL and
 * driver properties. The driver sends each parameter as it sends Debezium's (MariaDB Connector/J, by default, writes
 * them into the statement's text as literals, escaped by the session's {@code sql_mode}), and the server reads each
 * in the same expression against the same column, so a row gets the same value either way.
 *
 * <p>What this writer leaves to Debezium's path, writing nothing of the put: any change but a keyed upsert or delete
 * ({@link PutChanges}, whose reduction is the one {@link CopyWriter} applies); a table not there yet
 * ({@link Outcome#NO_TABLE}: Debezium makes it) or missing a column for a field (Debezium adds it); records of one
 * table whose schemas differ; a value whose binding expression differs from the first record's, as Debezium's batch
 * would bind it through the first record's; a value that binds to another number of parameters than the tuple holds;
 * and NULL for a column that is NOT NULL: one row's statement refuses it, where a statement of many rows would, outside
 * strict mode, write the column's implicit default instead.
 */
final class MultiRowWriter implements BulkWriter {
  /** Rows at most in one statement: larger statements gained nothing measurable. */
  static final int MAX_ROWS = 1000;
  /** Parameters of one statement at most, the server's limit for a prepared statement. */
  private static final int MAX_PARAMETERS = 65_535;
  /** Statements kept prepared on the connection, by their text (a full chunk's and the last chunk's of each plan). */
  private static final int MAX_PREPARED = 16;

  /**
   * One field of a plan: where its value comes from ({@code source}, a field of the key's or the payload's schema, the
   * same in every record of the plan), its column, the dialect's type for its schema and its binding expression.
   */
  private record Bound(Field source, boolean key, JdbcFieldDescriptor field, ColumnDescriptor column, JdbcType type,
      String binding) {}

  /**
   * How one table's upserts or deletes of a put are written: the statement's text before, between and after its rows
   * ({@code head}, {@code row} repeated with {@code separator}, {@code tail}), the parameters of one row, and the
   * fields bound in each row in Debezium's order.
   */
  private record Plan(String head, String row, String separator, String tail, int parameters, List<Bound> fields) {
    String sql(int rows) {
      StringBuilder out = new StringBuilder(head.length() + tail.length() + rows * (row.length() + separator.length()));
      out.append(head).append(row);
      for (int i = 1; i < rows; i++) {
        out.append(separator).append(row);
      }
      return out.append(tail).toString();
    }
  }

  /** A put's value the plan cannot provably write as Debezium would: the put goes Debezium's way. */
  private static final class Refused extends Exception {
    Refused() {
      super(null, null, false, false);
    }
  }

  private final JdbcSinkConnectorConfig config;
  private final DatabaseDialect dialect;
  private final SinkConnection sinkConnection;
  private final Map<String, TableDescriptor> tables = new HashMap<>();
  private final Map<String, PreparedStatement> prepared = new LinkedHashMap<>();
  private Connection connection;
  /** Bytes of statement text one statement may take: half the server's {@code max_allowed_packet}. */
  private long statementBytes;
  /** Read by the worker's metrics reporters. */
  private volatile long rows;

  MultiRowWriter(JdbcSinkConnectorConfig config, DatabaseDialect dialect, SinkConnection sinkConnection) {
    this.config = config;
    this.dialect = dialect;
    this.sinkConnection = sinkConnection;
  }

  /** A writer for a MariaDB or MySQL sink that upserts by the record's key, with a dialect of Debezium's make. */
  static Optional<MultiRowWriter> forSink(JdbcSinkConnectorConfig config, DatabaseDialect dialect,
      Map<String, String> props) {
    SinkConnection connection = SinkConnection.of(props);
    boolean binlog = connection.url().startsWith("jdbc:mariadb:") || connection.url().startsWith("jdbc:mysql:");
    if (!binlog || dialect == null || !DialectStatements.supports(dialect) || !CopyWriter.upsertsByKey(config)) {
      return Optional.empty();
    }
    return Optional.of(new MultiRowWriter(config, dialect, connection));
  }

  @Override
  public long rows() {
    return rows;
  }

  @Override
  public Outcome write(List<SinkRecord> records) throws SQLException {
    try {
      Outcome outcome = writeIfProvable(records);
      if (outcome != Outcome.WRITTEN && connection != null) {
        connection.rollback();
      }
      return outcome;
    } catch (SQLException | RuntimeException e) {
      reset(); // a table changed under us, the connection broke: read it all again next time
      throw e;
    }
  }

  private Outcome writeIfProvable(List<SinkRecord> records) throws SQLException {
    Optional<Map<String, PutChanges.Changes>> changed = PutChanges.byTable(records, config);
    if (changed.isEmpty()) {
      return Outcome.REFUSED;
    }
    Connection c = connection();
    // Every table read and every plan made before the first row is sent: reading a table the writer has not seen
    // (its first put, or after a reset) ends the transaction, which would drop the rows written before it in the put.
    List<Map.Entry<Plan, Collection<JdbcKafkaSinkRecord>>> planned = new ArrayList<>();
    for (Map.Entry<String, PutChanges.Changes> e : changed.get().entrySet()) {
      Optional<TableDescriptor> table = table(c, e.getKey());
      if (table.isEmpty()) {
        return Outcome.NO_TABLE;
      }
      for (Map<Struct, JdbcKafkaSinkRecord> changes : List.of(e.getValue().upserts, e.getValue().deletes)) {
        if (changes.isEmpty()) {
          continue;
        }
        boolean deletes = changes == e.getValue().deletes;
        Optional<Plan> plan = plan(e.getKey(), table.get(), changes.values(), deletes);
        if (plan.isEmpty()) {
          return Outcome.REFUSED;
        }
        planned.add(Map.entry(plan.get(), changes.values()));
      }
    }
    long written = 0;
    for (Map.Entry<Plan, Collection<JdbcKafkaSinkRecord>> p : planned) {
      try {
        write(c, p.getKey(), p.getValue());
      } catch (Refused refused) {
        return Outcome.REFUSED;
      }
      written += p.getValue().size();
    }
    c.commit();
    rows += written;
    return Outcome.WRITTEN;
  }

  /**
   * The plan for {@code records} of one table, or empty where they differ in schema, a field has no column, or
   * Debezium's statement is not of the shape this writer repeats.
   */
  private Optional<Plan> plan(String tableName, TableDescriptor table, Collection<JdbcKafkaSinkRecord> records,
      boolean deletes) {
    // A tombstone names no columns, from which Debezium's statement is made: a delete event is the statement's record.
    JdbcKafkaSinkRecord first = records.stream().filter(r -> !r.isTombstone()).findFirst().orElse(null);
    if (first == null) {
      return Optional.empty();
    }
    for (JdbcKafkaSinkRecord r : records) {
      if (!Objects.equals(r.filteredKey().schema(), first.filteredKey().schema())
          || (!deletes && !Objects.equals(r.getPayload().schema(), first.getPayload().schema()))) {
        return Optional.empty(); // Debezium alters the table between them
      }
    }
    if (!deletes && !dialect.resolveMissingFields(first, table).isEmpty()) {
      tables.remove(tableName); // Debezium adds the columns; read the table again after that
      return Optional.empty();
    }
    List<Bound> fields = new ArrayList<>();
    List<String> names = new ArrayList<>(first.keyFieldNames());
    int keyCount = names.size();
    if (!deletes) {
      names.addAll(first.nonKeyFieldNames());
    }
    Map<String, JdbcFieldDescriptor> descriptors = first.jdbcFields();
    for (int i = 0; i < names.size(); i++) {
      String name = names.get(i);
      JdbcFieldDescriptor field = descriptors.get(name);
      ColumnDescriptor column = field == null ? null
          : table.getColumnByName(DialectStatements.columnName(dialect, field));
      if (column == null) {
        tables.remove(tableName);
        return Optional.empty();
      }
      Struct source = i < keyCount ? first.filteredKey() : first.getPayload();
      fields.add(new Bound(source.schema().field(name), i < keyCount, field, column,
          dialect.getSchemaType(field.getSchema()), DialectStatements.queryBinding(dialect, name, table, first)));
    }
    return deletes ? deletePlan(table, first, fields) : upsertPlan(table, first, fields);
  }

  /** Debezium's upsert for {@code first}, its tuple of values repeated for each row. */
  private Optional<Plan> upsertPlan(TableDescriptor table, JdbcKafkaSinkRecord first, List<Bound> fields) {
    String sql = dialect.getUpsertStatement(table, first);
    String before = ") VALUES ";
    int start = sql.indexOf(before) + before.length();
    if (!sql.startsWith("INSERT INTO ") || start < before.length() || sql.indexOf(before, start) >= 0) {
      return Optional.empty();
    }
    List<String> bindings = fields.stream().map(Bound::binding).toList();
    for (String separator : List.of(", ", ",")) {
      String row = "(" + String.join(separator, bindings) + ")";
      if (sql.startsWith(row, start)) {
        return Optional.of(new Plan(sql.substring(0, start), row, ",", sql.substring(start + row.length()),
            placeholders(row), fields));
      }
    }
    return Optional.empty();
  }

  /** Debezium's delete for {@code first}, its condition repeated for each key, any of which deletes a row. */
  private Optional<Plan> deletePlan(TableDescriptor table, JdbcKafkaSinkRecord first, List<Bound> fields) {
    String sql = dialect.getDeleteStatement(table, first);
    String head = "DELETE FROM " + DialectStatements.tableName(dialect, table.getId()) + " WHERE ";
    if (!sql.startsWith(head) || sql.length() == head.length()) {
      return Optional.empty();
    }
    String row = "(" + sql.substring(head.length()) + ")";
    return Optional.of(new Plan(head, row, " OR ", "", placeholders(row), fields));
  }

  private static int placeholders(String sql) {
    int n = 0;
    for (int i = 0; i < sql.length(); i++) {
      if (sql.charAt(i) == '?') {
        n++;
      }
    }
    return n;
  }

  /** Writes {@code records} by {@code plan}, as many rows a statement as fit. */
  private void write(Connection c, Plan plan, Collection<JdbcKafkaSinkRecord> records) throws SQLException, Refused {
    int maxRows = Math.max(1, Math.min(MAX_ROWS, MAX_PARAMETERS / Math.max(1, plan.parameters)));
    List<JdbcKafkaSinkRecord> chunk = new ArrayList<>(Math.min(maxRows, records.size()));
    long bytes = plan.head.length() + plan.tail.length();
    for (JdbcKafkaSinkRecord record : records) {
      long rowBytes = plan.row.length() + plan.separator.length() + textBytes(plan, record);
      if (!chunk.isEmpty() && (chunk.size() == maxRows || bytes + rowBytes > statementBytes)) {
        execute(c, plan, chunk);
        chunk.clear();
        bytes = plan.head.length() + plan.tail.length();
      }
      chunk.add(record);
      bytes += rowBytes;
    }
    execute(c, plan, chunk);
  }

  private void execute(Connection c, Plan plan, List<JdbcKafkaSinkRecord> chunk) throws SQLException, Refused {
    PreparedStatement statement = statement(c, plan.sql(chunk.size()));
    PreparedStatementQueryBinder binder = new PreparedStatementQueryBinder(statement);
    int index = 1;
    for (JdbcKafkaSinkRecord record : chunk) {
      int next = bind(plan, record, binder, index);
      if (next - index != plan.parameters) {
        throw new Refused();
      }
      index = next;
    }
    statement.executeUpdate();
  }

  /**
   * Binds {@code record}'s values from {@code index} on, as Debezium's writer binds them, and returns the index after
   * them; refuses a value Debezium's statement would bind with another expression, or a NULL for a NOT NULL column.
   */
  private int bind(Plan plan, JdbcKafkaSinkRecord record, PreparedStatementQueryBinder binder, int index)
      throws Refused {
    Struct key = record.filteredKey();
    Struct payload = plan.fields.size() > 0 && !plan.fields.get(plan.fields.size() - 1).key ? record.getPayload()
        : null;
    for (Bound b : plan.fields) {
      Struct source = b.key ? key : payload;
      // Debezium reads a value one way for its binding expression (with the default) and another for its bound value
      // (an optional field's own, null included).
      Object withDefault = source.get(b.source);
      Object value = b.source.schema().isOptional() && withDefault != null && b.source.schema().defaultValue() != null
          ? source.getWithoutDefault(b.source.name()) : withDefault;
      if (!b.binding.equals(b.field.getQueryBinding(b.column, withDefault, b.type))
          || value == null && b.column.getNullability() != ColumnDescriptor.Nullability.NULL) {
        throw new Refused();
      }
      // The dialect's bindValue, its type for the field's schema looked up once for the plan rather than each value.
      List<ValueBindDescriptor> bound = b.field.bind(index, value, b.type);
      for (ValueBindDescriptor v : bound) {
        binder.bind(v);
      }
      index += bound.size();
    }
    return index;
  }

  /** At most the bytes the row's values take in the statement's text: escaped, in UTF-8, binary as hex. */
  private static long textBytes(Plan plan, JdbcKafkaSinkRecord record) {
    long bytes = 0;
    Struct key = record.filteredKey();
    Struct payload = null;
    for (Bound b : plan.fields) {
      if (!b.key && payload == null) {
        payload = record.getPayload();
      }
      Object value = (b.key ? key : payload).get(b.source);
      if (value instanceof String s) {
        bytes += 3L * s.length() + 16;
      } else if (value instanceof byte[] array) {
        bytes += 2L * array.length + 16;
      } else if (value instanceof ByteBuffer buffer) {
        bytes += 2L * buffer.capacity() + 16;
      } else {
        bytes += 64;
      }
    }
    return bytes;
  }

  private PreparedStatement statement(Connection c, String sql) throws SQLException {
    PreparedStatement statement = prepared.get(sql);
    if (statement == null) {
      if (prepared.size() >= MAX_PREPARED) {
        closeStatements();
      }
      statement = c.prepareStatement(sql);
      prepared.put(sql, statement);
    }
    return statement;
  }

  /** The table Debezium's statements name, as the dialect reads it; empty when there is none yet. */
  private Optional<TableDescriptor> table(Connection c, String name) throws SQLException {
    TableDescriptor known = tables.get(name);
    if (known != null) {
      return Optional.of(known);
    }
    CollectionId id = dialect.getCollectionId(name);
    try {
      if (!dialect.tableExists(c, id)) {
        return Optional.empty();
      }
      TableDescriptor table = dialect.readTable(c, id);
      tables.put(name, table);
      return Optional.of(table);
    } finally {
      c.rollback(); // nothing to keep, and no transaction left open on the sink database
    }
  }

  private Connection connection() throws SQLException {
    if (connection == null) {
      Connection c = sinkConnection.open();
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT @@max_allowed_packet")) {
        statementBytes = rs.next() ? Math.max(64 * 1024, rs.getLong(1) / 2) : 1 << 20;
        c.rollback();
      } catch (SQLException e) {
        c.close();
        throw e;
      }
      connection = c;
    }
    return connection;
  }

  private void closeStatements() {
    for (PreparedStatement s : prepared.values()) {
      try {
        s.close();
      } catch (SQLException ignored) {
        // Its connection is broken or closed: nothing to free.
      }
    }
    prepared.clear();
  }

  /** Forgets the connection, its statements and what the tables were. */
  private void reset() {
    tables.clear();
    closeStatements();
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
