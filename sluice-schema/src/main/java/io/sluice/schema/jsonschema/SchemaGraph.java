package io.sluice.schema.jsonschema;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.schema.InvalidSchemaException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Builds the {@link Node} graph of a JSON Schema document, drafts 4 to 2020-12 alike: {@code definitions} and
 * {@code $defs}, {@code items} arrays and {@code prefixItems}, boolean and numeric exclusive bounds,
 * {@code dependencies} and {@code dependentRequired}/{@code dependentSchemas}. Every {@code $ref} (within the document
 * or to a referenced schema by its reference name) is resolved while building, so the graph is complete and immutable
 * afterwards and a bad reference is a parse error.
 */
final class SchemaGraph {
  private static final Set<String> OBJECT_KEYWORDS = Set.of("properties", "required", "additionalProperties",
      "patternProperties", "minProperties", "maxProperties", "dependencies", "dependentRequired", "dependentSchemas",
      "propertyNames", "unevaluatedProperties");
  private static final Set<String> ARRAY_KEYWORDS = Set.of("items", "additionalItems", "prefixItems", "minItems",
      "maxItems", "uniqueItems", "contains", "minContains", "maxContains", "unevaluatedItems");
  private static final Set<String> STRING_KEYWORDS = Set.of("minLength", "maxLength", "pattern");
  private static final Set<String> NUMBER_KEYWORDS = Set.of("minimum", "maximum", "exclusiveMinimum",
      "exclusiveMaximum", "multipleOf");
  private static final List<String> TYPES = List.of("object", "array", "string", "number", "integer", "boolean",
      "null");

  private final Map<String, JsonNode> documents;
  private final boolean refSiblingsApply;
  private final Map<JsonNode, Node> built = new IdentityHashMap<>();
  private final List<Node.Ref> pending = new ArrayList<>();
  private InvalidSchemaException failure;

  private SchemaGraph(Map<String, JsonNode> documents, boolean refSiblingsApply) {
    this.documents = documents;
    this.refSiblingsApply = refSiblingsApply;
  }

  /** The root node of {@code root}; {@code dependencies} are referenced documents by reference name. */
  static Node build(JsonNode root, Map<String, JsonNode> dependencies) throws InvalidSchemaException {
    Map<String, JsonNode> docs = new LinkedHashMap<>();
    docs.put("", root);
    dependencies.forEach((name, doc) -> {
      docs.put(name, doc);
      if (doc.path("$id").isTextual()) {
        docs.putIfAbsent(doc.get("$id").asText(), doc);
      }
    });
    if (root.path("$id").isTextual()) {
      docs.putIfAbsent(root.get("$id").asText(), root);
    }
    String dialect = root.path("$schema").asText("");
    SchemaGraph graph = new SchemaGraph(docs, dialect.contains("2019-09") || dialect.contains("2020-12"));
    Node node = graph.node(root, root);
    // Resolving a reference may build nodes holding further references: go on until none is left.
    for (int i = 0; i < graph.pending.size(); i++) {
      graph.pending.get(i).target();
      if (graph.failure != null) {
        throw graph.failure;
      }
    }
    if (graph.failure != null) {
      throw graph.failure;
    }
    return node;
  }

  private Node node(JsonNode n, JsonNode doc) throws InvalidSchemaException {
    if (n == null) {
      return null;
    }
    if (n.isBoolean()) {
      return n.asBoolean() ? new Node.Empty(n) : new Node.False(n);
    }
    if (!n.isObject()) {
      throw new InvalidSchemaException("Invalid schema: a schema must be an object or a boolean, found " + n);
    }
    Node cached = built.get(n);
    if (cached != null) {
      return cached;
    }
    Node made = make(n, doc);
    built.put(n, made);
    return made;
  }

