package io.debezium.connector.jdbc.dialect;

import io.debezium.connector.jdbc.type.JdbcType;
import io.debezium.connector.jdbc.type.connect.ConnectDecimalType;
import io.debezium.connector.jdbc.type.connect.ConnectMapToConnectStringType;
import io.debezium.connector.jdbc.type.connect.ConnectStringType;
import io.debezium.connector.jdbc.type.debezium.MicroTimeType;
import io.debezium.connector.jdbc.type.debezium.NanoTimeType;
import io.debezium.connector.jdbc.type.debezium.TimeType;
import io.debezium.sink.column.ColumnDescriptor;
import io.debezium.sink.valuebinding.ValueBindDescriptor;
import io.sluice.sink.jdbc.types.ArrayText;
import io.sluice.sink.jdbc.types.BinlogFloat;
import io.sluice.sink.jdbc.types.BinlogOwnType;
import io.sluice.sink.jdbc.types.BinlogSetType;
import io.sluice.sink.jdbc.types.EnumTypeOfTarget;
import io.sluice.sink.jdbc.types.FullDayTimeType;
import io.sluice.sink.jdbc.types.InfiniteTemporalType;
import io.sluice.sink.jdbc.types.PostgresTextType;
import io.sluice.sink.jdbc.types.QuoteRemovingType;
import io.sluice.sink.jdbc.types.SourceNamedType;
import io.sluice.sink.jdbc.types.SourceTypedDecimalType;
import io.sluice.sink.jdbc.types.ZeroYear;
import io.sluice.sink.jdbc.types.ZonedTimeText;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sluice's, in Debezium's package: gives one dialect column types of its own, which answer for it alone. See
 * {@code io.sluice.sink.jdbc.SinkDialects}.
 *
 * <p>Debezium's dialect registers its column types as singletons of the plugin's class loader ({@code
 * ConnectStringType.INSTANCE}, …), configuring each with itself ({@link GeneralDatabaseDialect#registerType}): the DDL
 * type names, the database time zone and the PostGIS schema a type answers with are those of the dialect made last.
 * Once the dialect is made, {@link #give} puts in its registry, under each key, a new instance of the type it found
 * there (each type's no-argument constructor, as Debezium makes its {@code INSTANCE}), configured with this dialect
 * only; then adds Sluice's types, likewise made for this dialect. The types that hold another type (Sluice's, and
 * Debezium's {@code ConnectMapToConnectStringType}, which writes through {@code ConnectStringType.INSTANCE}) hold the
 * dialect's own instance of it. (Debezium's PostgreSQL {@code EnumType}, which names its column through {@code
 * ConnectStringType.INSTANCE} too, gives way to Sluice's {@code EnumTypeOfTarget} in every dialect.)
 *
 * <p>Two of Debezium's singletons stay shared, because Debezium's MariaDB and MySQL dialect calls them by name rather
 * than through its registry: {@code BigIntUnsignedType} and the MySQL {@code JsonType} behind {@code MapToJsonType}.
 * Only MariaDB and MySQL dialects configure them, and nothing they answer depends on which one did (a constant type
 * name and binding; the value bound as it comes).
 */
public final class OwnTypes {
  private static final Logger LOG = LoggerFactory.getLogger(OwnTypes.class);
  private static final Field REGISTRY = registryField();

  private final GeneralDatabaseDialect dialect;
  /** Each shared instance the dialect had, and its own: made on first asking, or the shared one while sharing. */
  private final Map<JdbcType, JdbcType> own = new IdentityHashMap<>();
  private boolean sharing;

  private OwnTypes(GeneralDatabaseDialect dialect) {
    this.dialect = dialect;
  }

  /** Whether {@code dialect} can be given Sluice's types: every dialect Debezium ships extends the general one. */
  public static boolean supports(DatabaseDialect dialect) {
    return dialect instanceof GeneralDatabaseDialect;
  }

  /**
   * Gives {@code dialect}, just made, its own instance of every type it registered, and Sluice's types besides (the
   * values Sluice's sources carry in a form of their own, which Debezium's sink has no type for). Call once a dialect.
   *
   * @return false where a type of the dialect's cannot be made again (a Debezium of another shape): the dialect then
   *     keeps Debezium's shared types, as it was made, and Sluice's types hold those
   */
  public static boolean give(DatabaseDialect dialect) {
    OwnTypes types = new OwnTypes((GeneralDatabaseDialect) dialect);
    boolean own = types.replaceShared();
    types.extend();
    return own;
  }

  /** Puts the dialect's own instance in place of each shared one in its registry; all of them, or none. */
  private boolean replaceShared() {
    try {
      Map<String, JdbcType> registry = registry();
      Map<String, JdbcType> replaced = new HashMap<>(registry);
      replaced.replaceAll((key, shared) -> of(shared));
      registry.putAll(replaced);
      return true;
    } catch (IllegalStateException e) {
      LOG.warn("Dialect {} keeps Debezium's shared column types: {}", dialect.getClass().getSimpleName(),
          e.getMessage());
      own.clear();
      sharing = true;
      return false;
    }
  }

  /** The dialect's own instance of {@code shared}, made and configured with the dialect the first time. */
  private JdbcType of(JdbcType shared) {
    if (sharing) {
      return shared;
    }
    JdbcType mine = own.get(shared);
    if (mine == null) {
      mine = shared.getClass() == ConnectMapToConnectStringType.class
          ? new StringMapType(of(ConnectStringType.INSTANCE)) : copy(shared);
      mine.configure(dialect.getConfig(), dialect);
      own.put(shared, mine);
    }
    return mine;
  }

  private static JdbcType copy(JdbcType shared) {
    try {
      Constructor<? extends JdbcType> constructor = shared.getClass().getDeclaredConstructor();
      constructor.setAccessible(true);
      return constructor.newInstance();
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new IllegalStateException("Column type " + shared.getClass().getName() + " cannot be made again for one"
          + " sink alone (" + e + ")", e);
    }
  }

  @SuppressWarnings("unchecked")
  private Map<String, JdbcType> registry() {
    if (REGISTRY == null) {
      throw new IllegalStateException("this Debezium's dialect keeps no registry of types named typeRegistry");
    }
    try {
      return (Map<String, JdbcType>) REGISTRY.get(dialect);
    } catch (IllegalAccessException | RuntimeException e) {
      throw new IllegalStateException("its registry of types cannot be read (" + e + ")", e);
    }
  }

  /** {@link GeneralDatabaseDialect}'s map of registration keys to types; null where this Debezium has none. */
  private static Field registryField() {
    try {
      Field f = GeneralDatabaseDialect.class.getDeclaredField("typeRegistry");
      f.setAccessible(true);
      return Map.class.isAssignableFrom(f.getType()) ? f : null;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }

  /** Registers Sluice's types with the dialect ({@link GeneralDatabaseDialect#registerType} is protected). */
  private void extend() {
    JdbcType string = of(ConnectStringType.INSTANCE);
    for (JdbcType type : List.of(PostgresTextType.over(string),
        SourceTypedDecimalType.over(of(ConnectDecimalType.INSTANCE)), SourceNamedType.macaddr8(string),
        EnumTypeOfTarget.over(string), FullDayTimeType.millis(of(TimeType.INSTANCE)),
        FullDayTimeType.micros(of(MicroTimeType.INSTANCE)), FullDayTimeType.nanos(of(NanoTimeType.INSTANCE)))) {
      dialect.registerType(type);
    }
    // Each stands in for the dialect's own type of its name, which differs by dialect.
    for (String name : InfiniteTemporalType.SCHEMA_NAMES) {
      dialect.registerType(InfiniteTemporalType.over(dialect.getSchemaType(SchemaBuilder.int64().name(name).build()),
          name));
    }
    // A database without arrays gets PostgreSQL's text of one; PostgreSQL keeps Debezium's array type. The binlog
    // sources' own types are made as such only where the database has them.
    if (dialect instanceof io.debezium.connector.jdbc.dialect.mysql.MySqlDatabaseDialect) {
      dialect.registerType(new ArrayText());
      dialect.registerType(new BinlogOwnType());
      dialect.registerType(BinlogSetType.over(dialect.getSchemaType(SchemaBuilder.string()
          .name(BinlogSetType.SCHEMA_NAME).build())));
    }
    dialect.registerType(ZeroYear.over(dialect.getSchemaType(SchemaBuilder.int32().name(ZeroYear.SCHEMA_NAME)
        .build())));
    dialect.registerType(BinlogFloat.over(dialect.getSchemaType(SchemaBuilder.float32().build())));
    dialect.registerType(ZonedTimeText.over(dialect.getSchemaType(SchemaBuilder.string()
        .name(ZonedTimeText.SCHEMA_NAME).build())));
    registerQuoteRemoving();
  }

  /** Puts {@link QuoteRemovingType} in place of the dialect's range and tsvector types, where it has them. */
  private void registerQuoteRemoving() {
    List<JdbcType> types;
    try {
      types = registry().values().stream().distinct().toList();
    } catch (IllegalStateException e) {
      return; // no registry to read: Debezium's types stay, binding as they do
    }
    for (JdbcType type : types) {
      QuoteRemovingType.over(type).ifPresent(dialect::registerType);
    }
  }

  /** Debezium's {@code ConnectMapToConnectStringType}, writing through the dialect's own string type. */
  private static final class StringMapType extends ConnectMapToConnectStringType {
    private final JdbcType string;

    StringMapType(JdbcType string) {
      this.string = string;
    }

    @Override
    public String getQueryBinding(ColumnDescriptor column, Schema schema, Object value) {
      return string.getQueryBinding(column, schema, value);
    }

    @Override
    public String getTypeName(Schema schema, boolean isKey) {
      return string.getTypeName(schema, isKey);
    }

    @Override
    public String getDefaultValueBinding(Schema schema, Object value) {
      return string.getDefaultValueBinding(schema, value);
    }

    @Override
    public List<ValueBindDescriptor> bind(int index, Schema schema, Object value) {
      return string.bind(index, schema, value instanceof Map ? mapToJsonString(value) : value);
    }
  }
}
