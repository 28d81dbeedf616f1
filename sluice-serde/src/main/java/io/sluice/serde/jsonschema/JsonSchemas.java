package io.sluice.serde.jsonschema;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.schema.Dependency;
import io.sluice.schema.InvalidSchemaException;
import io.sluice.schema.ParsedSchema;
import io.sluice.schema.SchemaReference;
import io.sluice.schema.SchemaType;
import io.sluice.schema.jsonschema.JsonSchemaProvider;
import io.sluice.registry.client.RegistryApiException;
import io.sluice.registry.client.SchemaRegistryClient;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.errors.SerializationException;

/**
 * JSON Schemas as the serializer and deserializer need them: parsed once per schema (with the referenced schemas the
 * registry holds, fetched once), and instances validated against them with the registry's own JSON Schema code.
 */
final class JsonSchemas {
  private static final JsonSchemaProvider PROVIDER = new JsonSchemaProvider();
  private final SchemaRegistryClient client;
  private final Map<SchemaRegistryClient.Schema, ParsedSchema> parsed = new ConcurrentHashMap<>();

  JsonSchemas(SchemaRegistryClient client) {
    this.client = client;
  }

  ParsedSchema parse(SchemaRegistryClient.Schema schema) {
    return parsed.computeIfAbsent(schema, s -> {
      Map<String, Dependency> deps = new LinkedHashMap<>();
      List<SchemaReference> refs = new ArrayList<>();
      for (SchemaRegistryClient.Reference r : s.references()) {
        refs.add(new SchemaReference(r.name(), r.subject(), r.version()));
        collect(r, deps);
      }
      try {
        return PROVIDER.parse(s.schema(), refs, List.copyOf(deps.values()));
      } catch (InvalidSchemaException e) {
        throw new SerializationException("Invalid JSON Schema: " + e.getMessage(), e);
      }
    });
  }

  /** Referenced schemas, each after the ones it references, as the parser wants them. */
  private void collect(SchemaRegistryClient.Reference ref, Map<String, Dependency> into) {
    if (into.containsKey(ref.name())) {
      return;
    }
    SchemaRegistryClient.SubjectVersion v;
    try {
      v = client.version(ref.subject(), String.valueOf(ref.version())).orElseThrow(() -> new SerializationException(
          "Referenced schema " + ref.name() + " (subject " + ref.subject() + " version " + ref.version()
              + ") not found"));
    } catch (RegistryApiException e) {
      throw new SerializationException("Error fetching referenced schema " + ref.name() + ": " + e.getMessage(), e);
    }
    for (SchemaRegistryClient.Reference nested : v.schema().references()) {
      collect(nested, into);
    }
    into.put(ref.name(), new Dependency(ref.name(), SchemaType.JSON, v.schema().schema()));
  }

  static void validate(ParsedSchema schema, JsonNode instance) {
    List<String> errors = JsonSchemaProvider.validate(schema, instance);
    if (!errors.isEmpty()) {
      throw new SerializationException("Validation error in JSON " + instance + ", Error report:\n"
          + String.join("\n", errors));
    }
  }

  /**
   * The name RecordNameStrategy uses for a JSON Schema: its {@code title}. A schema that is not JSON is refused with
   * the parser's error (read as having no title, the naming strategy's complaint about the title hid it).
   */
  static String title(String schemaText) {
    try {
      return io.sluice.serde.SerdeConfig.JSON.readTree(schemaText).path("title").asText("");
    } catch (java.io.IOException e) {
      throw new SerializationException("Invalid JSON Schema: " + e.getMessage(), e);
    }
  }
}
