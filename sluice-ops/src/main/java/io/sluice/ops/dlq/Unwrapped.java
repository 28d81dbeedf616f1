package io.sluice.ops.dlq;

/**
 * The original value of one dead-letter record.
 *
 * @param partition the dead-letter record's partition
 * @param offset its offset
 * @param error its error context
 * @param source where the value was found: {@code raw} (the record's value as is), {@code json-path} (inside a JSON
 *     wrapper, at {@code path}), or {@code registry} (registry-framed, decoded through the schema registry)
 * @param path the JSON path the value was taken from, or null
 * @param schemaId the registry schema id of a framed value, or null
 * @param schemaType {@code AVRO}, {@code JSON} or {@code PROTOBUF} for a framed value, or null
 * @param text the value for people: decoded JSON text, plain text, or base64 of bytes that are not text
 * @param encoding how {@code text} is written: {@code json}, {@code text} or {@code base64}
 * @param note why a value could not be decoded (unknown schema id, Protobuf left encoded, ...), or null
 * @param bytes the bytes replay produces: the framed bytes unchanged for a framed value, the JSON text of a wrapped
 *     one, the raw bytes otherwise
 */
public record Unwrapped(int partition, long offset, ErrorContext error, String source, String path, Integer schemaId,
                        String schemaType, String text, String encoding, String note, byte[] bytes) {}
