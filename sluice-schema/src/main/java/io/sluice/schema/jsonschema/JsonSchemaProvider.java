package io.sluice.schema.jsonschema;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.sluice.schema.CompatibilityPolicy;
import io.sluice.schema.Dependency;
import io.sluice.schema.Incompatibility;
import io.sluice.schema.InvalidSchemaException;
import io.sluice.schema.ParsedSchema;
import io.sluice.schema.SchemaProvider;
import io.sluice.schema.SchemaReference;
import io.sluice.schema.SchemaType;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * JSON Schema, drafts 4 to 2020-12. Compatibility is our structural diff ({@link JsonSchemaDiff}) with Confluent's
 * difference types and its strict and lenient policies; documents are validated against the draft's meta-schema, and
 * instances against a schema, with networknt's validator.
 */
public final class JsonSchemaProvider implements SchemaProvider {
  static final ObjectMapper MAPPER = new ObjectMapper();
  /** Long enough for any realistic pair (the recursive 20-way oneOf takes milliseconds), short enough to never hang. */
  public static final Duration DEFAULT_BUDGET = Duration.ofSeconds(5);

  /** Loading a meta-schema costs milliseconds; a loaded one validates from any thread. */
  private static final Map<SpecificationVersion, Schema> META_SCHEMAS = new ConcurrentHashMap<>();
  private static final String VALIDATION_BASE = "https://registry.sluice.invalid/";

  private final Clock clock;
  private final Duration budget;

  public JsonSchemaProvider() {
    this(Clock.systemUTC(), DEFAULT_BUDGET);
  }

  /** {@code clock} measures the comparison {@code budget}. */
  public JsonSchemaProvider(Clock clock, Duration budget) {
    this.clock = clock;
    this.budget = budget;
  }

  @Override
  public SchemaType type() {
    return SchemaType.JSON;
  }

  @Override
  public ParsedSchema parse(String text, List<SchemaReference> references, List<Dependency> dependencies)
      throws InvalidSchemaException {
    JsonNode document = json(text);
    if (!document.isObject() && !document.isBoolean()) {
      throw new InvalidSchemaException("Invalid schema " + text + ": a JSON Schema is an object or a boolean");
    }
    Map<String, JsonNode> docs = new LinkedHashMap<>();
    for (Dependency d : dependencies) {
      if (d.type() != SchemaType.JSON) {
        throw new InvalidSchemaException("JSON schema cannot reference the " + d.type() + " schema " + d.name());
      }
      docs.put(d.name(), json(d.schema()));
    }
    metaValidate(document);
    Node root = SchemaGraph.build(document, docs);
    return new JsonSchema(document, document.toString(), references, Map.copyOf(docs), root);
  }

  private static JsonNode json(String text) throws InvalidSchemaException {
    try {
      JsonNode n = MAPPER.readTree(text);
      if (n == null || n.isMissingNode()) {
        throw new InvalidSchemaException("Empty schema");
      }
      return n;
    } catch (JsonProcessingException e) {
      throw new InvalidSchemaException("Invalid schema " + text + ", details: " + e.getOriginalMessage());
    }
  }

  private static SpecificationVersion draft(JsonNode document) {
    return SpecificationVersion.fromSchemaNode(document).orElse(SpecificationVersion.DRAFT_7);
  }

  /** Rejects documents their own draft's meta-schema rejects (a misspelt type, a negative maxLength, ...). */
  private static void metaValidate(JsonNode document) throws InvalidSchemaException {
    if (!document.isObject()) {
      return;
    }
    SpecificationVersion version = draft(document);
    Schema meta = META_SCHEMAS.computeIfAbsent(version,
        v -> SchemaRegistry.withDefaultDialect(v).getSchema(SchemaLocation.of(v.getDialectId())));
    List<Error> errors = meta.validate(document);
    if (!errors.isEmpty()) {
      throw new InvalidSchemaException("Invalid schema " + document + ", details: " + errors.get(0).toString());
    }
  }

  /**
   * Why {@code instance} is not valid under {@code schema} (a schema this provider parsed); empty when it is valid.
   * For the serializers: the registry itself never validates instances.
   */
  public static List<String> validate(ParsedSchema schema, JsonNode instance) {
    JsonSchema s = (JsonSchema) schema;
    // References resolve relative to the schema's own (made-up) location, so they are served next to it.
    Map<String, String> docs = new LinkedHashMap<>();
    s.dependencies().forEach((name, doc) -> docs.put(VALIDATION_BASE + name, doc.toString()));
    SchemaRegistry registry = SchemaRegistry.withDefaultDialect(draft(s.document()), b -> b.schemas(docs));
    return registry.getSchema(SchemaLocation.of(VALIDATION_BASE + "schema.json"), s.document()).validate(instance)
        .stream()
        .map(Error::toString).toList();
  }

  @Override
  public List<Incompatibility> readIncompatibilities(ParsedSchema reader, ParsedSchema writer, boolean readerIsNew,
      CompatibilityPolicy policy) {
    // As Confluent: the writer's schema is the "original" and the reader's the "update" of the diff.
    String readerRole = readerIsNew ? "new" : "old";
    String writerRole = readerIsNew ? "old" : "new";
    return JsonSchemaDiff.compare(((JsonSchema) writer).root(), ((JsonSchema) reader).root(), policy, clock, budget)
        .stream()
        .filter(d -> !JsonSchemaDiff.isCompatible(d, policy))
        .map(d -> new Incompatibility(d.type().name(), d.path(), d.message(readerRole, writerRole)))
        .toList();
  }

  @Override
  public List<String> practiceWarnings(ParsedSchema candidate, List<ParsedSchema> earlier) {
    return JsonSchemaPractice.warnings(((JsonSchema) candidate).document(),
        earlier.stream().map(e -> ((JsonSchema) e).document()).toList());
  }
}
