package io.sluice.metrics.tsdb;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Gorilla-style chunk like Prometheus's {@code chunkenc.XORChunk}: the first timestamp as a varint, the second as a
 * varint delta, then delta-of-deltas in 1, 9, 17, 24 or 68 bits. Prometheus's smallest non-zero bucket is 14 bits; a
 * 7-bit bucket first (as in the Gorilla paper) halves the cost of the few milliseconds of jitter real scrapes have; values XOR-ed with their predecessor, storing only
 * the meaningful bits. Layout: 2 bytes sample count, then the bit stream.
 */
final class XorChunk {
  static final int MAX_SAMPLES = 120;

  private byte[] bytes;
  /** Number of bits written after the 2-byte header. */
  private long bitLen;
  private int count;

  // Appender state.
  private long t;
  private long tDelta;
  private double v;
  private int leading = 0xff;
  private int trailing;

  XorChunk() {
    bytes = new byte[32];
  }

  /** The chunk as bytes, for reading with {@link Reader} or storing; later appends do not change the copy. */
  byte[] encoded() {
    return Arrays.copyOf(bytes, 2 + (int) ((bitLen + 7) / 8));
  }

  int count() {
    return count;
  }

  long lastTimestamp() {
    return t;
  }

  double lastValue() {
    return v;
  }

  int sizeBytes() {
    return 2 + (int) ((bitLen + 7) / 8);
  }

  void append(long ts, double val) {
    if (count == 0) {
      writeVarint(ts);
      writeBits(Double.doubleToRawLongBits(val), 64);
    } else if (count == 1) {
      long d = ts - t;
      writeUvarint(d);
      writeValue(val);
      tDelta = d;
    } else {
      long d = ts - t;
      long dod = d - tDelta;
      if (dod == 0) {
        writeBit(false);
      } else if (fits(dod, 7)) {
        writeBits(0b10, 2);
        writeBits(dod, 7);
      } else if (fits(dod, 14)) {
        writeBits(0b110, 3);
        writeBits(dod, 14);
      } else if (fits(dod, 20)) {
        writeBits(0b1110, 4);
        writeBits(dod, 20);
      } else {
        writeBits(0b1111, 4);
        writeBits(dod, 64);
      }
      tDelta = d;
      writeValue(val);
    }
    t = ts;
    v = val;
    count++;
    bytes[0] = (byte) (count >>> 8);
    bytes[1] = (byte) count;
  }

  private static boolean fits(long x, int nbits) {
    return -((1L << (nbits - 1)) - 1) <= x && x <= (1L << (nbits - 1));
  }

  private void writeValue(double val) {
    long delta = Double.doubleToRawLongBits(val) ^ Double.doubleToRawLongBits(v);
    if (delta == 0) {
      writeBit(false);
      return;
    }
    writeBit(true);
    int lead = Long.numberOfLeadingZeros(delta);
    int trail = Long.numberOfTrailingZeros(delta);
    if (lead >= 32) {
      lead = 31; // 5 bits hold it
    }
    if (leading != 0xff && lead >= leading && trail >= trailing) {
      writeBit(false);
      writeBits(delta >>> trailing, 64 - leading - trailing);
      return;
    }
    leading = lead;
    trailing = trail;
    writeBit(true);
    writeBits(lead, 5);
    int sig = 64 - lead - trail;
    // 64 significant bits do not fit in 6 bits; 0 stands for 64 because 0 is impossible here.
    writeBits(sig & 63, 6);
    writeBits(delta >>> trail, sig);
  }

  private void ensure(long bits) {
    long need = 2 + (bitLen + bits + 7) / 8;
    if (need > bytes.length) {
      bytes = Arrays.copyOf(bytes, (int) Math.max(need, bytes.length * 2L));
    }
  }

  private void writeBit(boolean b) {
    ensure(1);
    if (b) {
      bytes[2 + (int) (bitLen >>> 3)] |= (byte) (0x80 >>> (bitLen & 7));
    }
    bitLen++;
  }

