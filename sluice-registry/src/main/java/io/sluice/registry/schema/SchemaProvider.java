package io.sluice.registry.schema;

import java.util.List;

/** One schema format: its parser and its reader/writer check. Avro now; Protobuf and JSON Schema plug in the same way. */
public interface SchemaProvider {
  SchemaType type();

  /**
   * Parses {@code text}; {@code dependencies} are the texts of its references, transitively resolved, dependencies
   * first.
   */
  ParsedSchema parse(String text, List<SchemaReference> references, List<Dependency> dependencies)
      throws InvalidSchemaException;

  /**
   * Why data written with {@code writer} cannot be read with {@code reader}, in Confluent's message shape; empty when it
   * can. {@code readerIsNew} names the two schemas in the messages ("new"/"old").
   */
  List<String> readIncompatibilities(ParsedSchema reader, ParsedSchema writer, boolean readerIsNew);
}
