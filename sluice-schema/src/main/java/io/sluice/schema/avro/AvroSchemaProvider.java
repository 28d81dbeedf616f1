package io.sluice.schema.avro;

import io.sluice.schema.CompatibilityPolicy;
import io.sluice.schema.Dependency;
import io.sluice.schema.Incompatibility;
import io.sluice.schema.InvalidSchemaException;
import io.sluice.schema.ParsedSchema;
import io.sluice.schema.SchemaProvider;
import io.sluice.schema.SchemaReference;
import io.sluice.schema.SchemaType;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;

/**
 * Avro through Apache Avro's parser and its reader/writer resolution check ({@link SchemaCompatibility}), which is
 * exactly the check Confluent runs; the messages are rewritten into Confluent's shape.
 */
public final class AvroSchemaProvider implements SchemaProvider {

  @Override
  public SchemaType type() {
    return SchemaType.AVRO;
  }

  @Override
  public ParsedSchema parse(String text, List<SchemaReference> references, List<Dependency> dependencies)
      throws InvalidSchemaException {
    if (text == null || text.isBlank()) {
      throw new InvalidSchemaException("Empty schema");
    }
    // One parser for the dependencies and the schema, so names defined by a reference resolve in the schema.
    Schema.Parser parser = new Schema.Parser().setValidateDefaults(true);
    List<Schema> referenced = new ArrayList<>();
    Set<String> seen = new LinkedHashSet<>();
    try {
      for (Dependency d : dependencies) {
        if (d.type() != SchemaType.AVRO) {
          throw new InvalidSchemaException("Avro schema cannot reference the " + d.type() + " schema " + d.name());
        }
        if (seen.add(d.name())) {
          referenced.add(parser.parse(d.schema()));
        }
      }
      Schema schema = parser.parse(text);
      String canonical = referenced.isEmpty() ? schema.toString() : schema.toString(referenced, false);
      return new AvroParsedSchema(schema, canonical, references);
    } catch (RuntimeException e) {
      // Avro reports bad schemas as SchemaParseException, AvroTypeException or plain runtime exceptions from Jackson.
      throw new InvalidSchemaException("Invalid schema " + text + ", details: " + e.getMessage());
    }
  }

  @Override
  public List<Incompatibility> readIncompatibilities(ParsedSchema reader, ParsedSchema writer, boolean readerIsNew,
      CompatibilityPolicy policy) {
    Schema r = ((AvroParsedSchema) reader).schema();
    Schema w = ((AvroParsedSchema) writer).schema();
    if (FastResolution.surelyReadable(r, w)) {
      return List.of();
    }
    SchemaCompatibility.SchemaPairCompatibility result = SchemaCompatibility.checkReaderWriterCompatibility(r, w);
    List<Incompatibility> out = new ArrayList<>();
    for (SchemaCompatibility.Incompatibility i : result.getResult().getIncompatibilities()) {
      out.add(new Incompatibility(i.getType().name(), i.getLocation(),
          describe(i, readerIsNew ? "new" : "old", readerIsNew ? "old" : "new")));
    }
    return out;
  }

  /** Confluent's wording per incompatibility type: the first role named is the reader's. */
  static String describe(SchemaCompatibility.Incompatibility i, String readerRole, String writerRole) {
    String path = i.getLocation();
    String detail = i.getMessage();
    String description = switch (i.getType()) {
      case FIXED_SIZE_MISMATCH -> "The size of FIXED type field at path '" + path + "' in the " + readerRole
          + " schema does not match with the " + writerRole + " schema";
      case TYPE_MISMATCH -> "The type (path '" + path + "') of a field in the " + readerRole
          + " schema does not match with the " + writerRole + " schema";
      case NAME_MISMATCH -> "The name of the schema has changed (path '" + path + "')";
      case MISSING_ENUM_SYMBOLS -> "The " + readerRole + " schema is missing enum symbols '" + detail + "' at path '"
          + path + "' in the " + writerRole + " schema";
      case MISSING_UNION_BRANCH -> "The " + readerRole + " schema is missing a type inside a union field at path '"
          + path + "' in the " + writerRole + " schema";
      case READER_FIELD_MISSING_DEFAULT_VALUE -> "The field '" + detail + "' at path '" + path + "' in the "
          + readerRole + " schema has no default value and is missing in the " + writerRole + " schema";
    };
    return "{errorType:'" + i.getType() + "', description:'" + description + "', additionalInfo:'" + detail + "'}";
  }

  @Override
  public List<String> practiceWarnings(ParsedSchema candidate, List<ParsedSchema> earlier) {
    return AvroPractice.warnings(((AvroParsedSchema) candidate).schema(),
        earlier.stream().map(e -> ((AvroParsedSchema) e).schema()).toList());
  }
}
