package io.sluice.sink.jdbc;

import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.debezium.connector.jdbc.dialect.DatabaseDialect;
import io.debezium.connector.jdbc.type.JdbcType;
import io.debezium.connector.jdbc.type.SharedTypes;
import io.debezium.connector.jdbc.type.connect.ConnectStringType;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.junit.jupiter.api.Test;

/**
 * Each sink task's dialect has column types of its own: a task started later (here with another database time zone)
 * leaves an earlier task's types answering for the earlier task's dialect, and both write, in any order.
 */
class SinkDialectsTest {
  /** Schemas found through Debezium's types, Sluice's, and Sluice's over Debezium's. */
  private static final List<Schema> SCHEMAS = List.of(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA,
      SchemaBuilder.int64().name("io.debezium.time.MicroTimestamp").build(),
      SchemaBuilder.int32().name("io.debezium.time.Date").build(),
      SchemaBuilder.int64().name("io.debezium.time.MicroTime").build(), Decimal.schema(2),
      SchemaBuilder.string().name("io.debezium.data.Enum").build(),
      SchemaBuilder.string().name("io.sluice.data.PostgresText").build(),
      SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.STRING_SCHEMA).build());

  @Test
  void eachTaskWritesWithTypesOfItsOwnDialect() {
    String url = TestPostgres.createDatabase("sink_dialects");
    ChangeEvents utcEvents = ChangeEvents.ofIntKey("utc.public.orders");
    ChangeEvents parisEvents = ChangeEvents.ofIntKey("paris.public.orders");
    try (DrivenTask utc = new DrivenTask(url, "utc", utcEvents.topic, "orders_utc",
        Map.of("database.time_zone", "UTC"))) {
      DatabaseDialect utcDialect = SharedTypes.boundDialect();
      try (DrivenTask paris = new DrivenTask(url, "paris", parisEvents.topic, "orders_paris",
          Map.of("database.time_zone", "Europe/Paris"))) {
        DatabaseDialect parisDialect = SharedTypes.boundDialect();
        assertNotSame(utcDialect, parisDialect);
        assertSame(parisDialect, SharedTypes.dialectOf(ConnectStringType.INSTANCE), "the shared types: the last made");
        for (Schema schema : SCHEMAS) {
          JdbcType utcType = utcDialect.getSchemaType(schema);
          JdbcType parisType = parisDialect.getSchemaType(schema);
          String what = schema.name() != null ? schema.name() : schema.type().toString();
          assertSame(utcDialect, SharedTypes.dialectOf(utcType), what + ": the first task's own");
          assertSame(parisDialect, SharedTypes.dialectOf(parisType), what + ": the second task's own");
          assertNotSame(utcType, parisType, what);
        }
        assertNotSame(ConnectStringType.INSTANCE, utcDialect.getSchemaType(Schema.STRING_SCHEMA));

        utc.put(List.of(utcEvents.insert(1, utcEvents.row(1))), 1);
        paris.put(List.of(parisEvents.insert(1, parisEvents.row(1))), 1);
        utc.put(List.of(utcEvents.insert(2, utcEvents.row(2))), 1);
        assertSame(utcDialect, SharedTypes.dialectOf(utcDialect.getSchemaType(Schema.STRING_SCHEMA)));
      }
      utc.put(List.of(utcEvents.insert(3, utcEvents.row(3))), 1);
    }
  }
}
