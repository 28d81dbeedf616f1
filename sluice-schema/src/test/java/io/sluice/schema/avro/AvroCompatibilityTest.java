package io.sluice.schema.avro;

import static io.sluice.schema.CompatibilityLevel.BACKWARD;
import static io.sluice.schema.CompatibilityLevel.BACKWARD_TRANSITIVE;
import static io.sluice.schema.CompatibilityLevel.FORWARD;
import static io.sluice.schema.CompatibilityLevel.FORWARD_TRANSITIVE;
import static io.sluice.schema.CompatibilityLevel.FULL;
import static io.sluice.schema.CompatibilityLevel.FULL_TRANSITIVE;
import static io.sluice.schema.CompatibilityLevel.NONE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.schema.CompatibilityChecker;
import io.sluice.schema.CompatibilityChecker.Previous;
import io.sluice.schema.CompatibilityLevel;
import io.sluice.schema.Dependency;
import io.sluice.schema.InvalidSchemaException;
import io.sluice.schema.ParsedSchema;
import io.sluice.schema.SchemaReference;
import io.sluice.schema.SchemaType;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Confluent's decisions for Avro, mode by mode; each case states which modes accept the change. */
class AvroCompatibilityTest {
  private static final AvroSchemaProvider AVRO = new AvroSchemaProvider();
  private static final CompatibilityChecker CHECKER = new CompatibilityChecker(Map.of(SchemaType.AVRO, AVRO));

  private static final Set<CompatibilityLevel> ALL = EnumSet.allOf(CompatibilityLevel.class);
  private static final Set<CompatibilityLevel> BACKWARD_ONLY = EnumSet.of(NONE, BACKWARD, BACKWARD_TRANSITIVE);
  private static final Set<CompatibilityLevel> FORWARD_ONLY = EnumSet.of(NONE, FORWARD, FORWARD_TRANSITIVE);
  private static final Set<CompatibilityLevel> ONLY_NONE = EnumSet.of(NONE);

  static ParsedSchema avro(String text) {
    try {
      return AVRO.parse(text, List.of(), List.of());
    } catch (InvalidSchemaException e) {
      throw new AssertionError(e.getMessage(), e);
    }
  }

  static String record(String fields) {
    return "{\"type\":\"record\",\"name\":\"R\",\"namespace\":\"t\",\"fields\":[" + fields + "]}";
  }

  /** Asserts exactly the modes in {@code accepted} accept {@code next} after {@code first} (one earlier version). */
  private static void accepts(Set<CompatibilityLevel> accepted, String first, String next) {
    ParsedSchema a = avro(first);
    ParsedSchema b = avro(next);
    for (CompatibilityLevel level : CompatibilityLevel.values()) {
      List<String> errors = CHECKER.check(level, b, List.of(new Previous(1, a)));
      assertEquals(accepted.contains(level), errors.isEmpty(), level + ": " + errors);
    }
  }

  @Test
  void identicalSchemaPassesEveryMode() {
    String s = record("{\"name\":\"a\",\"type\":\"int\"}");
    accepts(ALL, s, s);
  }

  @Test
  void addFieldWithDefault() {
    accepts(ALL, record("{\"name\":\"a\",\"type\":\"int\"}"),
        record("{\"name\":\"a\",\"type\":\"int\"},{\"name\":\"b\",\"type\":\"string\",\"default\":\"x\"}"));
  }

  @Test
  void addFieldWithoutDefaultIsForwardOnly() {
    accepts(FORWARD_ONLY, record("{\"name\":\"a\",\"type\":\"int\"}"),
        record("{\"name\":\"a\",\"type\":\"int\"},{\"name\":\"b\",\"type\":\"string\"}"));
  }

  @Test
  void removeFieldWithoutDefaultIsBackwardOnly() {
    accepts(BACKWARD_ONLY, record("{\"name\":\"a\",\"type\":\"int\"},{\"name\":\"b\",\"type\":\"string\"}"),
        record("{\"name\":\"a\",\"type\":\"int\"}"));
  }

  @Test
  void removeFieldWithDefaultPassesEveryMode() {
    accepts(ALL, record("{\"name\":\"a\",\"type\":\"int\"},{\"name\":\"b\",\"type\":\"string\",\"default\":\"\"}"),
        record("{\"name\":\"a\",\"type\":\"int\"}"));
  }

