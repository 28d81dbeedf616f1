package io.sluice.metrics.tsdb;

import io.sluice.metrics.model.Labels;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Write-ahead log in numbered segment files. Each record is {@code [int length][int crc32][payload]}; replay stops at
 * the first torn or corrupt record, which is what a crash mid-write leaves behind.
 */
final class Wal implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Wal.class);
  static final byte SERIES = 1;
  static final byte SAMPLES = 2;
  static final byte CHUNK = 3;

  /** Receives records during replay. */
  interface Visitor {
    void series(long ref, Labels labels);

    void sample(long ref, long t, double v);

    void chunk(long ref, ChunkMeta chunk);
  }

  private final Path dir;
  private FileOutputStream file;
  private DataOutputStream out;
  private int segment;
  private long lastSync = System.nanoTime();
  private final ByteArrayOutputStream buf = new ByteArrayOutputStream();
  private final DataOutputStream rec = new DataOutputStream(buf);

  Wal(Path dir) {
    this.dir = dir;
    try {
      Files.createDirectories(dir);
      List<Integer> segs = segments();
      segment = segs.isEmpty() ? 0 : segs.get(segs.size() - 1) + 1;
      openSegment();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void openSegment() throws IOException {
    file = new FileOutputStream(dir.resolve(String.format("%08d", segment)).toFile(), true);
    out = new DataOutputStream(new BufferedOutputStream(file, 1 << 16));
  }

  List<Integer> segments() throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).filter(n -> n.matches("\\d{8}")).map(Integer::parseInt)
          .sorted().toList();
    }
  }

  synchronized void logSeries(long ref, Labels labels) {
    try {
      rec.writeByte(SERIES);
      rec.writeLong(ref);
      rec.writeInt(labels.size());
      for (int i = 0; i < labels.size(); i++) {
        rec.writeUTF(labels.name(i));
        rec.writeUTF(labels.value(i));
      }
      flushRecord();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  synchronized void logSamples(long[] refs, long[] ts, double[] vs, int n) {
    // The hot path: encode straight into one array rather than through a DataOutputStream.
    ByteBuffer bb = ByteBuffer.allocate(5 + 24 * n);
    bb.put(SAMPLES).putInt(n);
    for (int i = 0; i < n; i++) {
      bb.putLong(refs[i]).putLong(ts[i]).putLong(Double.doubleToRawLongBits(vs[i]));
    }
    try {
      writeRecord(bb.array());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  synchronized void logChunk(long ref, ChunkMeta c) {
    try {
      rec.writeByte(CHUNK);
      rec.writeLong(ref);
      rec.writeLong(c.mint());
      rec.writeLong(c.maxt());
      rec.writeInt(c.data().length);
      rec.write(c.data());
      flushRecord();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void flushRecord() throws IOException {
    rec.flush();
    byte[] payload = buf.toByteArray();
    buf.reset();
    writeRecord(payload);
  }

  private void writeRecord(byte[] payload) throws IOException {
    CRC32 crc = new CRC32();
    crc.update(payload);
    out.writeInt(payload.length);
    out.writeInt((int) crc.getValue());
    out.write(payload);
  }

  /**
   * Hands buffered records to the OS (a process crash then loses nothing) and fsyncs at most once a second (a machine
   * crash loses at most about a second).
   */
  synchronized void commit() {
    try {
      out.flush();
      long now = System.nanoTime();
      if (now - lastSync > 1_000_000_000L) {
        file.getFD().sync();
        lastSync = now;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Starts a new segment; returns the number of the first segment that is kept. */
  synchronized int cut() {
    try {
      out.flush();
      file.getFD().sync();
      out.close();
      segment++;
      openSegment();
      return segment;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Deletes segments numbered below {@code keepFrom}, once their content lives in blocks and the checkpoint. */
  synchronized void truncateBefore(int keepFrom) {
    try {
      for (int s : segments()) {
        if (s < keepFrom) {
          Files.deleteIfExists(dir.resolve(String.format("%08d", s)));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  void replay(Visitor v) throws IOException {
    for (int s : segments()) {
      if (s >= segment) {
        continue;
      }
      try (InputStream raw = Files.newInputStream(dir.resolve(String.format("%08d", s)));
          DataInputStream in = new DataInputStream(new BufferedInputStream(raw, 1 << 16))) {
        while (true) {
          int len;
          try {
            len = in.readInt();
          } catch (EOFException e) {
            break;
          }
          int crc = in.readInt();
          if (len < 0 || len > (1 << 28)) {
            log.warn("WAL segment {} corrupt; stopping replay there", s);
            break;
          }
          byte[] payload = new byte[len];
          try {
            in.readFully(payload);
          } catch (EOFException e) {
            log.warn("WAL segment {} ends in a torn record; dropping it", s);
            break;
          }
          CRC32 c = new CRC32();
          c.update(payload);
          if ((int) c.getValue() != crc) {
            log.warn("WAL segment {} has a bad checksum; stopping replay there", s);
            break;
          }
          decode(payload, v);
        }
      }
    }
  }

  private static void decode(byte[] payload, Visitor v) throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload));
    byte type = in.readByte();
    switch (type) {
      case SERIES -> {
        long ref = in.readLong();
        int n = in.readInt();
        Labels.Builder b = Labels.builder();
        for (int i = 0; i < n; i++) {
          b.set(in.readUTF(), in.readUTF());
        }
        v.series(ref, b.build());
      }
      case SAMPLES -> {
        int n = in.readInt();
        for (int i = 0; i < n; i++) {
          v.sample(in.readLong(), in.readLong(), Double.longBitsToDouble(in.readLong()));
        }
      }
      case CHUNK -> {
        long ref = in.readLong();
        long mint = in.readLong();
        long maxt = in.readLong();
        byte[] data = new byte[in.readInt()];
        in.readFully(data);
        v.chunk(ref, new ChunkMeta(mint, maxt, data));
      }
      default -> throw new IOException("unknown WAL record type " + type);
    }
  }

  @Override
  public synchronized void close() {
    try {
      out.flush();
      file.getFD().sync();
      out.close();
    } catch (IOException e) {
      log.warn("closing WAL failed", e);
    }
  }
}
