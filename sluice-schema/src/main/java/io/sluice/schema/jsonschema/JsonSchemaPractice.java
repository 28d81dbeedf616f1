package io.sluice.schema.jsonschema;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Good-practice warnings for a JSON Schema evolution, found by walking the documents path by path: properties removed
 * that were never marked deprecated, an object's {@code additionalProperties} policy changed (open, closed or
 * partially open), and types narrowed.
 */
final class JsonSchemaPractice {
  private JsonSchemaPractice() {}

  static List<String> warnings(JsonNode candidate, List<JsonNode> earlier) {
    List<String> out = new ArrayList<>();
    if (earlier.isEmpty()) {
      return out;
    }
    Map<String, JsonNode> now = schemas(candidate);
    Map<String, JsonNode> latest = schemas(earlier.get(0));
    for (Map.Entry<String, JsonNode> e : latest.entrySet()) {
      String path = e.getKey();
      JsonNode before = e.getValue();
      JsonNode after = now.get(path);
      if (after == null) {
        continue;
      }
      Iterator<String> names = before.path("properties").fieldNames();
      while (names.hasNext()) {
        String name = names.next();
        if (!after.path("properties").has(name) && !deprecatedEarlier(earlier, path, name)) {
          out.add(path + "/properties/" + name + ": property removed without an earlier version marking it "
              + "\"deprecated\": true");
        }
      }
      if (isObject(before) && isObject(after) && !model(before).equals(model(after))) {
        out.add(path + ": additionalProperties policy changed from " + model(before) + " to " + model(after)
            + " content model");
      }
      Set<String> typesBefore = types(before);
      Set<String> typesAfter = types(after);
      if (!typesBefore.isEmpty() && !typesAfter.isEmpty() && !typesAfter.containsAll(typesBefore)) {
        Set<String> lost = new HashSet<>(typesBefore);
        lost.removeAll(typesAfter);
        if (lost.equals(Set.of("number")) && typesAfter.contains("integer")) {
          out.add(path + ": type narrowed from number to integer");
        } else if (typesAfter.size() < typesBefore.size() && typesBefore.containsAll(typesAfter)) {
          out.add(path + ": type narrowed, no longer accepts " + lost);
        }
      }
    }
    return out;
  }

  private static boolean deprecatedEarlier(List<JsonNode> earlier, String path, String property) {
    for (JsonNode doc : earlier) {
      JsonNode schema = schemas(doc).get(path);
      if (schema != null && schema.path("properties").path(property).path("deprecated").asBoolean(false)) {
        return true;
      }
    }
    return false;
  }

  private static boolean isObject(JsonNode n) {
    return types(n).contains("object") || n.has("properties");
  }

  private static String model(JsonNode n) {
    JsonNode additional = n.has("additionalProperties") ? n.get("additionalProperties") : n.get("unevaluatedProperties");
    if ((additional != null && additional.isObject()) || n.has("patternProperties")) {
      return "partially open";
    }
    return additional != null && additional.isBoolean() && !additional.asBoolean() ? "closed" : "open";
  }

  private static Set<String> types(JsonNode n) {
    Set<String> out = new HashSet<>();
    JsonNode t = n.get("type");
    if (t != null && t.isTextual()) {
      out.add(t.asText());
    } else if (t != null && t.isArray()) {
      t.forEach(x -> out.add(x.asText()));
    }
    return out;
  }

  /** Every subschema reachable without following {@code $ref}, by its path from the root. */
  private static Map<String, JsonNode> schemas(JsonNode root) {
    Map<String, JsonNode> out = new LinkedHashMap<>();
    collect(root, "#", out);
    return out;
  }

  private static void collect(JsonNode n, String path, Map<String, JsonNode> out) {
    if (!n.isObject()) {
      return;
    }
    out.put(path, n);
    for (String keyword : List.of("properties", "definitions", "$defs", "patternProperties")) {
      Iterator<Map.Entry<String, JsonNode>> it = n.path(keyword).fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        collect(e.getValue(), path + "/" + keyword + "/" + e.getKey(), out);
      }
    }
    if (n.path("items").isObject()) {
      collect(n.get("items"), path + "/items", out);
    }
    for (String keyword : List.of("allOf", "anyOf", "oneOf", "prefixItems")) {
      JsonNode list = n.path(keyword);
      for (int i = 0; i < list.size(); i++) {
        collect(list.get(i), path + "/" + keyword + "/" + i, out);
      }
    }
  }
}
