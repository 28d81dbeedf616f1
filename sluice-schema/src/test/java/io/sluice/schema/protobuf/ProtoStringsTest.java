package io.sluice.schema.protobuf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.squareup.wire.schema.internal.parser.FieldElement;
import com.squareup.wire.schema.internal.parser.MessageElement;
import com.squareup.wire.schema.internal.parser.OptionElement;
import io.sluice.schema.InvalidSchemaException;
import io.sluice.schema.ParsedSchema;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every escape a .proto string literal allows survives the canonical text: it parses again, to the same values. */
class ProtoStringsTest {
  private final ProtobufSchemaProvider provider = new ProtobufSchemaProvider();

  private static String schema(String literal) {
    return "syntax = \"proto3\";\npackage p;\nimport \"confluent/meta.proto\";\n"
        + "option java_package = " + literal + ";\n"
        + "message M {\n"
        + "  option (confluent.message_meta).params = { key: \"k\" value: " + literal + " };\n"
        + "  string s = 1 [(confluent.field_meta).doc = " + literal + ", json_name = " + literal + "];\n"
        + "}\n";
  }

  private ProtobufSchema parse(String text) throws InvalidSchemaException {
    return (ProtobufSchema) provider.parse(text, List.of(), List.of());
  }

  /** The literal in all four places, read as Wire reads it, survives print and parse, as is and normalised. */
  @ParameterizedTest
  @ValueSource(strings = {
      "\"a \\\"quoted\\\" value\"", "'single \\' and \" quotes'", "\"back\\\\slash \\\\\\\" end\\\\\"",
      "\"new\\nline, tab\\t, cr\\r, bell\\a, bs\\b, ff\\f, vt\\v\"", "\"hex \\x41\\x4a \\xe9 \\x0\"",
      "\"octal \\101\\7\\0\\377 \\1234\"", "\"unicode \\u00e9 \\u20AC \\U0001F600 \\u0022 \\u005c\"",
      "\"raw é € 😀 and \\\\u0041 kept\"", "\"adjacent \" 'literals'", "\"\\\" // not a comment \\\"\"", "\"\""})
  void aStringLiteralSurvivesTheCanonicalText(String literal) throws Exception {
    ProtobufSchema first = parse(schema(literal));
    String value = (String) first.file().getOptions().get(0).getValue();
    ProtobufSchema again = parse(first.canonical());
    assertEquals(first.canonical(), again.canonical());
    assertEquals(values(first), values(again));
    assertEquals(value, values(again).get(0));
    ParsedSchema normal = first.normalize();
    assertEquals(normal.canonical(), parse(normal.canonical()).normalize().canonical());
  }

  @Test
  void escapesAreReadAsProtocReadsThem() throws Exception {
    ProtobufSchema s = parse(schema("\"q\\\"\\\\\\n\\t\\x41\\101\\u00e9\\U0001F600'\""));
    assertEquals("q\"\\\n\tAAé\uD83D\uDE00'", s.file().getOptions().get(0).getValue());
    assertEquals("syntax = \"proto3\";\n\npackage p;\n\nimport \"confluent/meta.proto\";\n\n"
        + "option java_package = \"q\\\"\\\\\\n\\tAAé😀\\'\";\n",
        s.canonical().substring(0, s.canonical().indexOf("\n\nmessage") + 1));
  }

  @Test
  void stringAndBytesDefaultsStayQuoted() throws Exception {
    ProtobufSchema s = parse("syntax = \"proto2\";\nmessage M {\n"
        + "  optional string s = 1 [default = \"x\\\"y z\"];\n"
        + "  optional bytes b = 2 [default = \"a b\\001\\\"\"];\n"
        + "  optional int32 i = 3 [default = -7];\n}\n");
    ProtobufSchema again = parse(s.canonical());
    assertEquals(s.canonical(), again.canonical());
    List<FieldElement> fields = ((MessageElement) again.file().getTypes().get(0)).getFields();
    assertEquals("x\"y z", fields.get(0).getDefaultValue());
    assertEquals("a b\u0001\"", fields.get(1).getDefaultValue());
    assertEquals("-7", fields.get(2).getDefaultValue());
  }

  @Test
  void servicesEnumsAndExtensionsPrintTheirStringsEscaped() throws Exception {
    ProtobufSchema s = parse("syntax = \"proto2\";\npackage p;\nimport \"google/protobuf/descriptor.proto\";\n"
        + "extend google.protobuf.MessageOptions { optional string foo = 50001 [default = \"q\\\"z\"]; }\n"
        + "message M {\n  option (my).m = { a: E1 b: 12 c: \"s\\\"\" d: { e: \"f\\\\\" } g: [\"x\\\"\", \"y\"] };\n"
        + "  optional string s = 1;\n  oneof o {\n    option (oo) = \"o\\\"\";\n    string t = 2 [(fo) = \"t\\\"\"];\n"
        + "  }\n  extensions 100 to 200;\n}\n"
        + "enum E {\n  option (eo) = \"e\\\"\";\n  A = 0 [(ev) = \"v\\\"\"];\n}\n"
        + "service S {\n  option (so) = \"s\\\"\";\n"
        + "  rpc R (M) returns (M) {\n    option (ro) = \"r\\\"\";\n  };\n}\n");
    ProtobufSchema again = parse(s.canonical());
    assertEquals(s.canonical(), again.canonical());
    OptionElement m = ((MessageElement) again.file().getTypes().get(0)).getOptions().get(0);
    Map<?, ?> map = (Map<?, ?>) ((OptionElement) m.getValue()).getValue();
    assertEquals("s\"", map.get("c"));
    assertEquals(Map.of("e", "f\\"), map.get("d"));
    assertEquals(List.of("x\"", "y"), map.get("g"));
  }

  @Test
  void aListOutsideAnAggregateIsRefusedNotACrash() {
    InvalidSchemaException e = assertThrows(InvalidSchemaException.class,
        () -> parse("syntax = \"proto3\";\nmessage M {\n  option (lst) = [\"a\", \"b\"];\n  string s = 1;\n}\n"));
    assertEquals("Invalid schema: option lst has a list value, which .proto allows only inside an aggregate value"
        + " { ... }", e.getMessage());
  }

  @Test
  void commentsAndEscapesOutsideLiteralsAreLeftAsWritten() {
    String text = "// a \\u0041 in a comment, \"quoted\"\n/* and \\U0001F600 */ option x = \"\\u0041\"; // \\u0042\n";
    assertEquals("// a \\u0041 in a comment, \"quoted\"\n/* and \\U0001F600 */ option x = \"A\"; // \\u0042\n",
        ProtoStrings.unicodeEscapesDecoded(text));
    assertEquals("\"\\\"\" \"\\\\\"", ProtoStrings.unicodeEscapesDecoded("\"\\u0022\" \"\\u005C\""));
    assertEquals("\"\\u12\" \"\\U00110000\"", ProtoStrings.unicodeEscapesDecoded("\"\\u12\" \"\\U00110000\""));
  }

  /** Every string value the file holds where this test puts literals, in order. */
  private static List<Object> values(ProtobufSchema s) {
    MessageElement m = (MessageElement) s.file().getTypes().get(0);
    FieldElement f = m.getFields().get(0);
    Object params = ((OptionElement) m.getOptions().get(0).getValue()).getValue();
    return List.of(s.file().getOptions().get(0).getValue(), ((Map<?, ?>) params).get("value"),
        ((OptionElement) f.getOptions().get(0).getValue()).getValue(), f.getJsonName());
  }
}
