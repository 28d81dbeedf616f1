package io.sluice.schema.jsonschema;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.schema.ComparisonBudgetExceededException;
import io.sluice.schema.CompatibilityPolicy;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The structural difference between an original and an updated JSON Schema with Confluent's difference types. The
 * update is compatible when every document valid under the original is valid under the update: removing constraints
 * is compatible, adding them is not.
 *
 * <p>Each ordered pair of nodes is compared once: the answer is remembered, and a pair met again while it is being
 * compared (a recursive schema) counts as compatible, so recursive and wide {@code oneOf}/{@code anyOf} schemas cost
 * one comparison per pair of nodes. A comparison that runs past its budget throws
 * {@link ComparisonBudgetExceededException}.
 */
final class JsonSchemaDiff {

  enum Type {
    ID_CHANGED, DESCRIPTION_CHANGED, TITLE_CHANGED, DEFAULT_CHANGED, SCHEMA_ADDED, SCHEMA_REMOVED,
    TYPE_EXTENDED, TYPE_NARROWED, TYPE_CHANGED,
    MAX_LENGTH_ADDED, MAX_LENGTH_REMOVED, MAX_LENGTH_INCREASED, MAX_LENGTH_DECREASED,
    MIN_LENGTH_ADDED, MIN_LENGTH_REMOVED, MIN_LENGTH_INCREASED, MIN_LENGTH_DECREASED,
    PATTERN_ADDED, PATTERN_REMOVED, PATTERN_CHANGED,
    MAXIMUM_ADDED, MAXIMUM_REMOVED, MAXIMUM_INCREASED, MAXIMUM_DECREASED,
    MINIMUM_ADDED, MINIMUM_REMOVED, MINIMUM_INCREASED, MINIMUM_DECREASED,
    EXCLUSIVE_MAXIMUM_ADDED, EXCLUSIVE_MAXIMUM_REMOVED, EXCLUSIVE_MAXIMUM_INCREASED, EXCLUSIVE_MAXIMUM_DECREASED,
    EXCLUSIVE_MINIMUM_ADDED, EXCLUSIVE_MINIMUM_REMOVED, EXCLUSIVE_MINIMUM_INCREASED, EXCLUSIVE_MINIMUM_DECREASED,
    MULTIPLE_OF_ADDED, MULTIPLE_OF_REMOVED, MULTIPLE_OF_REDUCED, MULTIPLE_OF_EXPANDED, MULTIPLE_OF_CHANGED,
    REQUIRED_ATTRIBUTE_ADDED, REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED, REQUIRED_ATTRIBUTE_REMOVED,
    DEPENDENCY_ARRAY_ADDED, DEPENDENCY_ARRAY_REMOVED, DEPENDENCY_ARRAY_EXTENDED, DEPENDENCY_ARRAY_NARROWED,
    DEPENDENCY_ARRAY_CHANGED, DEPENDENCY_SCHEMA_ADDED, DEPENDENCY_SCHEMA_REMOVED,
    MAX_PROPERTIES_ADDED, MAX_PROPERTIES_REMOVED, MAX_PROPERTIES_INCREASED, MAX_PROPERTIES_DECREASED,
    MIN_PROPERTIES_ADDED, MIN_PROPERTIES_REMOVED, MIN_PROPERTIES_INCREASED, MIN_PROPERTIES_DECREASED,
    ADDITIONAL_PROPERTIES_ADDED, ADDITIONAL_PROPERTIES_REMOVED, ADDITIONAL_PROPERTIES_EXTENDED,
    ADDITIONAL_PROPERTIES_NARROWED,
    PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL, PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL,
    PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL, PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL,
    PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL,
    REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL, REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL,
    OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL,
    PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
    PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
    PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
    PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
    MAX_ITEMS_ADDED, MAX_ITEMS_REMOVED, MAX_ITEMS_INCREASED, MAX_ITEMS_DECREASED,
    MIN_ITEMS_ADDED, MIN_ITEMS_REMOVED, MIN_ITEMS_INCREASED, MIN_ITEMS_DECREASED,
    UNIQUE_ITEMS_ADDED, UNIQUE_ITEMS_REMOVED,
    MAX_CONTAINS_ADDED, MAX_CONTAINS_REMOVED, MAX_CONTAINS_INCREASED, MAX_CONTAINS_DECREASED,
    MIN_CONTAINS_ADDED, MIN_CONTAINS_REMOVED, MIN_CONTAINS_INCREASED, MIN_CONTAINS_DECREASED,
    ADDITIONAL_ITEMS_ADDED, ADDITIONAL_ITEMS_REMOVED, ADDITIONAL_ITEMS_EXTENDED, ADDITIONAL_ITEMS_NARROWED,
    UNEVALUATED_ITEMS_ADDED, UNEVALUATED_ITEMS_REMOVED, UNEVALUATED_ITEMS_EXTENDED, UNEVALUATED_ITEMS_NARROWED,
    ITEM_ADDED_TO_OPEN_CONTENT_MODEL, ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL,
    ITEM_ADDED_TO_CLOSED_CONTENT_MODEL, ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL, ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL,
    ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL,
    ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL, ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
    ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL, ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
    ENUM_ARRAY_EXTENDED, ENUM_ARRAY_NARROWED, ENUM_ARRAY_CHANGED, CONST_CHANGED,
    COMBINED_TYPE_EXTENDED, COMBINED_TYPE_CHANGED, COMBINED_TYPE_SUBSCHEMAS_CHANGED,
    PRODUCT_TYPE_EXTENDED, PRODUCT_TYPE_NARROWED, SUM_TYPE_EXTENDED, SUM_TYPE_NARROWED,
    NOT_TYPE_EXTENDED, NOT_TYPE_NARROWED
  }