  private Node make(JsonNode n, JsonNode doc) throws InvalidSchemaException {
    List<Node> parts = new ArrayList<>();
    if (n.has("$ref")) {
      Node.Ref ref = reference(n, n.get("$ref").asText(), doc);
      if (!refSiblingsApply) {
        return ref; // before 2019-09, keywords beside $ref are ignored
      }
      parts.add(ref);
    }
    Node typed = typed(n, doc);
    if (typed != null) {
      parts.add(typed);
    }
    if (n.has("enum")) {
      Set<JsonNode> values = new LinkedHashSet<>();
      n.get("enum").forEach(values::add);
      parts.add(new Node.Enum(n, values));
    }
    if (n.has("const")) {
      parts.add(new Node.Const(n, n.get("const")));
    }
    if (n.has("not")) {
      parts.add(new Node.Not(n, node(n.get("not"), doc)));
    }
    for (Node.Criterion c : Node.Criterion.values()) {
      if (n.has(c.keyword)) {
        List<Node> subs = new ArrayList<>();
        Set<JsonNode> seen = new LinkedHashSet<>();
        for (JsonNode s : n.get(c.keyword)) {
          if (seen.add(s)) {
            subs.add(node(s, doc));
          }
        }
        parts.add(new Node.Combined(n, c, subs));
      }
    }
    if (parts.isEmpty()) {
      return new Node.Empty(n);
    }
    return parts.size() == 1 ? parts.get(0) : new Node.Combined(n, Node.Criterion.ALL, parts);
  }

  private Node typed(JsonNode n, JsonNode doc) throws InvalidSchemaException {
    List<String> types = new ArrayList<>();
    JsonNode type = n.get("type");
    if (type != null && type.isTextual()) {
      types.add(type.asText());
    } else if (type != null && type.isArray()) {
      type.forEach(t -> types.add(t.asText()));
    } else if (type != null) {
      throw new InvalidSchemaException("Invalid schema: \"type\" must be a string or an array, found " + type);
    } else {
      // Without "type", each family of keywords constrains only values of its own type.
      if (hasAny(n, OBJECT_KEYWORDS)) {
        types.add("object");
      }
      if (hasAny(n, ARRAY_KEYWORDS)) {
        types.add("array");
      }
      if (hasAny(n, STRING_KEYWORDS)) {
        types.add("string");
      }
      if (hasAny(n, NUMBER_KEYWORDS)) {
        types.add("number");
      }
    }
    if (types.isEmpty()) {
      return null;
    }
    List<Node> nodes = new ArrayList<>();
    for (String t : types) {
      if (!TYPES.contains(t)) {
        throw new InvalidSchemaException("Invalid schema: unknown type \"" + t + "\"");
      }
      nodes.add(switch (t) {
        case "object" -> object(n, doc);
        case "array" -> array(n, doc);
        case "string" -> new Node.Str(n, integer(n, "minLength"), integer(n, "maxLength"),
            n.path("pattern").isTextual() ? n.get("pattern").asText() : null);
        case "number", "integer" -> number(n, t.equals("integer"));
        case "boolean" -> new Node.Bool(n);
        default -> new Node.Null(n);
      });
    }
    return nodes.size() == 1 ? nodes.get(0) : new Node.Combined(n, Node.Criterion.ANY, nodes);
  }

  private static boolean hasAny(JsonNode n, Set<String> keywords) {
    Iterator<String> names = n.fieldNames();
    while (names.hasNext()) {
      if (keywords.contains(names.next())) {
        return true;
      }
    }
    return false;
  }

