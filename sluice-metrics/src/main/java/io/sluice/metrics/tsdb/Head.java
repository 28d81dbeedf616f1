package io.sluice.metrics.tsdb;

import io.sluice.metrics.model.Labels;
import io.sluice.metrics.model.Matcher;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/** The in-memory part of the store: active series, their recent chunks, and a postings index on label pairs. */
final class Head {
  private final ConcurrentHashMap<Labels, MemSeries> byLabels = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<Long, MemSeries> byRef = new ConcurrentHashMap<>();
  private final Map<String, Map<String, Set<MemSeries>>> postings = new HashMap<>();
  private final ReentrantReadWriteLock postingsLock = new ReentrantReadWriteLock();
  private final AtomicLong nextRef = new AtomicLong(1);
  private final long chunkRange;
  private volatile long maxT = Long.MIN_VALUE;
  /** Lower bound of the head's oldest sample; exact again after every compaction, so commits need not scan. */
  private volatile long minT = Long.MAX_VALUE;

  Head(long chunkRange) {
    this.chunkRange = chunkRange;
  }

  MemSeries get(Labels labels) {
    return byLabels.get(labels);
  }

  MemSeries byRef(long ref) {
    return byRef.get(ref);
  }

  /** The series and whether it was created by this call. */
  MemSeries getOrCreate(Labels labels, boolean[] created) {
    MemSeries s = byLabels.get(labels);
    if (s != null) {
      return s;
    }
    return create(nextRef.getAndIncrement(), labels, created);
  }

  MemSeries create(long ref, Labels labels, boolean[] created) {
    MemSeries fresh = new MemSeries(ref, labels, chunkRange);
    MemSeries prior = byLabels.putIfAbsent(labels, fresh);
    if (prior != null) {
      return prior;
    }
    nextRef.accumulateAndGet(ref + 1, Math::max);
    byRef.put(ref, fresh);
    postingsLock.writeLock().lock();
    try {
      labels.forEach((n, v) -> postings.computeIfAbsent(n, k -> new HashMap<>())
          .computeIfAbsent(v, k -> new HashSet<>()).add(fresh));
    } finally {
      postingsLock.writeLock().unlock();
    }
    if (created != null) {
      created[0] = true;
    }
    return fresh;
  }

  void remove(MemSeries s) {
    byLabels.remove(s.labels, s);
    byRef.remove(s.ref, s);
    postingsLock.writeLock().lock();
    try {
      s.labels.forEach((n, v) -> {
        Map<String, Set<MemSeries>> byValue = postings.get(n);
        if (byValue == null) {
          return;
        }
        Set<MemSeries> set = byValue.get(v);
        if (set != null) {
          set.remove(s);
          if (set.isEmpty()) {
            byValue.remove(v);
          }
        }
        if (byValue.isEmpty()) {
          postings.remove(n);
        }
      });
    } finally {
      postingsLock.writeLock().unlock();
    }
  }

  void observe(long t) {
    if (t > maxT) {
      maxT = t;
    }
  }

  void observeMin(long t) {
    if (t < minT) {
      minT = t;
    }
  }

  /** The cheap lower bound; see {@link #minTime()} for the exact value. */
  long minTimeBound() {
    return minT;
  }

  long maxTime() {
    return maxT;
  }

  /** The exact oldest sample time of the head, by a scan of all series; also resets the cheap bound. */
  long minTime() {
    long min = Long.MAX_VALUE;
    for (MemSeries s : byRef.values()) {
      min = Math.min(min, s.minTime());
    }
    minT = min;
    return min;
  }

  Collection<MemSeries> all() {
    return byRef.values();
  }

  int numSeries() {
    return byRef.size();
  }

  /** Series matching every matcher; equality matchers narrow the candidates through the postings. */
  List<MemSeries> select(List<Matcher> matchers) {
    Collection<MemSeries> candidates = null;
    postingsLock.readLock().lock();
    try {
      for (Matcher m : matchers) {
        if (m.type() == Matcher.Type.EQ && !m.value().isEmpty()) {
          Set<MemSeries> p = postings.getOrDefault(m.name(), Map.of()).getOrDefault(m.value(), Set.of());
          if (candidates == null || p.size() < candidates.size()) {
            candidates = p;
          }
        }
      }
      List<MemSeries> out = new ArrayList<>();
      for (MemSeries s : candidates == null ? byRef.values() : new ArrayList<>(candidates)) {
        if (matchesAll(s.labels, matchers)) {
          out.add(s);
        }
      }
      return out;
    } finally {
      postingsLock.readLock().unlock();
    }
  }

  static boolean matchesAll(Labels l, List<Matcher> matchers) {
    for (Matcher m : matchers) {
      if (!m.matches(l)) {
        return false;
      }
    }
    return true;
  }
}
