package io.sluice.registry.schema;

import io.sluice.registry.schema.avro.AvroSchemaProvider;
import io.sluice.registry.schema.jsonschema.JsonSchemaProvider;
import io.sluice.registry.schema.protobuf.ProtobufSchemaProvider;
import java.util.Map;

/** The formats this registry serves, one provider each. */
public final class SchemaFormats {
  private SchemaFormats() {}

  public static Map<SchemaType, SchemaProvider> all() {
    return Map.of(
        SchemaType.AVRO, new AvroSchemaProvider(),
        SchemaType.PROTOBUF, new ProtobufSchemaProvider(),
        SchemaType.JSON, new JsonSchemaProvider());
  }
}