  /** What the strict policy (Confluent's default) accepts. */
  static final Set<Type> COMPATIBLE_STRICT = EnumSet.of(
      Type.ID_CHANGED, Type.DESCRIPTION_CHANGED, Type.TITLE_CHANGED, Type.DEFAULT_CHANGED, Type.SCHEMA_REMOVED,
      Type.TYPE_EXTENDED,
      Type.MAX_LENGTH_INCREASED, Type.MAX_LENGTH_REMOVED, Type.MIN_LENGTH_DECREASED, Type.MIN_LENGTH_REMOVED,
      Type.PATTERN_REMOVED,
      Type.MAXIMUM_INCREASED, Type.MAXIMUM_REMOVED, Type.MINIMUM_DECREASED, Type.MINIMUM_REMOVED,
      Type.EXCLUSIVE_MAXIMUM_INCREASED, Type.EXCLUSIVE_MAXIMUM_REMOVED, Type.EXCLUSIVE_MINIMUM_DECREASED,
      Type.EXCLUSIVE_MINIMUM_REMOVED, Type.MULTIPLE_OF_REDUCED, Type.MULTIPLE_OF_REMOVED,
      Type.REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED, Type.REQUIRED_ATTRIBUTE_REMOVED, Type.DEPENDENCY_ARRAY_NARROWED,
      Type.DEPENDENCY_ARRAY_REMOVED, Type.DEPENDENCY_SCHEMA_REMOVED, Type.MAX_PROPERTIES_INCREASED,
      Type.MAX_PROPERTIES_REMOVED, Type.MIN_PROPERTIES_DECREASED, Type.MIN_PROPERTIES_REMOVED,
      Type.ADDITIONAL_PROPERTIES_ADDED, Type.ADDITIONAL_PROPERTIES_EXTENDED,
      Type.PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL,
      Type.REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL,
      Type.OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL, Type.PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL,
      Type.PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL, Type.PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
      Type.PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
      Type.MAX_ITEMS_INCREASED, Type.MAX_ITEMS_REMOVED, Type.MIN_ITEMS_DECREASED, Type.MIN_ITEMS_REMOVED,
      Type.UNIQUE_ITEMS_REMOVED, Type.ADDITIONAL_ITEMS_ADDED, Type.ADDITIONAL_ITEMS_EXTENDED,
      Type.ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL, Type.ITEM_ADDED_TO_CLOSED_CONTENT_MODEL,
      Type.ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL, Type.ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL,
      Type.ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
      Type.ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
      Type.MAX_CONTAINS_INCREASED, Type.MAX_CONTAINS_REMOVED, Type.MIN_CONTAINS_DECREASED, Type.MIN_CONTAINS_REMOVED,
      Type.UNEVALUATED_ITEMS_ADDED, Type.UNEVALUATED_ITEMS_EXTENDED,
      Type.ENUM_ARRAY_EXTENDED, Type.COMBINED_TYPE_EXTENDED, Type.PRODUCT_TYPE_NARROWED, Type.SUM_TYPE_EXTENDED,
      Type.NOT_TYPE_NARROWED);

  /** The lenient policy also lets {@code additionalProperties} and open content models change. */
  static final Set<Type> COMPATIBLE_LENIENT = withAll(COMPATIBLE_STRICT, EnumSet.of(
      Type.ADDITIONAL_PROPERTIES_NARROWED, Type.ADDITIONAL_PROPERTIES_REMOVED, Type.PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL,
      Type.PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
      Type.PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL));

  private static Set<Type> withAll(Set<Type> a, Set<Type> b) {
    Set<Type> all = EnumSet.copyOf(a);
    all.addAll(b);
    return all;
  }

  /** One change at a JSON pointer-like path such as {@code #/properties/address/properties/zip}. */
  record Difference(Type type, String path) {
    /**
     * Confluent's message for the change; {@code reader} and {@code writer} name the two schemas ("new"/"old"): the
     * diff's update is the reader, its original the writer.
     */
    String message(String reader, String writer) {
      return "{errorType:\"" + type + "\", description:\"" + describe(reader, writer) + "\"}";
    }