  private void writeBits(long value, int nbits) {
    ensure(nbits);
    // Fill the current byte, then whole bytes: at most 9 steps for 64 bits.
    while (nbits > 0) {
      int idx = 2 + (int) (bitLen >>> 3);
      int free = 8 - (int) (bitLen & 7);
      int take = Math.min(free, nbits);
      int bits = (int) ((value >>> (nbits - take)) & ((1L << take) - 1));
      bytes[idx] |= (byte) (bits << (free - take));
      nbits -= take;
      bitLen += take;
    }
  }

  private void writeVarint(long x) {
    writeUvarint((x << 1) ^ (x >> 63));
  }

  private void writeUvarint(long x) {
    while ((x & ~0x7fL) != 0) {
      writeBits((x & 0x7f) | 0x80, 8);
      x >>>= 7;
    }
    writeBits(x, 8);
  }

  /** Decodes an encoded chunk (as returned by {@link #encoded()}). */
  static final class Reader {
    private static final VarHandle BIG_ENDIAN_LONG =
        MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private final byte[] b;
    private final int n;
    private long pos; // bit position after header
    private int read;
    private long t;
    private long tDelta;
    private double v;
    private int leading;
    private int trailing;

    Reader(byte[] encoded) {
      this.b = encoded;
      this.n = ((encoded[0] & 0xff) << 8) | (encoded[1] & 0xff);
    }

    static int count(byte[] encoded) {
      return ((encoded[0] & 0xff) << 8) | (encoded[1] & 0xff);
    }

    boolean next() {
      if (read >= n) {
        return false;
      }
      if (read == 0) {
        long z = readUvarint();
        t = (z >>> 1) ^ -(z & 1);
        v = Double.longBitsToDouble(readBits(64));
      } else if (read == 1) {
        tDelta = readUvarint();
        t += tDelta;
        readValue();
      } else {
        long dod;
        if (!readBit()) {
          dod = 0;
        } else if (!readBit()) {
          dod = signed(readBits(7), 7);
        } else if (!readBit()) {
          dod = signed(readBits(14), 14);
        } else if (!readBit()) {
          dod = signed(readBits(20), 20);
        } else {
          dod = readBits(64);
        }
        tDelta += dod;
        t += tDelta;
        readValue();
      }
      read++;
      return true;
    }

    long t() {
      return t;
    }

    double v() {
      return v;
    }

    private static long signed(long x, int nbits) {
      // Values up to 2^(nbits-1) are positive, as written by fits().
      if (x > (1L << (nbits - 1))) {
        return x - (1L << nbits);
      }
      return x;
    }

    private void readValue() {
      if (!readBit()) {
        return;
      }
      if (readBit()) {
        leading = (int) readBits(5);
        int sig = (int) readBits(6);
        if (sig == 0) {
          sig = 64;
        }
        trailing = 64 - leading - sig;
      }
      int sig = 64 - leading - trailing;
      long bits = readBits(sig) << trailing;
      v = Double.longBitsToDouble(Double.doubleToRawLongBits(v) ^ bits);
    }

    private boolean readBit() {
      boolean bit = (b[2 + (int) (pos >>> 3)] & (0x80 >>> (pos & 7))) != 0;
      pos++;
      return bit;
    }

    private long readBits(int nbits) {
      int at = 2 + (int) (pos >>> 3);
      int off = (int) (pos & 7);
      if (nbits > 0 && off + nbits <= 64 && at + 8 <= b.length) {
        // Fast path: one big-endian 8-byte window, read as one long, holds the bits.
        long w = (long) BIG_ENDIAN_LONG.get(b, at);
        long out = (w << off) >>> (64 - nbits);
        pos += nbits;
        return out;
      }
      long out = 0;
      while (nbits > 0) {
        int idx = 2 + (int) (pos >>> 3);
        int avail = 8 - (int) (pos & 7);
        int take = Math.min(avail, nbits);
        int cur = ((b[idx] & 0xff) >>> (avail - take)) & ((1 << take) - 1);
        out = (out << take) | cur;
        nbits -= take;
        pos += take;
      }
      return out;
    }

    private long readUvarint() {
      long x = 0;
      int shift = 0;
      while (true) {
        long by = readBits(8);
        x |= (by & 0x7f) << shift;
        if ((by & 0x80) == 0) {
          return x;
        }
        shift += 7;
      }
    }
  }
}