  @Test
  void promotionsWidenBackwardAndNarrowForward() {
    String[] chain = {"int", "long", "float", "double"};
    for (int i = 0; i < chain.length; i++) {
      for (int j = i + 1; j < chain.length; j++) {
        String narrow = record("{\"name\":\"a\",\"type\":\"" + chain[i] + "\"}");
        String wide = record("{\"name\":\"a\",\"type\":\"" + chain[j] + "\"}");
        accepts(BACKWARD_ONLY, narrow, wide);
        accepts(FORWARD_ONLY, wide, narrow);
      }
    }
  }

  @Test
  void stringAndBytesReadEachOther() {
    accepts(ALL, record("{\"name\":\"a\",\"type\":\"string\"}"), record("{\"name\":\"a\",\"type\":\"bytes\"}"));
    accepts(ALL, record("{\"name\":\"a\",\"type\":\"bytes\"}"), record("{\"name\":\"a\",\"type\":\"string\"}"));
  }

  @Test
  void unrelatedTypeChangeIsRejectedEverywhereButNone() {
    accepts(ONLY_NONE, record("{\"name\":\"a\",\"type\":\"int\"}"), record("{\"name\":\"a\",\"type\":\"string\"}"));
    accepts(ONLY_NONE, record("{\"name\":\"a\",\"type\":\"boolean\"}"), record("{\"name\":\"a\",\"type\":\"long\"}"));
  }

  @Test
  void enumSymbols() {
    String ab = record("{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"B\"]}}");
    String abc = record("{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"B\",\"C\"]}}");
    // The new reader knows more symbols: it reads every old value. The old reader cannot read C.
    accepts(BACKWARD_ONLY, ab, abc);
    accepts(FORWARD_ONLY, abc, ab);
    String abcDefault = "{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"B\",\"C\"],"
        + "\"default\":\"A\"}}";
    // An enum default lets a reader map unknown symbols, so removing C from a defaulted enum is fully compatible.
    accepts(ALL, record(abcDefault), record(abcDefault.replace(",\"C\"", "")));
  }

  @Test
  void unions() {
    String plain = record("{\"name\":\"a\",\"type\":\"string\"}");
    String nullable = record("{\"name\":\"a\",\"type\":[\"null\",\"string\"],\"default\":null}");
    // Widening string to a union holding string: the union reads a string; a string reader cannot read null.
    accepts(BACKWARD_ONLY, plain, nullable);
    accepts(FORWARD_ONLY, nullable, plain);
    String twoBranches = record("{\"name\":\"a\",\"type\":[\"null\",\"string\",\"int\"],\"default\":null}");
    accepts(BACKWARD_ONLY, nullable, twoBranches);
  }

  @Test
  void renameThroughAliasIsReadable() {
    String old = record("{\"name\":\"a\",\"type\":\"int\"}");
    String renamed = record("{\"name\":\"b\",\"type\":\"int\",\"aliases\":[\"a\"]}");
    // The new reader finds the old field through its alias; the old reader has no alias for b.
    accepts(BACKWARD_ONLY, old, renamed);
    String renamedNoAlias = record("{\"name\":\"b\",\"type\":\"int\"}");
    accepts(ONLY_NONE, old, renamedNoAlias);
  }

  @Test
  void recordRenameNeedsAnAlias() {
    String old = "{\"type\":\"record\",\"name\":\"A\",\"fields\":[{\"name\":\"x\",\"type\":\"int\"}]}";
    String renamed = "{\"type\":\"record\",\"name\":\"B\",\"fields\":[{\"name\":\"x\",\"type\":\"int\"}]}";
    String aliased = "{\"type\":\"record\",\"name\":\"B\",\"aliases\":[\"A\"],\"fields\":[{\"name\":\"x\",\"type\":\"int\"}]}";
    accepts(ONLY_NONE, old, renamed);
    accepts(BACKWARD_ONLY, old, aliased);
  }

  @Test
  void nestedRecordsAreCheckedInDepth() {
    String v1 = record("{\"name\":\"n\",\"type\":{\"type\":\"record\",\"name\":\"N\",\"fields\":[{\"name\":\"x\",\"type\":\"int\"}]}}");
    String v2 = record("{\"name\":\"n\",\"type\":{\"type\":\"record\",\"name\":\"N\",\"fields\":[{\"name\":\"x\",\"type\":\"int\"},"
        + "{\"name\":\"y\",\"type\":\"int\"}]}}");
    accepts(FORWARD_ONLY, v1, v2);
    List<String> errors = CHECKER.check(BACKWARD, avro(v2), List.of(new Previous(1, avro(v1))));
    assertEquals("{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE', description:'The field 'y' at path "
        + "'/fields/0/type/fields/1' in the new schema has no default value and is missing in the old schema', "
        + "additionalInfo:'y'}", errors.get(0));
  }

