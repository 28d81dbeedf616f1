package io.sluice.metrics.tsdb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.metrics.model.Labels;
import io.sluice.metrics.model.Matcher;
import io.sluice.metrics.storage.Appender;
import io.sluice.metrics.storage.Querier;
import io.sluice.metrics.storage.SeriesData;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DbTest {
  @TempDir
  Path dir;

  private static final Labels A = Labels.of("__name__", "m", "job", "a");
  private static final Labels B = Labels.of("__name__", "m", "job", "b");

  private static List<SeriesData> select(Db db, long mint, long maxt, Matcher... ms) {
    try (Querier q = db.querier(mint, maxt)) {
      return q.select(List.of(ms));
    }
  }

  @Test
  void selectsByMatchersAndWindow() {
    Db db = Db.inMemory();
    Appender app = db.appender();
    for (int i = 0; i < 10; i++) {
      app.append(A, i * 1000L, i);
      app.append(B, i * 1000L, -i);
    }
    app.commit();
    List<SeriesData> s = select(db, 2000, 4000, Matcher.eq("job", "a"));
    assertEquals(1, s.size());
    assertArrayEquals(new long[] {2000, 3000, 4000}, s.get(0).timestamps());
    assertArrayEquals(new double[] {2, 3, 4}, s.get(0).values());
    assertEquals(2, select(db, 0, 10_000, Matcher.of("job", Matcher.Type.RE, "a|b")).size());
    assertEquals(1, select(db, 0, 10_000, Matcher.eq("__name__", "m"), Matcher.of("job", Matcher.Type.NE, "a"))
        .size());
  }

  @Test
  void rejectsOutOfOrderSamples() {
    Db db = Db.inMemory();
    Appender app = db.appender();
    app.append(A, 2000, 1);
    app.append(A, 1000, 2);
    app.append(A, 2000, 3);
    app.commit();
    assertEquals(2, db.outOfOrderSamples());
    assertArrayEquals(new double[] {1}, select(db, 0, 5000, Matcher.eq("job", "a")).get(0).values());
  }

  @Test
  void aRestartAfterACrashEndsTheSeriesItLeftOpen() throws Exception {
    Labels ended = Labels.of("__name__", "m", "job", "ended");
    Labels old = Labels.of("__name__", "m", "job", "old");
    Db db = Db.open(dir, Duration.ofDays(15));
    Appender app = db.appender();
    app.append(A, 1_000_000, 1);
    app.append(ended, 1_000_000, 2);
    app.append(old, 500_000, 3);
    app.commit();
    app.append(ended, 1_015_000, io.sluice.metrics.model.StaleNaN.VALUE);
    app.commit();
    // Killed: no close. The next run ends what is still open within the lookback, and nothing else.
    Db reopened = Db.open(dir, Duration.ofDays(15));
    assertEquals(1, reopened.endOpenSeries(1_030_000, Duration.ofMinutes(5)));
    SeriesData a = select(reopened, 0, Long.MAX_VALUE, Matcher.eq("job", "a")).get(0);
    assertArrayEquals(new long[] {1_000_000, 1_030_000}, a.timestamps());
    assertTrue(io.sluice.metrics.model.StaleNaN.is(a.values()[1]));
    assertEquals(2, select(reopened, 0, Long.MAX_VALUE, Matcher.eq("job", "ended")).get(0).size(), "ended already");
    assertEquals(1, select(reopened, 0, Long.MAX_VALUE, Matcher.eq("job", "old")).get(0).size(), "past the lookback");
    assertEquals(0, reopened.endOpenSeries(1_031_000, Duration.ofMinutes(5)), "once is enough");
    reopened.close();
  }

  @Test
  void walReplayRestoresHeadAfterCrash() throws Exception {
    Db db = Db.open(dir, Duration.ofDays(15));
    Appender app = db.appender();
    for (int i = 0; i < 500; i++) {
      app.append(A, i * 15_000L, i * 2.5);
    }
    app.commit();
    // No close(): the commit alone must have reached the WAL.
    Db reopened = Db.open(dir, Duration.ofDays(15));
    SeriesData s = select(reopened, 0, Long.MAX_VALUE, Matcher.eq("job", "a")).get(0);
    assertEquals(500, s.size());
    assertEquals(499 * 2.5, s.values()[499]);
    reopened.close();
  }

  @Test
  void tornWalTailIsDropped() throws Exception {
    Db db = Db.open(dir, Duration.ofDays(15));
    Appender app = db.appender();
    app.append(A, 1000, 1);
    app.commit();
    app.append(A, 2000, 2);
    app.commit();
    db.close();
    Path seg;
    try (Stream<Path> s = Files.list(dir.resolve("wal"))) {
      seg = s.sorted().reduce((x, y) -> y).orElseThrow();
    }
    try (RandomAccessFile f = new RandomAccessFile(seg.toFile(), "rw")) {
      f.setLength(f.length() - 5);
    }
    Db reopened = Db.open(dir, Duration.ofDays(15));
    SeriesData s = select(reopened, 0, 10_000, Matcher.eq("job", "a")).get(0);
    assertArrayEquals(new double[] {1}, s.values());
    reopened.close();
  }

  @Test
  void compactsOldDataIntoBlocksAndKeepsItQueryable() {
    Db db = Db.open(dir, Duration.ofDays(15), Duration.ofHours(2));
    Appender app = db.appender();
    long step = 15_000;
    int n = (int) (Duration.ofHours(7).toMillis() / step);
    for (int i = 0; i < n; i++) {
      app.append(A, i * step, i);
      if (i % 100 == 0) {
        app.commit();
      }
    }
    app.commit();
    Db.Stats stats = db.stats();
    assertTrue(stats.blocks() >= 2, "blocks: " + stats);
    assertTrue(stats.blockBytes() / (double) stats.blockSamples() <= 2.0, "bytes per sample: " + stats);
    SeriesData s = select(db, 0, Long.MAX_VALUE, Matcher.eq("job", "a")).get(0);
    assertEquals(n, s.size());
    for (int i = 0; i < n; i++) {
      assertEquals(i * step, s.timestamps()[i]);
      assertEquals(i, s.values()[i]);
    }
    db.close();
    // Blocks plus the WAL checkpoint bring everything back.
    Db reopened = Db.open(dir, Duration.ofDays(15), Duration.ofHours(2));
    SeriesData r = select(reopened, 0, Long.MAX_VALUE, Matcher.eq("job", "a")).get(0);
    assertEquals(n, r.size());
    assertEquals(n - 1, r.values()[n - 1]);
    reopened.close();
  }

  @Test
  void retentionDeletesOldBlocks() {
    Db db = Db.open(dir, Duration.ofHours(3), Duration.ofHours(1));
    Appender app = db.appender();
    long step = 60_000;
    int n = (int) (Duration.ofHours(10).toMillis() / step);
    for (int i = 0; i < n; i++) {
      app.append(A, i * step, i);
      app.commit();
    }
    SeriesData s = select(db, 0, Long.MAX_VALUE, Matcher.eq("job", "a")).get(0);
    assertTrue(s.timestamps()[0] >= Duration.ofHours(5).toMillis(), "oldest kept " + s.timestamps()[0]);
    assertEquals((n - 1) * step, s.timestamps()[s.size() - 1]);
    db.close();
  }

  @Test
  void inactiveSeriesLeaveTheHeadAfterCompaction() {
    Db db = Db.open(dir, Duration.ofDays(15), Duration.ofHours(1));
    Appender app = db.appender();
    for (int i = 0; i < 300; i++) {
      app.append(Labels.of("__name__", "gone", "i", String.valueOf(i)), 0, 1);
    }
    app.commit();
    for (int i = 0; i < 200; i++) {
      app.append(A, i * 60_000L, i);
      app.commit();
    }
    assertTrue(db.stats().headSeries() < 10, "head series " + db.stats().headSeries());
    assertEquals(300, select(db, 0, Long.MAX_VALUE, Matcher.eq("__name__", "gone")).size());
    db.close();
  }

  /**
   * Every kind of matcher, a label some series lack and a value outside ASCII, answered from blocks as the head
   * answers them; and a block in the first index format (labels spelled out per series) still read.
   */
  @Test
  void blocksAnswerEveryMatcherAsTheHeadDoesInBothIndexFormats() throws Exception {
    Labels c = Labels.of("__name__", "m", "city", "z\u00fcrich");
    Labels d = Labels.of("__name__", "other", "job", "a");
    List<Labels> all = List.of(A, B, c, d);
    Db head = Db.inMemory();
    Db db = Db.open(dir, Duration.ofDays(15), Duration.ofHours(1));
    for (Db target : List.of(head, db)) {
      Appender app = target.appender();
      for (int i = 0; i < 200; i++) {
        for (int k = 0; k < all.size(); k++) {
          app.append(all.get(k), i * 60_000L, i * 10 + k);
        }
        app.commit();
      }
    }
    assertTrue(db.stats().blocks() >= 2, "blocks: " + db.stats());
    List<List<Matcher>> queries = List.of(
        List.of(Matcher.eq("__name__", "m")),
        List.of(Matcher.eq("__name__", "m"), Matcher.of("job", Matcher.Type.NE, "a")),
        List.of(Matcher.of("job", Matcher.Type.RE, "a|b")),
        List.of(Matcher.of("city", Matcher.Type.RE, "z.rich")),
        List.of(Matcher.of("__name__", Matcher.Type.NRE, "oth.*"), Matcher.eq("city", "")),
        List.of(Matcher.eq("absent", "")),
        List.of(Matcher.eq("absent", "x")));
    long blocksEnd = 60 * 60_000L;
    for (List<Matcher> q : queries) {
      assertEquals(render(head, blocksEnd, q), render(db, blocksEnd, q), q.toString());
    }
    db.close();

    // The same blocks rewritten in the first index format read the same.
    for (Path block : Block.list(dir)) {
      Block b = Block.open(block);
      java.util.Map<Labels, List<ChunkMeta>> data = new java.util.TreeMap<>();
      b.select(List.of(), Long.MIN_VALUE, Long.MAX_VALUE, data, io.sluice.metrics.storage.SampleBudget.UNLIMITED);
      b.close();
      writeFirstFormatIndex(block.resolve("index"), b.mint, b.maxt, data);
    }
    Db reopened = Db.open(dir, Duration.ofDays(15), Duration.ofHours(1));
    for (List<Matcher> q : queries) {
      assertEquals(render(head, blocksEnd, q), render(reopened, blocksEnd, q), "first format: " + q);
    }
    reopened.close();
  }

  private static String render(Db db, long maxt, List<Matcher> matchers) {
    StringBuilder out = new StringBuilder();
    try (Querier q = db.querier(0, maxt)) {
      for (SeriesData s : q.select(matchers)) {
        out.append(s.labels()).append(' ').append(java.util.Arrays.toString(s.timestamps())).append(' ')
            .append(java.util.Arrays.toString(s.values())).append('\n');
      }
      out.append(q.series(matchers));
    }
    return out.toString();
  }

  /** The index as blocks were written before the symbol table: magic SLB1, every series' labels as UTF strings. */
  private static void writeFirstFormatIndex(Path index, long mint, long maxt,
      java.util.Map<Labels, List<ChunkMeta>> data) throws Exception {
    try (java.io.DataOutputStream out = new java.io.DataOutputStream(Files.newOutputStream(index))) {
      out.writeInt(0x534c4231);
      out.writeLong(mint);
      out.writeLong(maxt);
      out.writeInt(data.size());
      long offset = 0;
      for (java.util.Map.Entry<Labels, List<ChunkMeta>> e : data.entrySet()) {
        out.writeInt(e.getKey().size());
        for (int i = 0; i < e.getKey().size(); i++) {
          out.writeUTF(e.getKey().name(i));
          out.writeUTF(e.getKey().value(i));
        }
        out.writeInt(e.getValue().size());
        for (ChunkMeta c : e.getValue()) {
          out.writeLong(c.mint());
          out.writeLong(c.maxt());
          out.writeLong(offset);
          out.writeInt(c.data().length);
          offset += c.data().length;
        }
      }
    }
  }
}
