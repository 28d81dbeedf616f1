package io.sluice.ops.dlq;

import java.nio.ByteBuffer;

/** The Confluent wire format: magic byte 0, a 4-byte big-endian schema id, then the serialized payload. */
final class RegistryFraming {
  static final int HEADER = 5;

  private RegistryFraming() {}

  /** The schema id of a framed payload, or null when the bytes are not framed. */
  static Integer schemaId(byte[] bytes) {
    // A JSON document or text never starts with byte 0, so the check cannot mistake a plain value for a framed one
    // unless the value is binary to begin with; then the registry lookup decides (an unknown id is reported as such).
    if (bytes == null || bytes.length <= HEADER || bytes[0] != 0) {
      return null;
    }
    return ByteBuffer.wrap(bytes, 1, 4).getInt();
  }
}