  @Test
  void arraysAndMapsCheckTheirItems() {
    accepts(BACKWARD_ONLY, record("{\"name\":\"a\",\"type\":{\"type\":\"array\",\"items\":\"int\"}}"),
        record("{\"name\":\"a\",\"type\":{\"type\":\"array\",\"items\":\"long\"}}"));
    accepts(FORWARD_ONLY, record("{\"name\":\"a\",\"type\":{\"type\":\"map\",\"values\":\"double\"}}"),
        record("{\"name\":\"a\",\"type\":{\"type\":\"map\",\"values\":\"float\"}}"));
  }

  @Test
  void fixedSizeChange() {
    accepts(ONLY_NONE, "{\"type\":\"fixed\",\"name\":\"F\",\"size\":4}", "{\"type\":\"fixed\",\"name\":\"F\",\"size\":8}");
  }

  @Test
  void messagesFollowConfluentShape() {
    ParsedSchema v1 = avro(record("{\"name\":\"a\",\"type\":\"int\"}"));
    ParsedSchema v2 = avro(record("{\"name\":\"a\",\"type\":\"int\"},{\"name\":\"b\",\"type\":\"string\"}"));
    List<String> errors = CHECKER.check(BACKWARD, v2, List.of(new Previous(1, v1)));
    assertEquals(List.of(
        "{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE', description:'The field 'b' at path '/fields/1' in the new "
            + "schema has no default value and is missing in the old schema', additionalInfo:'b'}",
        "{oldSchemaVersion: 1}",
        "{oldSchema: '" + v1.canonical() + "'}",
        "{validateFields: 'false', compatibility: 'BACKWARD'}"), errors);

    List<String> forward = CHECKER.check(FORWARD, v1, List.of(new Previous(3, v2)));
    assertEquals("{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE', description:'The field 'b' at path '/fields/1' in "
        + "the old schema has no default value and is missing in the new schema', additionalInfo:'b'}", forward.get(0));
    assertEquals("{oldSchemaVersion: 3}", forward.get(1));

    ParsedSchema s = avro(record("{\"name\":\"a\",\"type\":\"string\"}"));
    List<String> type = CHECKER.check(FULL, s, List.of(new Previous(1, v1)));
    assertTrue(type.get(0).startsWith("{errorType:'TYPE_MISMATCH', description:'The type (path '/fields/0/type') of a "
        + "field in the new schema does not match with the old schema'"), type.get(0));
    assertTrue(type.get(1).contains("in the old schema does not match with the new schema"), type.get(1));
  }

  @Test
  void transitiveModesCheckEveryEarlierVersionNewestFirst() {
    // v1 has b without default; v2 drops b; v3 re-adds b without default. v3 reads v2 data? b missing: rejected too.
    // Use a case where only the oldest fails: v1 a:int; v2 a:long; v3 a:float reads both; v3' a:int reads neither.
    ParsedSchema v1 = avro(record("{\"name\":\"a\",\"type\":\"int\"}"));
    ParsedSchema v2 = avro(record("{\"name\":\"a\",\"type\":\"int\"},{\"name\":\"b\",\"type\":\"int\",\"default\":0}"));
    // v3 makes b required: it reads v2 (which writes b) but not v1 (which lacks b).
    ParsedSchema v3 = avro(record("{\"name\":\"a\",\"type\":\"int\"},{\"name\":\"b\",\"type\":\"int\"}"));
    List<Previous> history = List.of(new Previous(2, v2), new Previous(1, v1));

    assertTrue(CHECKER.check(BACKWARD, v3, history).isEmpty());
    List<String> errors = CHECKER.check(BACKWARD_TRANSITIVE, v3, history);
    assertTrue(errors.contains("{oldSchemaVersion: 1}"), errors.toString());
    assertTrue(CHECKER.check(FULL, v3, history).isEmpty());
    assertTrue(CHECKER.check(FULL_TRANSITIVE, v3, history).contains("{oldSchemaVersion: 1}"));

    // Forward-transitive: v3f drops a field v1 needs but v2 gave a default to.
    ParsedSchema f1 = avro(record("{\"name\":\"a\",\"type\":\"int\"},{\"name\":\"c\",\"type\":\"int\"}"));
    ParsedSchema f2 = avro(record("{\"name\":\"a\",\"type\":\"int\"},{\"name\":\"c\",\"type\":\"int\",\"default\":1}"));
    ParsedSchema f3 = avro(record("{\"name\":\"a\",\"type\":\"int\"}"));
    List<Previous> fh = List.of(new Previous(2, f2), new Previous(1, f1));
    assertTrue(CHECKER.check(FORWARD, f3, fh).isEmpty());
    List<String> ft = CHECKER.check(FORWARD_TRANSITIVE, f3, fh);
    assertTrue(ft.contains("{oldSchemaVersion: 1}"), ft.toString());
    assertTrue(ft.contains("{validateFields: 'false', compatibility: 'FORWARD_TRANSITIVE'}"), ft.toString());
  }