    private String describe(String reader, String writer) {
      String at = "path '" + path + "'";
      switch (type) {
        case MAXIMUM_ADDED, MINIMUM_ADDED, EXCLUSIVE_MAXIMUM_ADDED, EXCLUSIVE_MINIMUM_ADDED, MULTIPLE_OF_ADDED,
            MAX_LENGTH_ADDED, MIN_LENGTH_ADDED, PATTERN_ADDED, REQUIRED_ATTRIBUTE_ADDED, MAX_PROPERTIES_ADDED,
            MIN_PROPERTIES_ADDED, DEPENDENCY_ARRAY_ADDED, DEPENDENCY_SCHEMA_ADDED, MAX_ITEMS_ADDED, MIN_ITEMS_ADDED,
            UNIQUE_ITEMS_ADDED, ADDITIONAL_ITEMS_REMOVED, ADDITIONAL_PROPERTIES_REMOVED:
          return "The keyword at " + at + " in the " + reader + " schema is not present in the " + writer + " schema";
        case MIN_LENGTH_INCREASED, MINIMUM_INCREASED, EXCLUSIVE_MINIMUM_INCREASED, MIN_PROPERTIES_INCREASED,
            MULTIPLE_OF_EXPANDED, MIN_ITEMS_INCREASED:
          return "The value at " + at + " in the " + reader + " schema is more than its value in the " + writer
              + " schema";
        case MAX_LENGTH_DECREASED, MAXIMUM_DECREASED, MAX_ITEMS_DECREASED, EXCLUSIVE_MAXIMUM_DECREASED,
            MAX_PROPERTIES_DECREASED:
          return "The value at " + at + " in the " + reader + " schema is less than its value in the " + writer
              + " schema";
        case PATTERN_CHANGED, MULTIPLE_OF_CHANGED, DEPENDENCY_ARRAY_CHANGED:
          return "The value at " + at + " is different between the " + reader + " and " + writer + " schema";
        case ADDITIONAL_ITEMS_NARROWED, ENUM_ARRAY_NARROWED, SUM_TYPE_NARROWED, ADDITIONAL_PROPERTIES_NARROWED:
          return "An array or combined type at " + at + " has fewer elements in the " + reader + " schema than the "
              + writer + " schema";
        case DEPENDENCY_ARRAY_EXTENDED, PRODUCT_TYPE_EXTENDED, SUM_TYPE_EXTENDED, NOT_TYPE_EXTENDED:
          return "An array or combined type at " + at + " has more elements in the " + reader + " schema than the "
              + writer + " schema";
        case TYPE_CHANGED, TYPE_NARROWED, COMBINED_TYPE_CHANGED, COMBINED_TYPE_SUBSCHEMAS_CHANGED, ENUM_ARRAY_CHANGED:
          return "A type at " + at + " is different between the " + reader + " schema and the " + writer + " schema";
        case PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL, ITEM_ADDED_TO_OPEN_CONTENT_MODEL:
          return "The " + reader + " schema has an open content model and has a property or item at " + at
              + " which is missing in the " + writer + " schema";
        case REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL:
          return "The " + reader + " schema has an unopen content model and has a required property at " + at
              + " which is missing in the " + writer + " schema";
        case PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL, ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL:
          return "The " + reader + " has a closed content model and is missing a property or item present at " + at
              + " in the " + writer + " schema";
        case PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
            ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL:
          return "A property or item is missing in the " + reader + " schema but present at " + at + " in the "
              + writer + " schema and is not covered by its partially open content model";
        case PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
            ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL:
          return "The " + reader + " schema has a property or item at " + at + " which is missing in the " + writer
              + " schema and is not covered by its partially open content model";
        default:
          return "";
      }
    }
  }

