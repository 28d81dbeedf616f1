package io.sluice.schema.jsonschema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.schema.ParsedSchema;
import io.sluice.schema.SchemaReference;
import io.sluice.schema.SchemaType;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * A parsed JSON Schema: the document, its compact JSON as canonical text (what Confluent stores and returns), and the
 * graph the compatibility diff walks.
 */
record JsonSchema(JsonNode document, String canonical, List<SchemaReference> references,
    Map<String, JsonNode> dependencies, Node root) implements ParsedSchema {
  JsonSchema {
    references = List.copyOf(references);
  }

  @Override
  public SchemaType type() {
    return SchemaType.JSON;
  }

  /** Object keys sorted at every level: key order never changes what a schema means. */
  @Override
  public ParsedSchema normalize() {
    JsonNode sorted = sortKeys(document);
    return new JsonSchema(sorted, sorted.toString(), references, dependencies, root);
  }

  private static JsonNode sortKeys(JsonNode n) {
    if (n.isObject()) {
      ObjectNode out = JsonSchemaProvider.MAPPER.createObjectNode();
      List<String> names = new ArrayList<>();
      n.fieldNames().forEachRemaining(names::add);
      names.sort(null);
      for (String name : names) {
        out.set(name, sortKeys(n.get(name)));
      }
      return out;
    }
    if (n.isArray()) {
      var out = JsonSchemaProvider.MAPPER.createArrayNode();
      Iterator<JsonNode> it = n.elements();
      it.forEachRemaining(e -> out.add(sortKeys(e)));
      return out;
    }
    return n;
  }
}
