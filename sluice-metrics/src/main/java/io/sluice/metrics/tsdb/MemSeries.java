package io.sluice.metrics.tsdb;

import io.sluice.metrics.model.Labels;
import io.sluice.metrics.model.StaleNaN;
import java.util.ArrayList;
import java.util.List;

/** One series of the head: closed chunks plus the open one that takes appends. Guarded by its own monitor. */
final class MemSeries {
  final long ref;
  final Labels labels;
  final List<ChunkMeta> closed = new ArrayList<>();
  private XorChunk open;
  private long openMinT;
  private long lastT = Long.MIN_VALUE;
  /** Whether the last sample is a stale marker; false when the last sample came in a closed chunk, unread. */
  private boolean endsStale;
  private final long chunkRange;

  MemSeries(long ref, Labels labels, long chunkRange) {
    this.ref = ref;
    this.labels = labels;
    this.chunkRange = chunkRange;
  }

  /** False when the sample is out of order (or a duplicate timestamp), as Prometheus rejects those. */
  synchronized boolean append(long t, double v) {
    if (t <= lastT) {
      return false;
    }
    if (open != null && (open.count() >= XorChunk.MAX_SAMPLES || t >= nextBoundary(openMinT))) {
      closeOpen();
    }
    if (open == null) {
      open = new XorChunk();
      openMinT = t;
    }
    open.append(t, v);
    lastT = t;
    endsStale = StaleNaN.is(v);
    return true;
  }

  /** Chunks never straddle a block boundary, so compaction moves whole chunks. */
  private long nextBoundary(long t) {
    return Math.floorDiv(t, chunkRange) * chunkRange + chunkRange;
  }

  private void closeOpen() {
    closed.add(new ChunkMeta(openMinT, open.lastTimestamp(), open.encoded()));
    open = null;
  }

  synchronized void addClosedChunk(ChunkMeta c) {
    closed.add(c);
    if (c.maxt() >= lastT) {
      lastT = c.maxt();
      endsStale = false;
    }
  }

  synchronized long lastTimestamp() {
    return lastT;
  }

  /** Whether the series has a sample at or after {@code since} and its last one is not a stale marker. */
  synchronized boolean openSince(long since) {
    return lastT >= since && !endsStale;
  }

  /** Chunks overlapping the window, the open one encoded on the fly. */
  synchronized void chunks(long mint, long maxt, List<ChunkMeta> out) {
    for (ChunkMeta c : closed) {
      if (c.maxt() >= mint && c.mint() <= maxt) {
        out.add(c);
      }
    }
    if (open != null && open.lastTimestamp() >= mint && openMinT <= maxt) {
      out.add(new ChunkMeta(openMinT, open.lastTimestamp(), open.encoded()));
    }
  }

  /** Whether any of its chunks (the open one too) spans part of {@code [mint, maxt]}. */
  synchronized boolean overlaps(long mint, long maxt) {
    for (ChunkMeta c : closed) {
      if (c.maxt() >= mint && c.mint() <= maxt) {
        return true;
      }
    }
    return open != null && open.lastTimestamp() >= mint && openMinT <= maxt;
  }

  /** Removes and returns the chunks that end before {@code boundary}; the open chunk too once it is complete. */
  synchronized List<ChunkMeta> cutBefore(long boundary) {
    if (open != null && open.lastTimestamp() < boundary) {
      closeOpen();
    }
    List<ChunkMeta> out = new ArrayList<>();
    while (!closed.isEmpty() && closed.get(0).maxt() < boundary) {
      out.add(closed.remove(0));
    }
    return out;
  }

  synchronized boolean isEmpty() {
    return open == null && closed.isEmpty();
  }

  synchronized long minTime() {
    if (!closed.isEmpty()) {
      return closed.get(0).mint();
    }
    return open != null ? openMinT : Long.MAX_VALUE;
  }

  /** For the WAL checkpoint: closed chunks as they are, plus the open chunk's samples. */
  synchronized void snapshot(List<ChunkMeta> closedOut, List<long[]> openTimes, List<double[]> openValues) {
    closedOut.addAll(closed);
    if (open != null) {
      byte[] enc = open.encoded();
      int n = XorChunk.Reader.count(enc);
      long[] ts = new long[n];
      double[] vs = new double[n];
      XorChunk.Reader r = new XorChunk.Reader(enc);
      for (int i = 0; r.next(); i++) {
        ts[i] = r.t();
        vs[i] = r.v();
      }
      openTimes.add(ts);
      openValues.add(vs);
    }
  }

  synchronized int sizeBytes() {
    int s = 0;
    for (ChunkMeta c : closed) {
      s += c.data().length;
    }
    return s + (open == null ? 0 : open.sizeBytes());
  }
}