  /** Node identity pair: the memo key. */
  private record Pair(Node original, Node update) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Pair p && p.original == original && p.update == update;
    }

    @Override
    public int hashCode() {
      return 31 * System.identityHashCode(original) + System.identityHashCode(update);
    }
  }

  private static final List<Difference> IN_PROGRESS = List.of();

  private final Set<Type> compatible;
  private final Clock clock;
  private final Duration budget;
  private final long deadline;
  private final Map<Pair, List<Difference>> memo = new HashMap<>();
  private final Deque<String> path = new ArrayDeque<>();
  private int steps;

  private JsonSchemaDiff(CompatibilityPolicy policy, Clock clock, Duration budget) {
    this.compatible = policy == CompatibilityPolicy.LENIENT ? COMPATIBLE_LENIENT : COMPATIBLE_STRICT;
    this.clock = clock;
    this.budget = budget;
    this.deadline = clock.millis() + budget.toMillis();
  }

  /** Every difference from {@code original} to {@code update}; {@link #isCompatible} judges them under a policy. */
  static List<Difference> compare(Node original, Node update, CompatibilityPolicy policy, Clock clock,
      Duration budget) {
    JsonSchemaDiff diff = new JsonSchemaDiff(policy, clock, budget);
    List<Difference> out = new ArrayList<>();
    diff.compare(out, original, update);
    return List.copyOf(new LinkedHashSet<>(out));
  }

  static boolean isCompatible(Difference d, CompatibilityPolicy policy) {
    return (policy == CompatibilityPolicy.LENIENT ? COMPATIBLE_LENIENT : COMPATIBLE_STRICT).contains(d.type());
  }

  private boolean allCompatible(List<Difference> ds) {
    for (Difference d : ds) {
      if (!compatible.contains(d.type())) {
        return false;
      }
    }
    return true;
  }

  private Difference at(Type type) {
    return new Difference(type, "#/" + String.join("/", path));
  }

  private Difference at(String segment, Type type) {
    enter(segment);
    Difference d = at(type);
    leave();
    return d;
  }

  private void enter(String segment) {
    path.addLast(segment);
  }

  private void leave() {
    path.removeLast();
  }

  /** Compares into a fresh list, which the caller judges before deciding what to keep. */
  private List<Difference> sub(Node original, Node update) {
    List<Difference> out = new ArrayList<>();
    compare(out, original, update);
    return out;
  }

  private static Node deref(Node n) {
    Set<Node.Ref> seen = new HashSet<>();
    while (n instanceof Node.Ref r && seen.add(r)) {
      n = r.target();
    }
    return n;
  }

  private void compare(List<Difference> out, Node original, Node update) {
    if (++steps % 64 == 0 && clock.millis() > deadline) {
      throw new ComparisonBudgetExceededException(budget);
    }
    if (original == null && update == null) {
      return;
    } else if (original == null) {
      out.add(at(Type.SCHEMA_ADDED));
      return;
    } else if (update == null) {
      out.add(at(Type.SCHEMA_REMOVED));
      return;
    }
    original = deref(original);
    update = deref(update);
    Pair key = new Pair(original, update);
    List<Difference> known = memo.get(key);
    if (known != null) {
      out.addAll(known); // IN_PROGRESS is empty: a pair met inside itself counts as compatible
      return;
    }
    memo.put(key, IN_PROGRESS);
    List<Difference> found = new ArrayList<>();
    compareUncached(found, original, update);
    memo.put(key, List.copyOf(found));
    out.addAll(found);
  }

  private void compareUncached(List<Difference> out, Node original, Node update) {
    if (!(original instanceof Node.Combined) && update instanceof Node.Combined u) {
      if (u.subschemas().size() == 1) {
        List<Difference> s = sub(original, u.subschemas().get(0));
        if (allCompatible(s)) {
          out.addAll(s);
          return;
        }
      } else if (u.criterion() != Node.Criterion.ALL) {
        // A value of the original's type is now one of several alternatives.
        for (Node alternative : u.subschemas()) {
          List<Difference> s = sub(original, alternative);
          if (allCompatible(s)) {
            out.addAll(s);
            out.add(at(Type.SUM_TYPE_EXTENDED));
            return;
          }
        }
      }
    } else if (original instanceof Node.Combined o && !(update instanceof Node.Combined)) {
      if (o.subschemas().size() == 1) {
        List<Difference> s = sub(o.subschemas().get(0), update);
        if (allCompatible(s)) {
          out.addAll(s);
          return;
        }
      }
      if (o.criterion() == Node.Criterion.ALL) {
        // Dropping all but one of several conjoined constraints only relaxes.
        for (Node part : o.subschemas()) {
          List<Difference> s = sub(part, update);
          if (allCompatible(s)) {
            out.addAll(s);
            out.add(at(Type.PRODUCT_TYPE_NARROWED));
            return;
          }
        }
      }
    }
    if (!sameKind(original, update)) {
      if (!(original instanceof Node.False) && !(update instanceof Node.Empty)) {
        out.add(at(Type.TYPE_CHANGED));
      }
      return;
    }
    annotations(out, original.raw(), update.raw());
    if (original instanceof Node.Str o) {
      strings(out, o, (Node.Str) update);
    } else if (original instanceof Node.Num o) {
      numbers(out, o, (Node.Num) update);
    } else if (original instanceof Node.Const o) {
      if (!o.value().equals(((Node.Const) update).value())) {
        out.add(at("const", Type.CONST_CHANGED));
      }
    } else if (original instanceof Node.Enum o) {
      enums(out, o, (Node.Enum) update);
    } else if (original instanceof Node.Combined o) {
      combined(out, o, (Node.Combined) update);
    } else if (original instanceof Node.Not o) {
      not(out, o, (Node.Not) update);
    } else if (original instanceof Node.Obj o) {
      objects(out, o, (Node.Obj) update);
    } else if (original instanceof Node.Arr o) {
      arrays(out, o, (Node.Arr) update);
    }
  }

  private static boolean sameKind(Node a, Node b) {
    return a.getClass() == b.getClass();
  }

  private void annotations(List<Difference> out, JsonNode o, JsonNode u) {
    if (!Objects.equals(text(o, "$id", "id"), text(u, "$id", "id"))) {
      out.add(at(Type.ID_CHANGED));
    }
    if (!Objects.equals(o.get("title"), u.get("title"))) {
      out.add(at(Type.TITLE_CHANGED));
    }
    if (!Objects.equals(o.get("description"), u.get("description"))) {
      out.add(at(Type.DESCRIPTION_CHANGED));
    }
    if (!Objects.equals(o.get("default"), u.get("default"))) {
      out.add(at(Type.DEFAULT_CHANGED));
    }
  }

  private static String text(JsonNode n, String... fields) {
    for (String f : fields) {
      if (n.path(f).isTextual()) {
        return n.get(f).asText();
      }
    }
    return null;
  }

  // ---- scalars ----

  /** Which way a bound moved, for a bound where a larger value accepts more ({@code upper}) or fewer. */
  private void bound(List<Difference> out, String keyword, BigDecimal o, BigDecimal u, Type added, Type removed,
      Type increased, Type decreased) {
    if (Objects.equals(o, u) || (o != null && u != null && o.compareTo(u) == 0)) {
      return;
    }
    if (o == null) {
      out.add(at(keyword, added));
    } else if (u == null) {
      out.add(at(keyword, removed));
    } else if (o.compareTo(u) < 0) {
      out.add(at(keyword, increased));
    } else {
      out.add(at(keyword, decreased));
    }
  }

  private static BigDecimal big(Integer i) {
    return i == null ? null : BigDecimal.valueOf(i);
  }

  private void strings(List<Difference> out, Node.Str o, Node.Str u) {
    bound(out, "maxLength", big(o.maxLength()), big(u.maxLength()), Type.MAX_LENGTH_ADDED, Type.MAX_LENGTH_REMOVED,
        Type.MAX_LENGTH_INCREASED, Type.MAX_LENGTH_DECREASED);
    bound(out, "minLength", big(o.minLength()), big(u.minLength()), Type.MIN_LENGTH_ADDED, Type.MIN_LENGTH_REMOVED,
        Type.MIN_LENGTH_INCREASED, Type.MIN_LENGTH_DECREASED);
    if (!Objects.equals(o.pattern(), u.pattern())) {
      out.add(at("pattern", o.pattern() == null ? Type.PATTERN_ADDED
          : u.pattern() == null ? Type.PATTERN_REMOVED : Type.PATTERN_CHANGED));
    }
  }

  private void numbers(List<Difference> out, Node.Num o, Node.Num u) {
    bound(out, "maximum", o.maximum(), u.maximum(), Type.MAXIMUM_ADDED, Type.MAXIMUM_REMOVED,
        Type.MAXIMUM_INCREASED, Type.MAXIMUM_DECREASED);
    bound(out, "minimum", o.minimum(), u.minimum(), Type.MINIMUM_ADDED, Type.MINIMUM_REMOVED,
        Type.MINIMUM_INCREASED, Type.MINIMUM_DECREASED);
    bound(out, "exclusiveMaximum", o.exclusiveMaximum(), u.exclusiveMaximum(), Type.EXCLUSIVE_MAXIMUM_ADDED,
        Type.EXCLUSIVE_MAXIMUM_REMOVED, Type.EXCLUSIVE_MAXIMUM_INCREASED, Type.EXCLUSIVE_MAXIMUM_DECREASED);
    bound(out, "exclusiveMinimum", o.exclusiveMinimum(), u.exclusiveMinimum(), Type.EXCLUSIVE_MINIMUM_ADDED,
        Type.EXCLUSIVE_MINIMUM_REMOVED, Type.EXCLUSIVE_MINIMUM_INCREASED, Type.EXCLUSIVE_MINIMUM_DECREASED);
    BigDecimal om = o.multipleOf();
    BigDecimal um = u.multipleOf();
    if (!(om == null && um == null) && (om == null || um == null || om.compareTo(um) != 0)) {
      if (om == null) {
        out.add(at("multipleOf", Type.MULTIPLE_OF_ADDED));
      } else if (um == null) {
        out.add(at("multipleOf", Type.MULTIPLE_OF_REMOVED));
      } else if (om.remainder(um).signum() == 0) {
        out.add(at("multipleOf", Type.MULTIPLE_OF_REDUCED)); // every multiple of the old is a multiple of the new
      } else if (um.remainder(om).signum() == 0) {
        out.add(at("multipleOf", Type.MULTIPLE_OF_EXPANDED));
      } else {
        out.add(at("multipleOf", Type.MULTIPLE_OF_CHANGED));
      }
    }
    if (o.integer() != u.integer()) {
      out.add(at(o.integer() ? Type.TYPE_EXTENDED : Type.TYPE_NARROWED));
    }
  }

  private void enums(List<Difference> out, Node.Enum o, Node.Enum u) {
    if (o.values().equals(u.values())) {
      return;
    }
    if (u.values().containsAll(o.values())) {
      out.add(at("enum", Type.ENUM_ARRAY_EXTENDED));
    } else if (o.values().containsAll(u.values())) {
      out.add(at("enum", Type.ENUM_ARRAY_NARROWED));
    } else {
      out.add(at("enum", Type.ENUM_ARRAY_CHANGED));
    }
  }

  private void not(List<Difference> out, Node.Not o, Node.Not u) {
    // "not A" accepts more when A accepts less: compare the negated schemas the other way round.
    List<Difference> s = sub(u.schema(), o.schema());
    if (!allCompatible(s)) {
      out.add(at("not", Type.NOT_TYPE_EXTENDED));
    } else if (!s.isEmpty()) {
      out.add(at("not", Type.NOT_TYPE_NARROWED));
    }
  }

  // ---- combinations ----

  private void combined(List<Difference> out, Node.Combined o, Node.Combined u) {
    Type criterion = criterionChange(o, u);
    if (criterion == Type.COMBINED_TYPE_CHANGED) {
      out.add(at(criterion));
      return;
    }
    if (criterion != null) {
      out.add(at(criterion));
    }
    List<Node> os = o.subschemas();
    List<Node> us = u.subschemas();
    // More alternatives are named after the update's criterion, fewer after the original's (Confluent since 7.6):
    // an allOf that loses schemas, whatever it became, is a product narrowed, which only relaxes.
    if (os.size() < us.size()) {
      out.add(at(u.criterion() == Node.Criterion.ALL ? Type.PRODUCT_TYPE_EXTENDED : Type.SUM_TYPE_EXTENDED));
    } else if (os.size() > us.size()) {
      out.add(at(o.criterion() == Node.Criterion.ALL ? Type.PRODUCT_TYPE_NARROWED : Type.SUM_TYPE_NARROWED));
    }
    // Which original alternatives each update alternative can stand in for, then the largest one-to-one matching.
    List<List<Difference>>[] edges = edgeTable(os.size(), us.size());
    for (int i = 0; i < os.size(); i++) {
      enter(o.criterion().keyword + "/" + i);
      for (int j = 0; j < us.size(); j++) {
        List<Difference> s = sub(os.get(i), us.get(j));
        if (allCompatible(s)) {
          edges[i].set(j, s);
        }
      }
      leave();
    }
    int[] matchOfUpdate = new int[us.size()];
    Arrays.fill(matchOfUpdate, -1);
    int matched = 0;
    for (int i = 0; i < os.size(); i++) {
      if (augment(i, edges, matchOfUpdate, new boolean[us.size()])) {
        matched++;
      }
    }
    for (int j = 0; j < us.size(); j++) {
      if (matchOfUpdate[j] >= 0) {
        out.addAll(edges[matchOfUpdate[j]].get(j));
      }
    }
    if (matched < Math.min(os.size(), us.size())) {
      out.add(at(Type.COMBINED_TYPE_SUBSCHEMAS_CHANGED));
    }
  }

  @SuppressWarnings("unchecked")
  private static List<List<Difference>>[] edgeTable(int rows, int columns) {
    List<List<Difference>>[] table = new List[rows];
    for (int i = 0; i < rows; i++) {
      table[i] = new ArrayList<>();
      for (int j = 0; j < columns; j++) {
        table[i].add(null);
      }
    }
    return table;
  }

  /** Kuhn's augmenting path step of bipartite matching. */
  private static boolean augment(int i, List<List<Difference>>[] edges, int[] matchOfUpdate, boolean[] visited) {
    for (int j = 0; j < matchOfUpdate.length; j++) {
      if (edges[i].get(j) != null && !visited[j]) {
        visited[j] = true;
        if (matchOfUpdate[j] < 0 || augment(matchOfUpdate[j], edges, matchOfUpdate, visited)) {
          matchOfUpdate[j] = i;
          return true;
        }
      }
    }
    return false;
  }

  private static Type criterionChange(Node.Combined o, Node.Combined u) {
    if (o.criterion() == u.criterion()) {
      return null;
    }
    if (u.criterion() == Node.Criterion.ANY) {
      return Type.COMBINED_TYPE_EXTENDED; // allOf or oneOf to anyOf accepts at least as much
    }
    if (u.criterion() == Node.Criterion.ONE) {
      // From one alternative, or from an allOf down to a single schema: a value matches exactly one branch.
      boolean extended = o.subschemas().size() == 1
          || (u.subschemas().size() == 1 && o.criterion() == Node.Criterion.ALL);
      return extended ? Type.COMBINED_TYPE_EXTENDED : Type.COMBINED_TYPE_CHANGED;
    }
    return o.subschemas().size() == 1 && u.subschemas().size() == 1 ? Type.COMBINED_TYPE_EXTENDED
        : Type.COMBINED_TYPE_CHANGED;
  }

  // ---- objects ----

  private void objects(List<Difference> out, Node.Obj o, Node.Obj u) {
    enter("required");
    for (String name : o.properties().keySet()) {
      if (u.properties().containsKey(name)) {
        boolean was = o.required().contains(name);
        boolean is = u.required().contains(name);
        if (was && !is) {
          out.add(at(name, Type.REQUIRED_ATTRIBUTE_REMOVED));
        } else if (!was && is) {
          out.add(at(name, hasDefault(u.properties().get(name)) ? Type.REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED
              : Type.REQUIRED_ATTRIBUTE_ADDED));
        }
      }
    }
    leave();
    enter("properties");
    for (String name : new TreeSet<>(union(o.properties().keySet(), u.properties().keySet()))) {
      enter(name);
      Node before = o.properties().get(name);
      Node after = u.properties().get(name);
      if (after == null) {
        propertyRemoved(out, before, u, name);
      } else if (before == null) {
        propertyAdded(out, after, o, u, name);
      } else {
        compare(out, before, after);
      }
      leave();
    }
    leave();
    enter("dependencies");
    for (String name : new TreeSet<>(union(o.dependentRequired().keySet(), u.dependentRequired().keySet()))) {
      Set<String> before = o.dependentRequired().get(name);
      Set<String> after = u.dependentRequired().get(name);
      if (after == null) {
        out.add(at(name, Type.DEPENDENCY_ARRAY_REMOVED));
      } else if (before == null) {
        out.add(at(name, Type.DEPENDENCY_ARRAY_ADDED));
      } else if (!before.equals(after)) {
        out.add(at(name, after.containsAll(before) ? Type.DEPENDENCY_ARRAY_EXTENDED
            : before.containsAll(after) ? Type.DEPENDENCY_ARRAY_NARROWED : Type.DEPENDENCY_ARRAY_CHANGED));
      }
    }
    for (String name : new TreeSet<>(union(o.dependentSchemas().keySet(), u.dependentSchemas().keySet()))) {
      Node before = o.dependentSchemas().get(name);
      Node after = u.dependentSchemas().get(name);
      if (after == null) {
        out.add(at(name, Type.DEPENDENCY_SCHEMA_REMOVED));
      } else if (before == null) {
        out.add(at(name, Type.DEPENDENCY_SCHEMA_ADDED));
      } else {
        enter(name);
        compare(out, before, after);
        leave();
      }
    }
    leave();
    enter("additionalProperties");
    if (o.permitsAdditional() != u.permitsAdditional()) {
      out.add(at(u.permitsAdditional() ? Type.ADDITIONAL_PROPERTIES_ADDED : Type.ADDITIONAL_PROPERTIES_REMOVED));
    } else if (o.additional() == null && u.additional() != null) {
      out.add(at(Type.ADDITIONAL_PROPERTIES_NARROWED));
    } else if (o.additional() != null && u.additional() == null) {
      out.add(at(Type.ADDITIONAL_PROPERTIES_EXTENDED));
    } else {
      compare(out, o.additional(), u.additional());
    }
    leave();
    bound(out, "maxProperties", big(o.maxProperties()), big(u.maxProperties()), Type.MAX_PROPERTIES_ADDED,
        Type.MAX_PROPERTIES_REMOVED, Type.MAX_PROPERTIES_INCREASED, Type.MAX_PROPERTIES_DECREASED);
    bound(out, "minProperties", big(o.minProperties()), big(u.minProperties()), Type.MIN_PROPERTIES_ADDED,
        Type.MIN_PROPERTIES_REMOVED, Type.MIN_PROPERTIES_INCREASED, Type.MIN_PROPERTIES_DECREASED);
  }

  private static Set<String> union(Set<String> a, Set<String> b) {
    Set<String> all = new LinkedHashSet<>(a);
    all.addAll(b);
    return all;
  }

  private static boolean hasDefault(Node n) {
    return n.raw().has("default") || deref(n).raw().has("default");
  }

  /** A property the update no longer names: its values now fall to the update's content model. */
  private void propertyRemoved(List<Difference> out, Node before, Node.Obj update, String name) {
    if (update.open()) {
      out.add(at(Type.PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL));
      return;
    }
    Node partial = partialSchema(update, name);
    if (partial != null) {
      List<Difference> s = sub(before, partial);
      out.addAll(s);
      out.add(at(allCompatible(s) ? Type.PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL
          : Type.PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL));
    } else {
      out.add(at(deref(before) instanceof Node.False ? Type.PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL
          : Type.PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL));
    }
  }

  /** A property the original did not name: its values used to fall to the original's content model. */
  private void propertyAdded(List<Difference> out, Node after, Node.Obj original, Node.Obj update, String name) {
    if (original.open()) {
      out.add(at(deref(after) instanceof Node.Empty ? Type.PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL
          : Type.PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL));
      return;
    }
    Node partial = partialSchema(original, name);
    if (partial != null) {
      List<Difference> s = sub(partial, after);
      out.addAll(s);
      out.add(at(allCompatible(s) ? Type.PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL
          : Type.PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL));
    }
    if (update.required().contains(name)) {
      out.add(at(hasDefault(after) ? Type.REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL
          : Type.REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL));
    } else {
      out.add(at(Type.OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL));
    }
  }

  /** The schema an unnamed property gets in a partially open model: a matching pattern's, else the additional one. */
  private static Node partialSchema(Node.Obj o, String name) {
    for (Map.Entry<String, Node> e : o.patternProperties().entrySet()) {
      if (Pattern.compile(e.getKey()).matcher(name).find()) {
        return e.getValue();
      }
    }
    return o.additional();
  }

  // ---- arrays ----

  private void arrays(List<Difference> out, Node.Arr o, Node.Arr u) {
    enter("items");
    compare(out, o.items(), u.items());
    leave();
    tuples(out, o, u);
    enter("additionalItems");
    if (o.permitsAdditional() != u.permitsAdditional()) {
      out.add(at(o.permitsAdditional() ? Type.ADDITIONAL_ITEMS_REMOVED : Type.ADDITIONAL_ITEMS_ADDED));
    } else if (o.additional() == null && u.additional() != null) {
      out.add(at(Type.ADDITIONAL_ITEMS_NARROWED));
    } else if (o.additional() != null && u.additional() == null) {
      out.add(at(Type.ADDITIONAL_ITEMS_EXTENDED));
    } else {
      compare(out, o.additional(), u.additional());
    }
    leave();
    unevaluated(out, o.unevaluated(), u.unevaluated());
    bound(out, "maxItems", big(o.maxItems()), big(u.maxItems()), Type.MAX_ITEMS_ADDED, Type.MAX_ITEMS_REMOVED,
        Type.MAX_ITEMS_INCREASED, Type.MAX_ITEMS_DECREASED);
    bound(out, "minItems", big(o.minItems()), big(u.minItems()), Type.MIN_ITEMS_ADDED, Type.MIN_ITEMS_REMOVED,
        Type.MIN_ITEMS_INCREASED, Type.MIN_ITEMS_DECREASED);
    if (o.uniqueItems() != u.uniqueItems()) {
      out.add(at("uniqueItems", o.uniqueItems() ? Type.UNIQUE_ITEMS_REMOVED : Type.UNIQUE_ITEMS_ADDED));
    }
    bound(out, "maxContains", big(o.maxContains()), big(u.maxContains()), Type.MAX_CONTAINS_ADDED,
        Type.MAX_CONTAINS_REMOVED, Type.MAX_CONTAINS_INCREASED, Type.MAX_CONTAINS_DECREASED);
    bound(out, "minContains", big(o.minContains()), big(u.minContains()), Type.MIN_CONTAINS_ADDED,
        Type.MIN_CONTAINS_REMOVED, Type.MIN_CONTAINS_INCREASED, Type.MIN_CONTAINS_DECREASED);
  }

  private void unevaluated(List<Difference> out, Node o, Node u) {
    if (o == null && u == null) {
      return;
    }
    enter("unevaluatedItems");
    if (o == null) {
      out.add(at(u instanceof Node.False ? Type.UNEVALUATED_ITEMS_REMOVED : Type.UNEVALUATED_ITEMS_NARROWED));
    } else if (u == null) {
      out.add(at(o instanceof Node.False ? Type.UNEVALUATED_ITEMS_ADDED : Type.UNEVALUATED_ITEMS_EXTENDED));
    } else if (o instanceof Node.False && !(u instanceof Node.False)) {
      out.add(at(Type.UNEVALUATED_ITEMS_ADDED));
    } else if (!(o instanceof Node.False) && u instanceof Node.False) {
      out.add(at(Type.UNEVALUATED_ITEMS_REMOVED));
    } else if (o instanceof Node.Empty && !(u instanceof Node.Empty)) {
      out.add(at(Type.UNEVALUATED_ITEMS_NARROWED));
    } else if (!(o instanceof Node.Empty) && u instanceof Node.Empty) {
      out.add(at(Type.UNEVALUATED_ITEMS_EXTENDED));
    } else {
      compare(out, o, u);
    }
    leave();
  }

  private void tuples(List<Difference> out, Node.Arr o, Node.Arr u) {
    List<Node> os = o.tuple();
    List<Node> us = u.tuple();
    int common = Math.min(os.size(), us.size());
    for (int i = 0; i < Math.max(os.size(), us.size()); i++) {
      enter("items/" + i);
      if (i < common) {
        compare(out, os.get(i), us.get(i));
      } else if (i < os.size()) {
        // A position the update no longer describes falls to its additional-items model.
        Node before = os.get(i);
        if (u.open()) {
          out.add(at(Type.ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL));
        } else if (u.partial() != null) {
          List<Difference> s = sub(before, u.partial());
          out.addAll(s);
          out.add(at(allCompatible(s) ? Type.ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL
              : Type.ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL));
        } else {
          out.add(at(deref(before) instanceof Node.False ? Type.ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL
              : Type.ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL));
        }
      } else {
        Node after = us.get(i);
        if (o.open()) {
          out.add(at(deref(after) instanceof Node.Empty ? Type.ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL
              : Type.ITEM_ADDED_TO_OPEN_CONTENT_MODEL));
        } else if (o.partial() != null) {
          List<Difference> s = sub(o.partial(), after);
          out.addAll(s);
          out.add(at(allCompatible(s) ? Type.ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL
              : Type.ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL));
        } else {
          out.add(at(Type.ITEM_ADDED_TO_CLOSED_CONTENT_MODEL));
        }
      }
      leave();
    }
  }
}
