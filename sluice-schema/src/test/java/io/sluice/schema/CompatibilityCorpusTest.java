package io.sluice.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.sluice.schema.CompatibilityChecker.Previous;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The equivalence corpus: pairs (or short histories) of schemas, each with the kind of change, the verdict Confluent
 * Schema Registry gives under each mode and why. Files: {@code compat/protobuf.yaml}, {@code compat/jsonschema.yaml}.
 *
 * <p>A case has {@code versions} (oldest first; the last is the candidate) or {@code old}/{@code new}, optional
 * {@code dependencies} (import name to text, passed as resolved references), {@code expect} (mode to verdict under the
 * strict policy) and optionally {@code lenient} (mode to verdict under the lenient policy).
 */
class CompatibilityCorpusTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Map<SchemaType, SchemaProvider> PROVIDERS = SchemaFormats.all();
  private static final CompatibilityChecker CHECKER = new CompatibilityChecker(PROVIDERS);

  record Case(String file, SchemaType type, JsonNode spec) {
    @Override
    public String toString() {
      return file + ": " + spec.path("kind").asText();
    }
  }

  static Stream<Arguments> cases() {
    return Stream.concat(load("protobuf.yaml", SchemaType.PROTOBUF), load("jsonschema.yaml", SchemaType.JSON))
        .map(c -> Arguments.of(c.toString(), c));
  }

  static Stream<Case> load(String file, SchemaType type) {
    try (InputStream in = CompatibilityCorpusTest.class.getResourceAsStream("/compat/" + file)) {
      List<Case> out = new ArrayList<>();
      for (JsonNode n : YAML.readTree(in)) {
        out.add(new Case(file, type, n));
      }
      return out.stream();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static List<ParsedSchema> versions(Case c) throws InvalidSchemaException {
    List<Dependency> deps = new ArrayList<>();
    List<SchemaReference> refs = new ArrayList<>();
    Iterator<Map.Entry<String, JsonNode>> it = c.spec().path("dependencies").fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> d = it.next();
      deps.add(new Dependency(d.getKey(), c.type(), d.getValue().asText()));
      refs.add(new SchemaReference(d.getKey(), d.getKey(), 1));
    }
    List<String> texts = new ArrayList<>();
    if (c.spec().has("versions")) {
      c.spec().get("versions").forEach(v -> texts.add(v.asText()));
    } else {
      texts.add(c.spec().get("old").asText());
      texts.add(c.spec().get("new").asText());
    }
    List<ParsedSchema> parsed = new ArrayList<>();
    for (String t : texts) {
      parsed.add(PROVIDERS.get(c.type()).parse(t, refs, deps));
    }
    return parsed;
  }

  /** Whether the last version may follow the others under {@code level}. */
  static boolean compatible(List<ParsedSchema> versions, CompatibilityLevel level, CompatibilityPolicy policy) {
    List<Previous> previous = new ArrayList<>();
    for (int i = versions.size() - 2; i >= 0; i--) {
      previous.add(new Previous(i + 1, versions.get(i)));
    }
    List<String> errors = CHECKER.check(level, policy, versions.get(versions.size() - 1), previous);
    return errors.isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void verdictMatchesTheReferenceRegistry(String name, Case c) throws Exception {
    assertTrue(c.spec().hasNonNull("why"), name + ": every case states its reasoning");
    assertTrue(c.spec().has("expect"), name + ": every case states its verdicts");
    List<ParsedSchema> versions = versions(c);
    check(name, versions, c.spec().get("expect"), CompatibilityPolicy.STRICT);
    if (c.spec().has("lenient")) {
      check(name, versions, c.spec().get("lenient"), CompatibilityPolicy.LENIENT);
    }
    assertTrue(compatible(versions, CompatibilityLevel.NONE, CompatibilityPolicy.STRICT), name + ": NONE accepts all");
  }

  private static void check(String name, List<ParsedSchema> versions, JsonNode expect, CompatibilityPolicy policy) {
    Iterator<Map.Entry<String, JsonNode>> it = expect.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      CompatibilityLevel level = CompatibilityLevel.forName(e.getKey()).orElseThrow();
      assertEquals(e.getValue().asBoolean(), compatible(versions, level, policy),
          name + " under " + level + " (" + policy + ")");
    }
  }

  @Test
  void corpusIsLargeEnough() {
    assertTrue(load("protobuf.yaml", SchemaType.PROTOBUF).count() >= 60);
    assertTrue(load("jsonschema.yaml", SchemaType.JSON).count() >= 150);
  }

  @Test
  void everyCaseHasAnIncompatibleOrCompatibleVerdictSomewhere() {
    long withIncompatible = Stream.concat(load("protobuf.yaml", SchemaType.PROTOBUF),
            load("jsonschema.yaml", SchemaType.JSON))
        .filter(c -> c.spec().get("expect").toString().contains("false")).count();
    assertFalse(withIncompatible == 0);
  }
}
