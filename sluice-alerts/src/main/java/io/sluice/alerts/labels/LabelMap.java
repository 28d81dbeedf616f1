package io.sluice.alerts.labels;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An immutable label (or annotation) set sorted by name, stored as two arrays. The router keeps every alert's labels
 * in memory, so this costs about a third of a TreeMap; common values ("critical", connector names) are shared.
 */
public final class LabelMap extends AbstractMap<String, String> {
  private static final LabelMap EMPTY = new LabelMap(new String[0], new String[0]);
  /** Bounded so a flood of unique values cannot grow it without limit. */
  private static final int MAX_SHARED = 100_000;
  private static final ConcurrentHashMap<String, String> SHARED = new ConcurrentHashMap<>();
  private static final java.util.concurrent.atomic.AtomicInteger SHARED_COUNT = new java.util.concurrent.atomic.AtomicInteger();

  private final String[] names;
  private final String[] values;

  private LabelMap(String[] names, String[] values) {
    this.names = names;
    this.values = values;
  }

  public static LabelMap of(Map<String, String> m) {
    if (m instanceof LabelMap l) {
      return l;
    }
    if (m.isEmpty()) {
      return EMPTY;
    }
    String[] names = m.keySet().toArray(new String[0]);
    Arrays.sort(names);
    String[] values = new String[names.length];
    for (int i = 0; i < names.length; i++) {
      names[i] = share(names[i]);
      values[i] = share(m.get(names[i]));
    }
    return new LabelMap(names, values);
  }

  private static String share(String s) {
    if (s.length() > 64) {
      return s;
    }
    String prev = SHARED.get(s);
    if (prev != null) {
      return prev;
    }
    // ConcurrentHashMap.size() sums striped counters: too slow for every label of every alert.
    if (SHARED_COUNT.get() < MAX_SHARED) {
      prev = SHARED.putIfAbsent(s, s);
      if (prev == null) {
        SHARED_COUNT.incrementAndGet();
        return s;
      }
      return prev;
    }
    return s;
  }

  @Override
  public String get(Object key) {
    if (!(key instanceof String k)) {
      return null;
    }
    int i = Arrays.binarySearch(names, k);
    return i >= 0 ? values[i] : null;
  }

  @Override
  public boolean containsKey(Object key) {
    return key instanceof String k && Arrays.binarySearch(names, k) >= 0;
  }

  @Override
  public int size() {
    return names.length;
  }

  @Override
  public Set<Entry<String, String>> entrySet() {
    return new AbstractSet<>() {
      @Override
      public Iterator<Entry<String, String>> iterator() {
        return new Iterator<>() {
          private int i;

          @Override
          public boolean hasNext() {
            return i < names.length;
          }

          @Override
          public Entry<String, String> next() {
            if (i >= names.length) {
              throw new NoSuchElementException();
            }
            Entry<String, String> e = new SimpleImmutableEntry<>(names[i], values[i]);
            i++;
            return e;
          }
        };
      }

      @Override
      public int size() {
        return names.length;
      }
    };
  }

  /** Names in sorted order, as fingerprints and group keys need them. */
  String name(int i) {
    return names[i];
  }

  String value(int i) {
    return values[i];
  }
}
