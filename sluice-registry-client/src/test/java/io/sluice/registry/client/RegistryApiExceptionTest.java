package io.sluice.registry.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** An incompatible schema's refusal, read from the registry's message as each format's checker words it. */
class RegistryApiExceptionTest {
  private static RegistryApiException refused(String details) {
    return new RegistryApiException("register a schema under subject s-value", 409, 409,
        "Schema being registered is incompatible with an earlier schema for subject \"s-value\", details: " + details);
  }

  @Test
  void avrosRulesQuoteWithApostrophesAndTheOldSchemaMayHoldAnything() {
    RegistryApiException.Incompatibility i = refused("[{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE',"
        + " description:'The field 'legacy' at path '/fields/1' in the old schema has no default value and is missing"
        + " in the new schema', additionalInfo:'legacy'}, {oldSchemaVersion: 3}, {oldSchema: '{\"type\":\"record\","
        + "\"doc\":\"compatibility: 'NONE'}, {errorType:'X'\"}'}, {validateFields: 'false', compatibility:"
        + " 'FULL_TRANSITIVE'}]").incompatibility().orElseThrow();
    assertEquals(List.of("READER_FIELD_MISSING_DEFAULT_VALUE: The field 'legacy' at path '/fields/1' in the old"
        + " schema has no default value and is missing in the new schema"), i.rules());
    assertEquals(3, i.version());
    assertEquals("FULL_TRANSITIVE", i.compatibility());
    assertTrue(i.summary().startsWith("breaks FULL_TRANSITIVE compatibility with version 3: READER_FIELD_MISSING"),
        i.summary());
  }

  @Test
  void protobufsAndJsonSchemasQuoteWithQuotationMarks() {
    RegistryApiException.Incompatibility i = refused("[{errorType:\"FIELD_SCALAR_KIND_CHANGED\", description:"
        + "\"The kind of a SCALAR field at path '#/Value/2' in the new schema does not match its kind in the old"
        + " schema\"}, {errorType:\"REQUIRED_FIELD_REMOVED\", description:\"x\"}, {oldSchemaVersion: 1},"
        + " {oldSchema: 'syntax = \"proto3\";'}, {validateFields: 'false', compatibility: 'BACKWARD'}]")
        .incompatibility().orElseThrow();
    assertEquals(List.of("FIELD_SCALAR_KIND_CHANGED: The kind of a SCALAR field at path '#/Value/2' in the new"
        + " schema does not match its kind in the old schema", "REQUIRED_FIELD_REMOVED: x"), i.rules());
    assertEquals(1, i.version());
    assertEquals("BACKWARD", i.compatibility());
  }

  @Test
  void anyOtherRefusalIsNoIncompatibility() {
    assertTrue(new RegistryApiException("read", 404, 40401, "Subject 's' not found.").incompatibility().isEmpty());
  }
}
