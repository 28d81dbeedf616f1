package io.sluice.metrics.tsdb;

import io.sluice.metrics.model.Labels;
import io.sluice.metrics.model.Matcher;
import io.sluice.metrics.storage.SampleBudget;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * A persisted, immutable time range of the store: a directory {@code <mint>-<maxt>} with {@code chunks} (the encoded
 * XOR chunks back to back, memory-mapped) and {@code index} (each series' labels and its chunks' time ranges and
 * offsets, held in memory). The directory is written under a temporary name and renamed, so a block is either whole
 * or absent.
 */
final class Block implements AutoCloseable {
  private static final int MAGIC = 0x534c4231; // "SLB1"

  final Path dir;
  final long mint;
  final long maxt;
  private final FileChannel indexChannel;
  private final MappedByteBuffer index;
  private final MappedByteBuffer chunks;
  private final FileChannel channel;

  /** One series of the index as a query sees it. */
  private record IndexEntry(Labels labels, long[] mints, long[] maxts, long[] offsets, int[] lengths) {}

  private Block(Path dir, long mint, long maxt, FileChannel indexChannel, MappedByteBuffer index, FileChannel channel,
      MappedByteBuffer chunks) {
    this.dir = dir;
    this.mint = mint;
    this.maxt = maxt;
    this.indexChannel = indexChannel;
    this.index = index;
    this.channel = channel;
    this.chunks = chunks;
  }

  static Block write(Path parent, long mint, long maxt, Map<Labels, List<ChunkMeta>> data) throws IOException {
    String name = mint + "-" + maxt;
    Path tmp = parent.resolve(name + ".tmp");
    Files.createDirectories(tmp);
    List<Labels> order = new ArrayList<>(data.keySet());
    order.sort(Comparator.naturalOrder());
    try (OutputStream co = new BufferedOutputStream(Files.newOutputStream(tmp.resolve("chunks")), 1 << 16);
        DataOutputStream io = new DataOutputStream(
            new BufferedOutputStream(Files.newOutputStream(tmp.resolve("index")), 1 << 16))) {
      io.writeInt(MAGIC);
      io.writeLong(mint);
      io.writeLong(maxt);
      io.writeInt(order.size());
      long offset = 0;
      for (Labels l : order) {
        io.writeInt(l.size());
        for (int i = 0; i < l.size(); i++) {
          io.writeUTF(l.name(i));
          io.writeUTF(l.value(i));
        }
        List<ChunkMeta> cs = data.get(l);
        io.writeInt(cs.size());
        for (ChunkMeta c : cs) {
          io.writeLong(c.mint());
          io.writeLong(c.maxt());
          io.writeLong(offset);
          io.writeInt(c.data().length);
          co.write(c.data());
          offset += c.data().length;
        }
      }
    }
    Path dst = parent.resolve(name);
    Files.move(tmp, dst, StandardCopyOption.ATOMIC_MOVE);
    return open(dst);
  }

