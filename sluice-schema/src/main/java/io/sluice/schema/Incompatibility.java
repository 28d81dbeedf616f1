package io.sluice.schema;

/**
 * One reason why a reader cannot read what a writer wrote. {@code kind} is the format's name for the change (Avro's
 * incompatibility type, or the Protobuf / JSON Schema difference type), {@code path} where in the schema it is, and
 * {@code message} the text Confluent's API shows for it.
 */
public record Incompatibility(String kind, String path, String message) {}
