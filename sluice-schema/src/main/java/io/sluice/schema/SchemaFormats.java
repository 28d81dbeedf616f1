package io.sluice.schema;

import io.sluice.schema.avro.AvroSchemaProvider;
import io.sluice.schema.jsonschema.JsonSchemaProvider;
import io.sluice.schema.protobuf.ProtobufSchemaProvider;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;

/** The formats this registry serves, one provider each. */
public final class SchemaFormats {
  private SchemaFormats() {}

  public static Map<SchemaType, SchemaProvider> all() {
    return all(Clock.systemUTC(), JsonSchemaProvider.DEFAULT_BUDGET);
  }

  /** {@code clock} measures each comparison against {@code comparisonBudget} (formats whose diff can grow use it). */
  public static Map<SchemaType, SchemaProvider> all(Clock clock, Duration comparisonBudget) {
    return Map.of(
        SchemaType.AVRO, new AvroSchemaProvider(),
        SchemaType.PROTOBUF, new ProtobufSchemaProvider(),
        SchemaType.JSON, new JsonSchemaProvider(clock, comparisonBudget));
  }
}
