package io.sluice.schema.avro;

import io.sluice.schema.ParsedSchema;
import io.sluice.schema.SchemaReference;
import io.sluice.schema.SchemaType;
import java.util.List;
import org.apache.avro.Schema;

/**
 * An Avro schema with its canonical text. The canonical text is Avro's compact JSON with the referenced named types
 * written by name only, which is what Confluent stores and returns.
 */
record AvroParsedSchema(Schema schema, String canonical, List<SchemaReference> references) implements ParsedSchema {
  AvroParsedSchema {
    references = List.copyOf(references);
  }

  @Override
  public SchemaType type() {
    return SchemaType.AVRO;
  }

  /**
   * Avro's own serialisation already drops whitespace and fixes the order of the attributes it knows, so two texts
   * that differ only in layout have one canonical form already; normalising adds nothing further here.
   */
  @Override
  public ParsedSchema normalize() {
    return this;
  }
}
