package io.sluice.serde.connect;

import java.util.Arrays;

/**
 * The growing byte array both binary writers ({@link ConnectAvroWriter}, {@link ConnectProtobufWriter}) encode a
 * record into, after bytes left free for the framing; each adds its own wire encoding on top (Avro's zig-zag numbers,
 * Protobuf's tags and varints). No stream behind it: what Avro's buffered encoder and Protobuf's
 * {@code CodedOutputStream} keep, without the copies.
 */
class ByteOutput {
  byte[] buf;
  int pos;

  /** Room for {@code offset} free bytes and {@code sizeHint} more, writing from {@code offset}. */
  ByteOutput(int offset, int sizeHint) {
    buf = new byte[offset + sizeHint];
    pos = offset;
  }

  final void ensure(int more) {
    if (buf.length - pos < more) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, pos + more));
    }
  }

  /** Copies {@code length} bytes of {@code b} from {@code from}, as they are. */
  final void put(byte[] b, int from, int length) {
    ensure(length);
    System.arraycopy(b, from, buf, pos, length);
    pos += length;
  }

  /**
   * Copies {@code s} a byte per char, the common case of UTF-8, as long as it is ASCII: false at the first char that
   * is not, with some of {@code s} written (the caller moves back and writes its UTF-8). Room for
   * {@code s.length()} bytes must be ensured first.
   */
  final boolean ascii(String s) {
    for (int i = 0, length = s.length(); i < length; i++) {
      char c = s.charAt(i);
      if (c >= 0x80) {
        return false;
      }
      buf[pos++] = (byte) c;
    }
    return true;
  }

  /** What was written, the free bytes at the start included: the buffer itself when it is exactly full. */
  final byte[] bytes() {
    return buf.length == pos ? buf : Arrays.copyOf(buf, pos);
  }
}
