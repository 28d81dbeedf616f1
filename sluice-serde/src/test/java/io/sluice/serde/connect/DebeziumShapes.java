package io.sluice.serde.connect;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

/** Connect data shaped as Debezium writes it, for the converter tests. */
final class DebeziumShapes {
  private DebeziumShapes() {}

  /** The shape of a Debezium PostgreSQL change event, with the semantic types a shop table has. */
  static final Schema ROW = SchemaBuilder.struct().name("demo-shop.public.orders.Value").optional()
      .field("id", Schema.INT32_SCHEMA)
      .field("total", Decimal.builder(2).parameter("connect.decimal.precision", "10").build())
      .field("placed_at", SchemaBuilder.int64().name("io.debezium.time.MicroTimestamp").version(1).build())
      .field("updated_at", SchemaBuilder.string().name("io.debezium.time.ZonedTimestamp").version(1).optional().build())
      .field("attrs", SchemaBuilder.string().name("io.debezium.data.Json").version(1).optional().build())
      .field("shipped_on", Date.builder().optional().build())
      .field("priority", Schema.OPTIONAL_INT16_SCHEMA)
      .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build())
      .field("counts", SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.INT64_SCHEMA).optional().build())
      .build();
  static final Schema SOURCE = SchemaBuilder.struct().name("io.debezium.connector.postgresql.Source")
      .field("version", Schema.STRING_SCHEMA).field("connector", Schema.STRING_SCHEMA)
      .field("ts_ms", Schema.INT64_SCHEMA).field("lsn", Schema.OPTIONAL_INT64_SCHEMA).build();
  static final Schema ENVELOPE = SchemaBuilder.struct().name("demo-shop.public.orders.Envelope").version(2)
      .optional()
      .field("before", ROW).field("after", ROW).field("source", SOURCE).field("op", Schema.STRING_SCHEMA)
      .field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA).build();

  static Struct row(int id, long micros) {
    return new Struct(ROW).put("id", id).put("total", new BigDecimal("12.34")).put("placed_at", micros)
        .put("updated_at", "2026-11-25T07:00:00.123456Z").put("attrs", "{\"gift\":true}")
        .put("shipped_on", new java.util.Date(86_400_000L * 20_000)).put("priority", (short) 3)
        .put("tags", List.of("a", "b")).put("counts", Map.of(1, 10L, 2, 20L));
  }


  static Struct created(int id, long micros) {
    return new Struct(ENVELOPE).put("after", row(id, micros))
        .put("source", new Struct(SOURCE).put("version", "3.7.0").put("connector", "postgresql").put("ts_ms", 1L))
        .put("op", "c").put("ts_ms", 2L);
  }
}
