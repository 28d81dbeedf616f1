package io.sluice.schema;

/**
 * The text of one referenced schema, handed to a parser. A schema's dependencies come transitively resolved and
 * ordered so that each one appears after everything it depends on.
 */
public record Dependency(String name, SchemaType type, String schema) {}