  private Node object(JsonNode n, JsonNode doc) throws InvalidSchemaException {
    Map<String, Node> properties = schemas(n.get("properties"), doc);
    Set<String> required = new LinkedHashSet<>();
    n.path("required").forEach(r -> required.add(r.asText()));
    Map<String, Node> patterns = schemas(n.get("patternProperties"), doc);
    JsonNode additional = n.has("additionalProperties") ? n.get("additionalProperties") : n.get("unevaluatedProperties");
    boolean permits = additional == null || !additional.isBoolean() || additional.asBoolean();
    Node additionalSchema = additional != null && additional.isObject() ? node(additional, doc) : null;
    Map<String, Set<String>> dependentRequired = new LinkedHashMap<>();
    Map<String, Node> dependentSchemas = new LinkedHashMap<>();
    for (String keyword : List.of("dependencies", "dependentRequired", "dependentSchemas")) {
      Iterator<Map.Entry<String, JsonNode>> it = n.path(keyword).fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        if (e.getValue().isArray()) {
          Set<String> names = new LinkedHashSet<>();
          e.getValue().forEach(v -> names.add(v.asText()));
          dependentRequired.put(e.getKey(), names);
        } else {
          dependentSchemas.put(e.getKey(), node(e.getValue(), doc));
        }
      }
    }
    return new Node.Obj(n, properties, required, patterns, permits, additionalSchema, dependentRequired,
        dependentSchemas, integer(n, "minProperties"), integer(n, "maxProperties"));
  }

  private Node array(JsonNode n, JsonNode doc) throws InvalidSchemaException {
    JsonNode items = n.get("items");
    List<Node> tuple = new ArrayList<>();
    Node all = null;
    JsonNode additional;
    if (n.has("prefixItems")) {
      for (JsonNode t : n.get("prefixItems")) {
        tuple.add(node(t, doc));
      }
      additional = items;
    } else if (items != null && items.isArray()) {
      for (JsonNode t : items) {
        tuple.add(node(t, doc));
      }
      additional = n.get("additionalItems");
    } else {
      all = node(items, doc);
      additional = n.get("additionalItems");
    }
    boolean permits = additional == null || !additional.isBoolean() || additional.asBoolean();
    Node additionalSchema = additional != null && additional.isObject() ? node(additional, doc) : null;
    return new Node.Arr(n, all, tuple, permits, additionalSchema, node(n.get("unevaluatedItems"), doc),
        integer(n, "minItems"), integer(n, "maxItems"), n.path("uniqueItems").asBoolean(false),
        integer(n, "minContains"), integer(n, "maxContains"));
  }

  private Node number(JsonNode n, boolean integer) {
    BigDecimal minimum = decimal(n, "minimum");
    BigDecimal maximum = decimal(n, "maximum");
    BigDecimal exclusiveMinimum = decimal(n, "exclusiveMinimum");
    BigDecimal exclusiveMaximum = decimal(n, "exclusiveMaximum");
    // Draft 4 spells an exclusive bound as a boolean flag on the inclusive one: the flag adds an exclusive bound.
    if (n.path("exclusiveMinimum").asBoolean(false) && minimum != null) {
      exclusiveMinimum = minimum;
    }
    if (n.path("exclusiveMaximum").asBoolean(false) && maximum != null) {
      exclusiveMaximum = maximum;
    }
    return new Node.Num(n, integer, minimum, maximum, exclusiveMinimum, exclusiveMaximum, decimal(n, "multipleOf"));
  }

  private Map<String, Node> schemas(JsonNode object, JsonNode doc) throws InvalidSchemaException {
    Map<String, Node> out = new LinkedHashMap<>();
    if (object == null) {
      return out;
    }
    Iterator<Map.Entry<String, JsonNode>> it = object.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      out.put(e.getKey(), node(e.getValue(), doc));
    }
    return out;
  }

  private static Integer integer(JsonNode n, String field) {
    JsonNode v = n.get(field);
    return v != null && v.isNumber() ? v.asInt() : null;
  }

  private static BigDecimal decimal(JsonNode n, String field) {
    JsonNode v = n.get(field);
    return v != null && v.isNumber() ? v.decimalValue() : null;
  }

  private Node.Ref reference(JsonNode n, String ref, JsonNode doc) {
    Node.Ref r = new Node.Ref(n, () -> {
      try {
        return resolve(ref, doc);
      } catch (InvalidSchemaException e) {
        failure = e;
        return new Node.Empty(n);
      }
    });
    pending.add(r);
    return r;
  }

  private Node resolve(String ref, JsonNode doc) throws InvalidSchemaException {
    int hash = ref.indexOf('#');
    String base = hash < 0 ? ref : ref.substring(0, hash);
    String fragment = hash < 0 ? "" : ref.substring(hash + 1);
    JsonNode target = base.isEmpty() ? doc : documents.get(base);
    if (target == null) {
      throw new InvalidSchemaException("Invalid schema: cannot resolve $ref \"" + ref + "\" (no reference named \""
          + base + "\")");
    }
    if (!fragment.isEmpty()) {
      JsonNode found;
      try {
        found = target.at(JsonPointer.compile(fragment));
      } catch (IllegalArgumentException e) {
        throw new InvalidSchemaException("Invalid schema: $ref \"" + ref + "\" is not a JSON pointer");
      }
      if (found.isMissingNode()) {
        throw new InvalidSchemaException("Invalid schema: cannot resolve $ref \"" + ref + "\"");
      }
      target = found;
    }
    JsonNode targetDoc = base.isEmpty() ? doc : documents.get(base);
    return node(target, targetDoc);
  }
}
