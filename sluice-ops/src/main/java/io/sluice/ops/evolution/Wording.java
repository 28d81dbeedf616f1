package io.sluice.ops.evolution;

import java.util.Locale;
import java.util.Map;

/** Plain words for the incompatibility kinds of the three formats; unknown kinds read as their spaced-out name. */
final class Wording {
  private Wording() {}

  private static final Map<String, String> WORDS = Map.ofEntries(
      // Avro
      Map.entry("READER_FIELD_MISSING_DEFAULT_VALUE", "a field the reader needs has no default and is missing from the writer"),
      Map.entry("TYPE_MISMATCH", "the type changed in a way readers cannot resolve"),
      Map.entry("MISSING_ENUM_SYMBOLS", "the reader lacks enum symbols the writer may write"),
      Map.entry("MISSING_UNION_BRANCH", "the reader's union lacks a branch the writer may write"),
      Map.entry("NAME_MISMATCH", "a named type was renamed without an alias"),
      Map.entry("FIXED_SIZE_MISMATCH", "a fixed type changed size"),
      // Protobuf
      Map.entry("PACKAGE_CHANGED", "the package changed"),
      Map.entry("MESSAGE_REMOVED", "a message type was removed"),
      Map.entry("FIELD_KIND_CHANGED", "a field changed kind (scalar, message or map)"),
      Map.entry("FIELD_SCALAR_KIND_CHANGED", "a field's scalar type changed to one with another wire encoding"),
      Map.entry("FIELD_NAMED_TYPE_CHANGED", "a field now refers to a different or incompatible message type"),
      Map.entry("FIELD_NUMERIC_LABEL_CHANGED", "a numeric field changed between single and repeated"),
      Map.entry("REQUIRED_FIELD_ADDED", "a required field was added"),
      Map.entry("REQUIRED_FIELD_REMOVED", "a required field was removed"),
      Map.entry("ONEOF_FIELD_REMOVED", "a member was removed from a oneof"),
      Map.entry("MULTIPLE_FIELDS_MOVED_TO_ONEOF", "several existing fields were moved into one oneof"),
      Map.entry("FIELD_MOVED_TO_EXISTING_ONEOF", "an existing field was moved into an existing oneof"),
      // JSON Schema
      Map.entry("TYPE_CHANGED", "the type changed"),
      Map.entry("TYPE_NARROWED", "the type was narrowed (number to integer)"),
      Map.entry("REQUIRED_ATTRIBUTE_ADDED", "a property became required without a default"),
      Map.entry("PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL", "a property was added to an open content model, where old data may hold any value under that name"),
      Map.entry("PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL", "a property was removed from a closed content model"),
      Map.entry("REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL", "a required property without a default was added"),
      Map.entry("PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", "an added property does not fit the schema unnamed properties had"),
      Map.entry("PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", "a removed property does not fit the schema unnamed properties now get"),
      Map.entry("ADDITIONAL_PROPERTIES_REMOVED", "additional properties are no longer allowed"),
      Map.entry("ADDITIONAL_PROPERTIES_NARROWED", "additional properties are now constrained by a schema"),
      Map.entry("ENUM_ARRAY_NARROWED", "enum values were removed"),
      Map.entry("ENUM_ARRAY_CHANGED", "enum values were replaced"),
      Map.entry("COMBINED_TYPE_SUBSCHEMAS_CHANGED", "alternatives of a oneOf/anyOf/allOf changed incompatibly"),
      Map.entry("SUM_TYPE_NARROWED", "alternatives were removed from a oneOf/anyOf"),
      Map.entry("PRODUCT_TYPE_EXTENDED", "a schema was added to an allOf"),
      Map.entry("COMBINED_TYPE_CHANGED", "oneOf/anyOf/allOf changed to a stricter combination"),
      Map.entry("NOT_TYPE_EXTENDED", "a not-schema now excludes more values"),
      Map.entry("SCHEMA_TYPE_CHANGED", "the schema format changed"));

  static String describe(String kind) {
    String words = WORDS.get(kind);
    if (words != null) {
      return words;
    }
    String spaced = kind.toLowerCase(Locale.ROOT).replace('_', ' ');
    if (spaced.endsWith(" added")) {
      return spaced.replace(" added", "") + " added (a new constraint)";
    }
    if (spaced.endsWith(" decreased") || spaced.endsWith(" increased")) {
      return spaced + " (a tighter bound)";
    }
    return spaced;
  }
}
