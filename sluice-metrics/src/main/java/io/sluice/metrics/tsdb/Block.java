package io.sluice.metrics.tsdb;

import io.sluice.metrics.model.Labels;
import io.sluice.metrics.model.Matcher;
import io.sluice.metrics.storage.SampleBudget;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
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
 * number from the series, and has a postings list per label name and value (where the series that have it start).
 * A query decodes only the symbols it meets, reads only the series its equality matchers' postings give, tests a
 * matcher once per distinct value rather than once per series, skips a series that does not match without building
 * its labels, and the series it keeps share their strings. Layout: header (magic, mint, maxt, where the symbols,
 * series and postings start); symbols (count, each one's offset, then each as {@code writeUTF}); series (count, then
 * per series its label pairs as symbol numbers and its chunks' mint, maxt, offset and length); postings (count, then
 * name, value, list offset and length per pair sorted by name and value, then the lists). Blocks written before the
 * symbol table ({@link #MAGIC_V1}: labels spelled out per series) are still read.
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
    ByteArrayOutputStream buffer = new ByteArrayOutputStream(1 << 16);
    DataOutputStream io = new DataOutputStream(buffer);
    try (OutputStream co = new BufferedOutputStream(Files.newOutputStream(tmp.resolve("chunks")), 1 << 16)) {
      io.writeInt(MAGIC);
      io.writeLong(mint);
      io.writeLong(maxt);
      io.writeInt(0); // symbols at, written below
      io.writeInt(0); // series at
      io.writeInt(0); // postings at
      TreeMap<String, Integer> symbols = new TreeMap<>();
      for (Labels l : order) {
        for (int i = 0; i < l.size(); i++) {
          symbols.put(l.name(i), 0);
          symbols.put(l.value(i), 0);
        }
      }
      int symbolsAt = io.size();
      io.writeInt(symbols.size());
      int symbolTableAt = io.size();
      for (int i = 0; i < symbols.size(); i++) {
        io.writeInt(0); // where each symbol starts, written below
      }
      int[] symbolAt = new int[symbols.size()];
      int ref = 0;
      for (Map.Entry<String, Integer> e : symbols.entrySet()) {
        symbolAt[ref] = io.size();
        io.writeUTF(e.getKey());
        e.setValue(ref++);
      }
      int seriesAt = io.size();
      io.writeInt(order.size());
      // Postings: for each name/value pair, where the series that have it start, in the series' (label) order.
      TreeMap<Long, List<Integer>> postings = new TreeMap<>();
      long offset = 0;
      for (Labels l : order) {
        int at = io.size();
        io.writeInt(l.size());
        for (int i = 0; i < l.size(); i++) {
          int n = symbols.get(l.name(i));
          int v = symbols.get(l.value(i));
          io.writeInt(n);
          io.writeInt(v);
          postings.computeIfAbsent(((long) n << 32) | v, k -> new ArrayList<>()).add(at);
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
      int postingsAt = io.size();
      io.writeInt(postings.size());
      int listAt = postingsAt + 4 + postings.size() * 16;
      for (Map.Entry<Long, List<Integer>> e : postings.entrySet()) {
        io.writeInt((int) (e.getKey() >>> 32));
        io.writeInt((int) (long) e.getKey());
        io.writeInt(listAt);
        io.writeInt(e.getValue().size());
        listAt += e.getValue().size() * 4;
      }
      for (List<Integer> list : postings.values()) {
        for (int at : list) {
          io.writeInt(at);
        }
      }
      io.flush();
      ByteBuffer index = ByteBuffer.wrap(buffer.toByteArray());
      index.putInt(20, symbolsAt).putInt(24, seriesAt).putInt(28, postingsAt);
      for (int i = 0; i < symbolAt.length; i++) {
        index.putInt(symbolTableAt + i * 4, symbolAt[i]);
      }
      Files.write(tmp.resolve("index"), index.array());
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

  /**
   * Reads the index from the mapping, handing each series that matches all {@code matchers} to {@code visit}, in the
   * series' order. A matcher of a label to one non-empty value narrows the series read to those its postings list
   * (several such matchers: the intersection of their lists); without one, every series is read and tested.
   */
  private void scanIndex(List<Matcher> matchers, IndexVisitor visit) {
    if (index.getInt(0) == MAGIC_V1) {
      scanIndexV1(matchers, visit);
      return;
    }
    ByteBuffer b = index.duplicate();
    Symbols symbols = new Symbols(b, b.getInt(20));
    SymbolMatcher[] tests = new SymbolMatcher[matchers.size()];
    for (int i = 0; i < tests.length; i++) {
      tests[i] = new SymbolMatcher(matchers.get(i), symbols);
    }
    int[] candidates = postings(b, b.getInt(28), matchers, symbols);
    if (candidates != null) {
      for (int at : candidates) {
        readSeries(b, at, tests, symbols, visit);
      }
      return;
    }
    int seriesAt = b.getInt(24);
    int n = b.getInt(seriesAt);
    int at = seriesAt + 4;
    for (int s = 0; s < n; s++) {
      at = readSeries(b, at, tests, symbols, visit);
    }
  }

  /** Hands the series at {@code at} to {@code visit} if it passes every test; returns where the next one starts. */
  private static int readSeries(ByteBuffer b, int at, SymbolMatcher[] tests, Symbols symbols, IndexVisitor visit) {
    int nl = b.getInt(at);
    int pairsAt = at + 4;
    int chunksAt = pairsAt + nl * 8;
    int nc = b.getInt(chunksAt);
    int next = chunksAt + 4 + nc * 28;
    for (SymbolMatcher t : tests) {
      if (!t.matches(b, pairsAt, nl)) {
        return next;
      }
    }
    String[] pairs = new String[nl * 2];
    for (int i = 0; i < pairs.length; i++) {
      pairs[i] = symbols.get(b.getInt(pairsAt + i * 4));
    }
    long[] mints = new long[nc];
    long[] maxts = new long[nc];
    long[] offs = new long[nc];
    int[] lens = new int[nc];
    int c0 = chunksAt + 4;
    for (int c = 0; c < nc; c++) {
      int cat = c0 + c * 28;
      mints[c] = b.getLong(cat);
      maxts[c] = b.getLong(cat + 8);
      offs[c] = b.getLong(cat + 16);
      lens[c] = b.getInt(cat + 24);
    }
    visit.series(Labels.ofSorted(pairs), mints, maxts, offs, lens);
    return next;
  }

  /**
   * Where the series that every equality matcher with a non-empty value selects start, ascending (an empty array
   * when a name or value is not in this block); null when no matcher is of that kind and every series must be read.
   */
  private static int[] postings(ByteBuffer b, int postingsAt, List<Matcher> matchers, Symbols symbols) {
    int[] out = null;
    int pairs = b.getInt(postingsAt);
    for (Matcher m : matchers) {
      if (m.type() != Matcher.Type.EQ || m.value().isEmpty()) {
        continue;
      }
      int name = symbols.find(m.name());
      int value = name < 0 ? -1 : symbols.find(m.value());
      if (value < 0) {
        return new int[0];
      }
      int lo = 0;
      int hi = pairs - 1;
      int[] list = new int[0];
      while (lo <= hi) {
        int mid = (lo + hi) >>> 1;
        int entry = postingsAt + 4 + mid * 16;
        int c = Integer.compare(b.getInt(entry), name);
        if (c == 0) {
          c = Integer.compare(b.getInt(entry + 4), value);
        }
        if (c < 0) {
          lo = mid + 1;
        } else if (c > 0) {
          hi = mid - 1;
        } else {
          int listAt = b.getInt(entry + 8);
          list = new int[b.getInt(entry + 12)];
          for (int i = 0; i < list.length; i++) {
            list[i] = b.getInt(listAt + i * 4);
          }
          break;
        }
      }
      out = out == null ? list : intersect(out, list);
      if (out.length == 0) {
        return out;
      }
    }
    return out;
  }

  private static int[] intersect(int[] a, int[] b) {
    int[] out = new int[Math.min(a.length, b.length)];
    int n = 0;
    for (int i = 0, j = 0; i < a.length && j < b.length;) {
      if (a[i] < b[j]) {
        i++;
      } else if (a[i] > b[j]) {
        j++;
      } else {
        out[n++] = a[i];
        i++;
        j++;
      }
    }
    return Arrays.copyOf(out, n);
  }

  /** The block's symbol table, each string decoded the first time a query needs it. */
  private static final class Symbols {
    private final ByteBuffer b;
    private final int tableAt;
    private final String[] decoded;

    Symbols(ByteBuffer b, int at) {
      this.b = b;
      this.tableAt = at + 4;
      this.decoded = new String[b.getInt(at)];
    }

    int size() {
      return decoded.length;
    }

    String get(int id) {
      String s = decoded[id];
      if (s == null) {
        s = readUtf(b, b.getInt(tableAt + id * 4));
        decoded[id] = s;
      }
      return s;
    }

    /** The number of {@code s}, or a negative number when the block has no such string (symbols are sorted). */
    int find(String s) {
      int lo = 0;
      int hi = decoded.length - 1;
      while (lo <= hi) {
        int mid = (lo + hi) >>> 1;
        int c = get(mid).compareTo(s);
        if (c < 0) {
          lo = mid + 1;
        } else if (c > 0) {
          hi = mid - 1;
        } else {
          return mid;
        }
      }
      return -1;
    }
  }

  /**
   * A matcher over symbol numbers: its label name looked up once, each distinct value tested once and remembered, so
   * that a block of many series with few distinct values tests few strings.
   */
  private static final class SymbolMatcher {
    private final Matcher matcher;
    private final Symbols symbols;
    private final int name;
    private final boolean matchesAbsent;
    /** Per symbol: 0 not tested yet, 1 matches, 2 does not. */
    private final byte[] known;

    SymbolMatcher(Matcher matcher, Symbols symbols) {
      this.matcher = matcher;
      this.symbols = symbols;
      this.name = symbols.find(matcher.name());
      this.matchesAbsent = matcher.matches("");
      this.known = new byte[symbols.size()];
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
            known[value] = matcher.matches(symbols.get(value)) ? (byte) 1 : (byte) 2;
          }
          return known[value] == 1;
        }
      }
      return matchesAbsent;
    }
  }

  /** A string as {@link DataOutputStream#writeUTF} wrote it at {@code at}: ASCII decoded directly, the rest by Java. */
  private static String readUtf(ByteBuffer b, int at) {
    int len = b.getShort(at) & 0xffff;
    byte[] bytes = new byte[len];
    b.get(at + 2, bytes);
    boolean ascii = true;
    for (int i = 0; i < len && ascii; i++) {
      ascii = bytes[i] >= 0;
    }
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
