package io.sluice.schema.jsonschema;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * A JSON Schema as the compatibility diff sees it: one node per kind of constraint, whatever draft spelled it. A
 * schema with several kinds of constraint (say a type and an enum) is a {@link Combined} {@code allOf} of them.
 * Nodes are compared by identity, so recursive schemas ({@link Ref}) form a finite graph.
 */
sealed interface Node {
  /** The JSON the node came from: titles, descriptions, defaults and ids are read from it. */
  JsonNode raw();

  /** {@code true} or {}: anything is valid. */
  record Empty(JsonNode raw) implements Node {}

  /** {@code false}: nothing is valid. */
  record False(JsonNode raw) implements Node {}

  record Null(JsonNode raw) implements Node {}

  record Bool(JsonNode raw) implements Node {}

  record Str(JsonNode raw, Integer minLength, Integer maxLength, String pattern) implements Node {}

  record Num(JsonNode raw, boolean integer, BigDecimal minimum, BigDecimal maximum, BigDecimal exclusiveMinimum,
      BigDecimal exclusiveMaximum, BigDecimal multipleOf) implements Node {}

  record Enum(JsonNode raw, Set<JsonNode> values) implements Node {}

  record Const(JsonNode raw, JsonNode value) implements Node {}

  /**
   * {@code additional} is the schema for properties that neither {@code properties} nor {@code patternProperties}
   * name ({@code additionalProperties}, else {@code unevaluatedProperties}); null when absent or {@code true}.
   */
  record Obj(JsonNode raw, Map<String, Node> properties, Set<String> required, Map<String, Node> patternProperties,
      boolean permitsAdditional, Node additional, Map<String, Set<String>> dependentRequired,
      Map<String, Node> dependentSchemas, Integer minProperties, Integer maxProperties) implements Node {
    /** Any other property may appear with any value. */
    boolean open() {
      return patternProperties.isEmpty() && additional == null && permitsAdditional;
    }
  }

  /**
   * {@code items} applies to every element (null when absent), {@code tuple} position by position, and
   * {@code additional} to elements past the tuple ({@code additionalItems}, or {@code items} after {@code prefixItems}).
   */
  record Arr(JsonNode raw, Node items, List<Node> tuple, boolean permitsAdditional, Node additional,
      Node unevaluated, Integer minItems, Integer maxItems, boolean uniqueItems, Integer minContains,
      Integer maxContains) implements Node {
    boolean open() {
      return permitsAdditional && additional == null && (unevaluated == null || unevaluated instanceof Empty);
    }

    Node partial() {
      return additional != null ? additional : unevaluated instanceof Empty ? null : unevaluated;
    }
  }

  enum Criterion {
    ALL("allOf"), ANY("anyOf"), ONE("oneOf");

    final String keyword;

    Criterion(String keyword) {
      this.keyword = keyword;
    }
  }

  record Combined(JsonNode raw, Criterion criterion, List<Node> subschemas) implements Node {}

  record Not(JsonNode raw, Node schema) implements Node {}

  /** A {@code $ref}, resolved on first use so that a schema may refer to itself. */
  final class Ref implements Node {
    private final JsonNode raw;
    private final Supplier<Node> target;
    private Node resolved;

    Ref(JsonNode raw, Supplier<Node> target) {
      this.raw = raw;
      this.target = target;
    }

    @Override
    public JsonNode raw() {
      return raw;
    }

    Node target() {
      if (resolved == null) {
        resolved = target.get();
      }
      return resolved;
    }
  }
}
