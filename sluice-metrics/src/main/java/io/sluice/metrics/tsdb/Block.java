package io.sluice.metrics.tsdb;

import io.sluice.metrics.model.Labels;
import io.sluice.metrics.model.Matcher;
import io.sluice.metrics.storage.SampleBudget;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
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
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * A persisted, immutable time range of the store: a directory {@code <mint>-<maxt>} with {@code chunks} (the encoded
 * XOR chunks back to back, memory-mapped) and {@code index} (memory-mapped too). The directory is written under a
 * temporary name and renamed, so a block is either whole or absent.
 *
 * <p>The index, as Prometheus' does, keeps each distinct string once in a sorted symbol table and refers to it by
 * number from the series: a query decodes the symbols once, tests a matcher once per distinct value rather than once
 * per series, skips a series that does not match without building its labels, and the series it keeps share their
 * strings. Blocks written before the symbol table ({@link #MAGIC_V1}: labels spelled out per series) are still read.
 */
final class Block implements AutoCloseable {
  private static final int MAGIC_V1 = 0x534c4231; // "SLB1"
  private static final int MAGIC = 0x534c4232; // "SLB2"

  final Path dir;
  final long mint;
  final long maxt;
  private final FileChannel indexChannel;
  private final MappedByteBuffer index;
  private final MappedByteBuffer chunks;
  private final FileChannel channel;

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
      TreeMap<String, Integer> symbols = new TreeMap<>();
      for (Labels l : order) {
        for (int i = 0; i < l.size(); i++) {
          symbols.put(l.name(i), 0);
          symbols.put(l.value(i), 0);
        }
      }
      io.writeInt(symbols.size());
      int ref = 0;
      for (Map.Entry<String, Integer> e : symbols.entrySet()) {
        io.writeUTF(e.getKey());
        e.setValue(ref++);
      }
      io.writeInt(order.size());
      long offset = 0;
      for (Labels l : order) {
        io.writeInt(l.size());
        for (int i = 0; i < l.size(); i++) {
          io.writeInt(symbols.get(l.name(i)));
          io.writeInt(symbols.get(l.value(i)));
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
    if (idx.capacity() < 20 || idx.getInt(0) != MAGIC && idx.getInt(0) != MAGIC_V1) {
      ic.close();
      throw new IOException("not a block index: " + dir);
    }
    long mint = idx.getLong(4);
    long maxt = idx.getLong(12);
    FileChannel ch = FileChannel.open(dir.resolve("chunks"), StandardOpenOption.READ);
    MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size());
    return new Block(dir, mint, maxt, ic, idx, ch, map);
  }

  /** One series of the index as a query sees it; the arrays are the visitor's. */
  private interface IndexVisitor {
    void series(Labels labels, long[] mints, long[] maxts, long[] offsets, int[] lengths);
  }

  /** Reads the index from the mapping, handing each series that matches all {@code matchers} to {@code visit}. */
  private void scanIndex(List<Matcher> matchers, IndexVisitor visit) {
    if (index.getInt(0) == MAGIC_V1) {
      scanIndexV1(matchers, visit);
      return;
    }
    ByteBuffer b = index.duplicate();
    b.position(20);
    String[] symbols = new String[b.getInt()];
    for (int i = 0; i < symbols.length; i++) {
      symbols[i] = readUtf(b);
    }
    SymbolMatcher[] tests = new SymbolMatcher[matchers.size()];
    for (int i = 0; i < tests.length; i++) {
      tests[i] = new SymbolMatcher(matchers.get(i), symbols);
    }
    int n = b.getInt();
    for (int s = 0; s < n; s++) {
      int nl = b.getInt();
      int pairsAt = b.position();
      boolean matches = true;
      for (SymbolMatcher t : tests) {
        if (!t.matches(b, pairsAt, nl)) {
          matches = false;
          break;
        }
      }
      b.position(pairsAt + nl * 8);
      int nc = b.getInt();
      if (!matches) {
        b.position(b.position() + nc * 28);
        continue;
      }
      String[] pairs = new String[nl * 2];
      for (int i = 0; i < pairs.length; i++) {
        pairs[i] = symbols[b.getInt(pairsAt + i * 4)];
      }
      long[] mints = new long[nc];
      long[] maxts = new long[nc];
      long[] offs = new long[nc];
      int[] lens = new int[nc];
      for (int c = 0; c < nc; c++) {
        mints[c] = b.getLong();
        maxts[c] = b.getLong();
        offs[c] = b.getLong();
        lens[c] = b.getInt();
      }
      visit.series(Labels.ofSorted(pairs), mints, maxts, offs, lens);
    }
  }

  /**
   * A matcher over symbol numbers: its label name looked up once, each distinct value tested once and remembered, so
   * that a block of many series with few distinct values tests few strings.
   */
  private static final class SymbolMatcher {
    private final Matcher matcher;
    private final String[] symbols;
    private final int name;
    private final boolean matchesAbsent;
    /** Per symbol: 0 not tested yet, 1 matches, 2 does not. */
    private final byte[] known;

    SymbolMatcher(Matcher matcher, String[] symbols) {
      this.matcher = matcher;
      this.symbols = symbols;
      this.name = Arrays.binarySearch(symbols, matcher.name());
      this.matchesAbsent = matcher.matches("");
      this.known = new byte[symbols.length];
    }

    /** Whether the series whose {@code nl} name/value pairs start at {@code at} passes. */
    boolean matches(ByteBuffer b, int at, int nl) {
      if (name < 0) {
        return matchesAbsent;
      }
      for (int i = 0; i < nl; i++) {
        if (b.getInt(at + i * 8) == name) {
          int value = b.getInt(at + i * 8 + 4);
          if (known[value] == 0) {
            known[value] = matcher.matches(symbols[value]) ? (byte) 1 : (byte) 2;
          }
          return known[value] == 1;
        }
      }
      return matchesAbsent;
    }
  }

  /** A string as {@link DataOutputStream#writeUTF} wrote it: plain ASCII decoded directly, the rest by Java. */
  private static String readUtf(ByteBuffer b) {
    int len = b.getShort() & 0xffff;
    int at = b.position();
    boolean ascii = true;
    for (int i = 0; i < len && ascii; i++) {
      ascii = b.get(at + i) >= 0;
    }
    byte[] bytes = new byte[len];
    b.get(bytes);
    if (ascii) {
      return new String(bytes, StandardCharsets.ISO_8859_1);
    }
    byte[] framed = new byte[len + 2];
    framed[0] = (byte) (len >>> 8);
    framed[1] = (byte) len;
    System.arraycopy(bytes, 0, framed, 2, len);
    try {
      return new DataInputStream(new ByteArrayInputStream(framed)).readUTF();
    } catch (IOException e) {
      throw new UncheckedIOException("corrupt symbol in a block index", e);
    }
  }

  /** The first index format: every series' labels spelled out. */
  private void scanIndexV1(List<Matcher> matchers, IndexVisitor visit) {
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
        Labels labels = lb.build();
        if (Head.matchesAll(labels, matchers)) {
          visit.series(labels, mints, maxts, offs, lens);
        }
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
    scanIndex(matchers, (labels, mints, maxts, offsets, lengths) -> {
      List<ChunkMeta> list = null;
      for (int c = 0; c < mints.length; c++) {
        if (maxts[c] >= from && mints[c] <= to) {
          if (mints[c] >= from && maxts[c] <= to) {
            chunks.get((int) offsets[c], count);
            budget.charge(XorChunk.Reader.count(count));
          }
          byte[] data = new byte[lengths[c]];
          chunks.get((int) offsets[c], data);
          if (list == null) {
            list = out.computeIfAbsent(labels, k -> new ArrayList<>());
          }
          list.add(new ChunkMeta(mints[c], maxts[c], data));
        }
      }
    });
  }

  /** The labels of the series matching the matchers with a chunk overlapping {@code [from, to]}: the index only. */
  void series(List<Matcher> matchers, long from, long to, java.util.Set<Labels> out) {
    scanIndex(matchers, (labels, mints, maxts, offsets, lengths) -> {
      for (int c = 0; c < mints.length; c++) {
        if (maxts[c] >= from && mints[c] <= to) {
          out.add(labels);
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
    byte[] head = new byte[2];
    scanIndex(List.of(), (labels, mints, maxts, offsets, lengths) -> {
      for (long offset : offsets) {
        chunks.get((int) offset, head);
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