  @Test
  void noneAcceptsAnything() {
    assertTrue(CHECKER.check(NONE, avro("\"int\""), List.of(new Previous(1, avro("\"string\"")))).isEmpty());
  }

  @Test
  void thousandVersionsUnderFullTransitive() {
    // A rolling evolution: each version adds a defaulted field and drops the oldest defaulted one.
    List<Previous> history = new ArrayList<>();
    for (int v = 1; v <= 1000; v++) {
      history.add(0, new Previous(v, avro(rolling(v))));
    }
    assertTrue(CHECKER.check(FULL_TRANSITIVE, avro(rolling(1001)), history).isEmpty());
    // A field without default added at the end fails against every version; the newest is named.
    ParsedSchema bad = avro(rolling(1001).replace("]}", ",{\"name\":\"req\",\"type\":\"int\"}]}"));
    assertTrue(CHECKER.check(FULL_TRANSITIVE, bad, history).contains("{oldSchemaVersion: 1000}"));
  }

  static String rolling(int v) {
    StringBuilder fields = new StringBuilder("{\"name\":\"a\",\"type\":\"int\"}");
    for (int f = Math.max(1, v - 19); f <= v; f++) {
      fields.append(",{\"name\":\"f").append(f).append("\",\"type\":[\"null\",\"string\"],\"default\":null}");
    }
    return record(fields.toString());
  }

  @Test
  void canonicalFormDropsLayoutAndPrimitiveWrappers() {
    assertEquals("\"string\"", avro("{\"type\": \"string\"}").canonical());
    assertEquals(avro(record("{\"name\":\"a\",\"type\":\"int\"}")).canonical(),
        avro(record("{ \"name\" : \"a\", \"type\" : \"int\" }").replace("[", "[ ")).canonical());
  }

  @Test
  void invalidSchemasReportTheParserMessage() {
    InvalidSchemaException e = assertThrows(InvalidSchemaException.class,
        () -> AVRO.parse("{\"type\":\"record\",\"name\":\"R\"}", List.of(), List.of()));
    assertTrue(e.getMessage().contains("fields"), e.getMessage());
    assertThrows(InvalidSchemaException.class, () -> AVRO.parse("{not json", List.of(), List.of()));
    assertThrows(InvalidSchemaException.class, () -> AVRO.parse("\"nosuchtype\"", List.of(), List.of()));
    assertThrows(InvalidSchemaException.class,
        () -> AVRO.parse(record("{\"name\":\"a\",\"type\":\"int\",\"default\":\"x\"}"), List.of(), List.of()));
  }

  @Test
  void referencesResolveNamedTypesAndStayByNameInTheCanonicalForm() throws Exception {
    String address = "{\"type\":\"record\",\"name\":\"Address\",\"namespace\":\"t\",\"fields\":[{\"name\":\"city\",\"type\":\"string\"}]}";
    String person = record("{\"name\":\"home\",\"type\":\"t.Address\"}");
    ParsedSchema p = AVRO.parse(person, List.of(new SchemaReference("t.Address", "address", 1)),
        List.of(new Dependency("t.Address", SchemaType.AVRO, address)));
    assertEquals("{\"type\":\"record\",\"name\":\"R\",\"namespace\":\"t\",\"fields\":[{\"name\":\"home\",\"type\":\"Address\"}]}",
        p.canonical());
    assertThrows(InvalidSchemaException.class, () -> AVRO.parse(person, List.of(), List.of()));
  }
}