  /**
   * Maps a block. Only the header is read now: the index is parsed from the mapping when a query reaches this block,
   * so the memory a block takes does not grow with its series, and the store's memory follows the active series of
   * the head rather than the retention.
   */
  static Block open(Path dir) throws IOException {
    FileChannel ic = FileChannel.open(dir.resolve("index"), StandardOpenOption.READ);
    MappedByteBuffer idx = ic.map(FileChannel.MapMode.READ_ONLY, 0, ic.size());
    if (idx.capacity() < 20 || idx.getInt(0) != MAGIC) {
      ic.close();
      throw new IOException("not a block index: " + dir);
    }
    long mint = idx.getLong(4);
    long maxt = idx.getLong(12);
    FileChannel ch = FileChannel.open(dir.resolve("chunks"), StandardOpenOption.READ);
    MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size());
    return new Block(dir, mint, maxt, ic, idx, ch, map);
  }

  /** Parses the index from the mapping, handing each series to {@code visit}. */
  private void scanIndex(Consumer<IndexEntry> visit) {
    ByteBuffer b = index.duplicate();
    b.position(20);
    DataInputStream in = new DataInputStream(new InputStream() {
      @Override
      public int read() {
        return b.hasRemaining() ? b.get() & 0xff : -1;
      }

      @Override
      public int read(byte[] a, int off, int len) {
        if (!b.hasRemaining()) {
          return -1;
        }
        int n = Math.min(len, b.remaining());
        b.get(a, off, n);
        return n;
      }
    });
    try {
      int n = in.readInt();
      for (int s = 0; s < n; s++) {
        int nl = in.readInt();
        Labels.Builder lb = Labels.builder();
        for (int i = 0; i < nl; i++) {
          lb.set(in.readUTF(), in.readUTF());
        }
        int nc = in.readInt();
        long[] mints = new long[nc];
        long[] maxts = new long[nc];
        long[] offs = new long[nc];
        int[] lens = new int[nc];
        for (int c = 0; c < nc; c++) {
          mints[c] = in.readLong();
          maxts[c] = in.readLong();
          offs[c] = in.readLong();
          lens[c] = in.readInt();
        }
        visit.accept(new IndexEntry(lb.build(), mints, maxts, offs, lens));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("corrupt block index in " + dir, e);
    }
  }

  static List<Path> list(Path parent) throws IOException {
    if (!Files.isDirectory(parent)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(parent)) {
      return s.filter(p -> p.getFileName().toString().matches("-?\\d+--?\\d+") && Files.isDirectory(p)).sorted()
          .toList();
    }
  }

  /**
   * Series of this block matching the matchers, each with its chunks overlapping {@code [from, to]}. A chunk wholly
   * inside the window is charged to {@code budget} before its bytes are copied out of the mapping; the two a series
   * may have across the window's edges are charged when decoded ({@link Db}).
   */
  void select(List<Matcher> matchers, long from, long to, Map<Labels, List<ChunkMeta>> out, SampleBudget budget) {
    byte[] count = new byte[2];
    scanIndex(e -> {
      if (!Head.matchesAll(e.labels, matchers)) {
        return;
      }
      List<ChunkMeta> list = null;
      for (int c = 0; c < e.mints.length; c++) {
        if (e.maxts[c] >= from && e.mints[c] <= to) {
          if (e.mints[c] >= from && e.maxts[c] <= to) {
            chunks.slice((int) e.offsets[c], 2).get(count);
            budget.charge(XorChunk.Reader.count(count));
          }
          byte[] data = new byte[e.lengths[c]];
          chunks.slice((int) e.offsets[c], e.lengths[c]).get(data);
          if (list == null) {
            list = out.computeIfAbsent(e.labels, k -> new ArrayList<>());
          }
          list.add(new ChunkMeta(e.mints[c], e.maxts[c], data));
        }
      }
    });
  }

  /** The labels of the series matching the matchers with a chunk overlapping {@code [from, to]}: the index only. */
  void series(List<Matcher> matchers, long from, long to, java.util.Set<Labels> out) {
    scanIndex(e -> {
      if (!Head.matchesAll(e.labels, matchers)) {
        return;
      }
      for (int c = 0; c < e.mints.length; c++) {
        if (e.maxts[c] >= from && e.mints[c] <= to) {
          out.add(e.labels);
          return;
        }
      }
    });
  }

  long bytes() {
    return chunks.capacity();
  }

  long samples() {
    long[] n = {0};
    scanIndex(e -> {
      for (int c = 0; c < e.mints.length; c++) {
        byte[] head = new byte[2];
        chunks.slice((int) e.offsets[c], 2).get(head);
        n[0] += XorChunk.Reader.count(head);
      }
    });
    return n[0];
  }

  @Override
  public void close() {
    try {
      indexChannel.close();
      channel.close();
    } catch (IOException ignored) {
      // read-only; nothing to lose
    }
  }
}
