package io.sluice.schema;

import java.util.List;

/** One schema format: its parser and its reader/writer check. One implementation per format (Avro, Protobuf, JSON). */
public interface SchemaProvider {
  SchemaType type();

  /**
   * Parses {@code text}; {@code dependencies} are the texts of its references, transitively resolved, dependencies
   * first.
   */
  ParsedSchema parse(String text, List<SchemaReference> references, List<Dependency> dependencies)
      throws InvalidSchemaException;

  /**
   * Why data written with {@code writer} cannot be read with {@code reader}; empty when it can. {@code readerIsNew}
   * names the two schemas in the messages ("new"/"old"). Formats without policies ignore {@code policy}.
   *
   * @throws ComparisonBudgetExceededException when the comparison could not finish in its time budget
   */
  List<Incompatibility> readIncompatibilities(ParsedSchema reader, ParsedSchema writer, boolean readerIsNew,
      CompatibilityPolicy policy);

  /**
   * Changes from the earlier versions ({@code earlier}, newest first) to {@code candidate} that compatibility allows
   * but good practice advises against (a field removed that was never deprecated, a rename without an alias, a type
   * narrowed, ...), each in plain words with its path. The registry never refuses a schema for these.
   */
  default List<String> practiceWarnings(ParsedSchema candidate, List<ParsedSchema> earlier) {
    return List.of();
  }
}
