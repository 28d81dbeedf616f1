package io.sluice.sink.jdbc.types;

import io.debezium.connector.jdbc.dialect.DatabaseDialect;
import io.debezium.connector.jdbc.type.JdbcType;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import org.apache.kafka.connect.data.Schema;

/**
 * Debezium's enum ({@code io.debezium.data.Enum}): in a table the sink makes, a column of the source's enum type where
 * the target database has a type of that name, else text as Debezium makes it. Debezium's sink cannot ask the
 * database while it names a column's type, so each sink task says, as it starts, which such types its database has
 * ({@link #know}).
 *
 * <p>In MariaDB and MySQL, which have no named enum types, the column is an {@code enum} of the values the source's
 * allows, as Debezium's own MariaDB and MySQL dialect makes it (Sluice's type stands in for Debezium's there too, so it
 * must make it).
 */
public final class EnumTypeOfTarget extends PostgresCastString {
  private static final String ENUM = "io.debezium.data.Enum";
  /** The enum types of each live dialect's database, in lower case. */
  private static final Map<DatabaseDialect, Set<String>> TYPES = Collections.synchronizedMap(new WeakHashMap<>());

  private EnumTypeOfTarget(JdbcType string) {
    super(string);
  }

  /** One dialect's, over its own string type {@code string}. */
  public static EnumTypeOfTarget over(JdbcType string) {
    return new EnumTypeOfTarget(string);
  }

  /** That the database of {@code dialect} has the user-defined types {@code types}. */
  public static void know(DatabaseDialect dialect, Set<String> types) {
    TYPES.put(dialect, Set.copyOf(types));
  }

  @Override
  public String[] getRegistrationKeys() {
    return new String[] {ENUM};
  }

  @Override
  public String getTypeName(Schema schema, boolean isKey) {
    String binlogEnum = binlog() ? binlogEnum(schema) : null;
    return binlogEnum != null ? binlogEnum : super.getTypeName(schema, isKey);
  }

  /**
   * MariaDB's or MySQL's {@code enum} of the values the schema allows (Debezium's {@code allowed}, as its binlog and
   * PostgreSQL sources give it), each quoted as a string literal; null where it allows none.
   */
  static String binlogEnum(Schema schema) {
    return binlogMembers("enum", schema);
  }

  /**
   * {@code keyword(...)} of the values {@code schema} allows, each a quoted string literal with its quotes and
   * backslashes escaped; null where it allows none. Debezium's own dialect quotes them unescaped, so a value with a
   * quote (a {@code set('it''s')} at the source) made DDL the database refused, and the table was never made.
   */
  static String binlogMembers(String keyword, Schema schema) {
    String allowed = schema.parameters() == null ? null : schema.parameters().get("allowed");
    if (allowed == null || allowed.isEmpty()) {
      return null;
    }
    StringBuilder out = new StringBuilder(keyword).append('(');
    String[] values = allowed.split(",", -1);
    for (int i = 0; i < values.length; i++) {
      out.append(i == 0 ? "" : ",").append(binlogLiteral(values[i]));
    }
    return out.append(')').toString();
  }

  /** {@code value} as a MariaDB or MySQL string literal in DDL: quoted, its quotes and backslashes escaped. */
  public static String binlogLiteral(String value) {
    return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'";
  }

  /** The source column's enum type where the target database has a type of that name, else null. */
  @Override
  String postgresType(Schema schema) {
    String source = getSourceColumnType(schema).orElse("").toLowerCase(Locale.ROOT);
    return source.matches("[a-z_][a-z0-9_]*") && TYPES.getOrDefault(getDialect(), Set.of()).contains(source) ? source
        : null;
  }
}
