package io.sluice.schema.jsonschema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.schema.ComparisonBudgetExceededException;
import io.sluice.schema.CompatibilityPolicy;
import io.sluice.schema.Dependency;
import io.sluice.schema.Incompatibility;
import io.sluice.schema.ParsedSchema;
import io.sluice.schema.SchemaReference;
import io.sluice.schema.SchemaType;
import io.sluice.testing.TestClock;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class JsonSchemaProviderTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private final JsonSchemaProvider provider = new JsonSchemaProvider();

  /** A node that is one of {@code branches} object shapes, each holding the next node: recursion through a wide oneOf. */
  static String recursiveOneOf(int branches, int maxLength) {
    StringBuilder b = new StringBuilder("{\"$ref\":\"#/definitions/node\",\"definitions\":{\"node\":{\"oneOf\":[");
    for (int i = 0; i < branches; i++) {
      b.append(i == 0 ? "" : ",").append("{\"type\":\"object\",\"properties\":{\"k").append(i)
          .append("\":{\"type\":\"string\",\"maxLength\":").append(maxLength).append("},")
          .append("\"next\":{\"$ref\":\"#/definitions/node\"}},\"required\":[\"k").append(i).append("\"]}");
    }
    return b.append("]}}}").toString();
  }

  private ParsedSchema parse(String text) throws Exception {
    return provider.parse(text, List.of(), List.of());
  }

  @Test
  void recursiveWideOneOfFinishesWithTheRightVerdict() throws Exception {
    ParsedSchema narrow = parse(recursiveOneOf(20, 10));
    ParsedSchema wide = parse(recursiveOneOf(20, 20));
    // Wider strings in every branch: the wide schema reads the narrow one's data, not the other way round.
    assertEquals(List.of(), provider.readIncompatibilities(wide, narrow, true, CompatibilityPolicy.STRICT));
    List<Incompatibility> back = provider.readIncompatibilities(narrow, wide, false, CompatibilityPolicy.STRICT);
    assertFalse(back.isEmpty());
    assertTrue(back.stream().anyMatch(i -> i.kind().equals("COMBINED_TYPE_SUBSCHEMAS_CHANGED")), back.toString());
  }

  @Test
  void budgetIsMeasuredWithTheInjectedClock() throws Exception {
    Clock ticking = TestClock.ticking();
    JsonSchemaProvider slow = new JsonSchemaProvider(ticking, Duration.ofMillis(100));
    ParsedSchema a = slow.parse(recursiveOneOf(20, 10), List.of(), List.of());
    ParsedSchema b = slow.parse(recursiveOneOf(20, 20), List.of(), List.of());
    ComparisonBudgetExceededException e = assertThrows(ComparisonBudgetExceededException.class,
        () -> slow.readIncompatibilities(b, a, true, CompatibilityPolicy.STRICT));
    assertTrue(e.getMessage().contains("100 ms"));
  }

  @Test
  void validatesInstancesWithReferences() throws Exception {
    String address = "{\"type\":\"object\",\"properties\":{\"zip\":{\"type\":\"string\",\"maxLength\":5}},"
        + "\"required\":[\"zip\"]}";
    ParsedSchema customer = provider.parse(
        "{\"type\":\"object\",\"properties\":{\"home\":{\"$ref\":\"address.json\"}},\"required\":[\"home\"]}",
        List.of(new SchemaReference("address.json", "address", 1)),
        List.of(new Dependency("address.json", SchemaType.JSON, address)));
    assertEquals(List.of(), JsonSchemaProvider.validate(customer, MAPPER.readTree("{\"home\":{\"zip\":\"12345\"}}")));
    List<String> errors = JsonSchemaProvider.validate(customer, MAPPER.readTree("{\"home\":{\"zip\":\"1234567\"}}"));
    assertEquals(1, errors.size(), errors.toString());
    assertFalse(JsonSchemaProvider.validate(customer, MAPPER.readTree("{}")).isEmpty());
  }

  @Test
  void everyDraftParses() throws Exception {
    for (String draft : List.of("http://json-schema.org/draft-04/schema#", "http://json-schema.org/draft-06/schema#",
        "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2019-09/schema",
        "https://json-schema.org/draft/2020-12/schema")) {
      ParsedSchema s = parse("{\"$schema\":\"" + draft + "\",\"type\":\"object\",\"properties\":{\"a\":{\"type\":"
          + "\"integer\",\"minimum\":0}}}");
      assertEquals(SchemaType.JSON, s.type());
    }
  }
}
