package io.sluice.registry.client;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.errors.SerializationException;

/**
 * Confluent's framing of a registry-aware record: magic byte {@code 0}, the schema id as 4 big-endian bytes, then the
 * payload; for Protobuf, between id and payload, the path of message indexes to the record's message type, as a
 * zig-zag varint count followed by each index as a zig-zag varint, with the common case of the first top-level
 * message ({@code [0]}) written as the single byte {@code 0x00}.
 */
public final class WireFormat {
  public static final byte MAGIC = 0;
  /** Magic byte and schema id. */
  public static final int HEADER = 5;

  private WireFormat() {}

  /** A framed record's schema id and where its payload starts. */
  public record Framed(int schemaId, ByteBuffer payload) {}

  /** Writes a payload after the header: an encoder writes into the framed record instead of a copy of its own. */
  @FunctionalInterface
  public interface Payload {
    void writeTo(OutputStream out) throws IOException;
  }

  /** Magic byte, id, then the payload. */
  public static byte[] frame(int schemaId, byte[] payload) {
    byte[] framed = new byte[HEADER + payload.length];
    System.arraycopy(payload, 0, framed, HEADER, payload.length);
    putHeader(framed, schemaId);
    return framed;
  }

  /** Magic byte, id, then what {@code payload} writes. */
  public static byte[] frame(int schemaId, Payload payload) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(128);
    out.write(new byte[HEADER], 0, HEADER);
    payload.writeTo(out);
    byte[] framed = out.toByteArray();
    putHeader(framed, schemaId);
    return framed;
  }

  /**
   * Writes magic byte and id into the first {@link #HEADER} bytes of a record whose payload is already written after
   * them: for a writer that learns the id only once the payload has proved writable.
   */
  public static void putHeader(byte[] framed, int schemaId) {
    ByteBuffer.wrap(framed, 0, HEADER).put(MAGIC).putInt(schemaId);
  }

  /** The id and the payload after the header; refuses what is not framed, as Confluent's deserializers do. */
  public static Framed unframe(byte[] data) {
    if (data == null || data.length < HEADER) {
      throw new SerializationException("Unknown magic byte!");
    }
    ByteBuffer b = ByteBuffer.wrap(data);
    if (b.get() != MAGIC) {
      throw new SerializationException("Unknown magic byte!");
    }
    int id = b.getInt();
    return new Framed(id, b.slice());
  }

  /**
   * The schema id of framed bytes, or null when they are not framed: for tools that meet values of any kind (a dead
   * letter queue holds whatever a sink could not read). A JSON document or text never starts with byte 0, so a plain
   * value is never mistaken for a framed one unless it is binary to begin with; then the registry lookup decides.
   */
  public static Integer schemaIdOrNull(byte[] bytes) {
    if (bytes == null || bytes.length <= HEADER || bytes[0] != MAGIC) {
      return null;
    }
    return ByteBuffer.wrap(bytes, 1, 4).getInt();
  }

  /** Protobuf's message-index path, as written after the id. */
  public static byte[] messageIndexes(List<Integer> path) {
    if (path.size() == 1 && path.get(0) == 0) {
      return new byte[] {0};
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    writeZigZag(out, path.size());
    for (int i : path) {
      writeZigZag(out, i);
    }
    return out.toByteArray();
  }

  /** Reads the message-index path at the buffer's position, leaving it at the payload. */
  public static List<Integer> readMessageIndexes(ByteBuffer b) {
    int count = readZigZag(b);
    if (count == 0) {
      return List.of(0);
    }
    if (count < 0 || count > b.remaining()) {
      throw new SerializationException("Invalid message indexes: count " + count);
    }
    List<Integer> path = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      path.add(readZigZag(b));
    }
    return path;
  }

  private static void writeZigZag(ByteArrayOutputStream out, int value) {
    int v = (value << 1) ^ (value >> 31);
    while ((v & ~0x7F) != 0) {
      out.write((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    out.write(v);
  }

  private static int readZigZag(ByteBuffer b) {
    int v = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      if (!b.hasRemaining()) {
        throw new SerializationException("Invalid message indexes: the varint ends early");
      }
      int x = b.get();
      v |= (x & 0x7F) << shift;
      if ((x & 0x80) == 0) {
        return (v >>> 1) ^ -(v & 1);
      }
    }
    throw new SerializationException("Invalid message indexes: varint too long");
  }
}
