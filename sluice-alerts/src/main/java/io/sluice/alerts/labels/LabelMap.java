package io.sluice.alerts.labels;

import java.util.AbstractCollection;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * An immutable label (or annotation) set sorted by name, stored as two arrays. The router keeps every alert's labels
 * in memory, so this is kept small: the names array is shared by every set with the same names (alerts of one rule
 * all carry the same label names), short values are shared through {@link SharedStrings}, and the class does not
 * extend {@link AbstractMap}, whose two cached view fields would cost 8 bytes per set.
 */
public final class LabelMap implements Map<String, String> {
  private static final String[] NO_STRINGS = new String[0];
  private static final LabelMap EMPTY = new LabelMap(NO_STRINGS, NO_STRINGS);
  /** Recently seen name arrays, by hash; a miss only costs an unshared array. */
  private static final String[][] NAMES = new String[4096][];
  /** Recently built sets, by hash, for {@link Builder#buildShared}. */
  private static final LabelMap[] SETS = new LabelMap[1 << 14];

  private final String[] names;
  private final String[] values;
  private int hash;

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
    Builder b = new Builder();
    m.forEach(b::put);
    return b.build(false);
  }

  /**
   * A set from names already sorted and distinct (a route's group_by names), with a value for each. Neither array may
   * be modified afterwards: the names array may be shared with other sets.
   */
  public static LabelMap ofSorted(String[] names, String[] values) {
    return names.length == 0 ? EMPTY : new LabelMap(sharedNames(names), values);
  }

  private static String[] sharedNames(String[] names) {
    int slot = (Arrays.hashCode(names) & 0x7fffffff) % NAMES.length;
    String[] cached = NAMES[slot];
    if (cached != null && Arrays.equals(cached, names)) {
      return cached;
    }
    NAMES[slot] = names;
    return names;
  }

  /**
   * Collects name/value pairs in any order; a later value for the same name wins, as in a JSON object read into a
   * map. Reusable: {@link #build} leaves it empty.
   */
  public static final class Builder {
    private String[] names = new String[8];
    private String[] values = new String[8];
    private int size;

    public Builder put(String name, String value) {
      for (int i = 0; i < size; i++) {
        if (names[i].equals(name)) {
          values[i] = value;
          return this;
        }
      }
      if (size == names.length) {
        names = Arrays.copyOf(names, size * 2);
        values = Arrays.copyOf(values, size * 2);
      }
      names[size] = name;
      values[size] = value;
      size++;
      return this;
    }

    /**
     * The set, or an equal one built before: annotations are often the same for every alert of a rule (a runbook
     * link, a fixed description), and then all of them share one set. Like the string cache, a direct-mapped cache.
     */
    public LabelMap buildShared() {
      LabelMap m = build(false);
      if (m.names.length == 0) {
        return m;
      }
      int slot = m.hashCode() & (SETS.length - 1);
      LabelMap cached = SETS[slot];
      if (cached != null && cached.equals(m)) {
        return cached;
      }
      SETS[slot] = m;
      return m;
    }

    /** The set, without the pairs whose value is empty when {@code dropEmpty} (Alertmanager drops empty labels). */
    public LabelMap build(boolean dropEmpty) {
      int n = 0;
      for (int i = 0; i < size; i++) {
        if (dropEmpty && values[i].isEmpty()) {
          continue;
        }
        String name = names[i];
        String value = values[i];
        // Insertion sort: label sets are small.
        int j = n;
        while (j > 0 && names[j - 1].compareTo(name) > 0) {
          names[j] = names[j - 1];
          values[j] = values[j - 1];
          j--;
        }
        names[j] = SharedStrings.share(name);
        values[j] = SharedStrings.share(value);
        n++;
      }
      LabelMap m = n == 0 ? EMPTY : new LabelMap(sharedNames(Arrays.copyOf(names, n)), Arrays.copyOf(values, n));
      Arrays.fill(names, 0, size, null);
      Arrays.fill(values, 0, size, null);
      size = 0;
      return m;
    }
  }

  private int indexOf(Object key) {
    return key instanceof String k ? Arrays.binarySearch(names, k) : -1;
  }

  @Override
  public String get(Object key) {
    int i = indexOf(key);
    return i >= 0 ? values[i] : null;
  }

  @Override
  public boolean containsKey(Object key) {
    return indexOf(key) >= 0;
  }

  @Override
  public boolean containsValue(Object value) {
    for (String v : values) {
      if (v.equals(value)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public int size() {
    return names.length;
  }

  @Override
  public boolean isEmpty() {
    return names.length == 0;
  }

  @Override
  public void forEach(BiConsumer<? super String, ? super String> action) {
    for (int i = 0; i < names.length; i++) {
      action.accept(names[i], values[i]);
    }
  }

  @Override
  public Set<String> keySet() {
    return new AbstractSet<>() {
      @Override
      public Iterator<String> iterator() {
        return Arrays.asList(names).iterator();
      }

      @Override
      public boolean contains(Object o) {
        return containsKey(o);
      }

      @Override
      public int size() {
        return names.length;
      }
    };
  }

  @Override
  public Collection<String> values() {
    return new AbstractCollection<>() {
      @Override
      public Iterator<String> iterator() {
        return Arrays.asList(values).iterator();
      }

      @Override
      public int size() {
        return values.length;
      }
    };
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
            Entry<String, String> e = new AbstractMap.SimpleImmutableEntry<>(names[i], values[i]);
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

  @Override
  public boolean equals(Object o) {
    if (o == this) {
      return true;
    }
    if (o instanceof LabelMap l) {
      return (names == l.names || Arrays.equals(names, l.names)) && Arrays.equals(values, l.values);
    }
    if (!(o instanceof Map<?, ?> m) || m.size() != names.length) {
      return false;
    }
    for (int i = 0; i < names.length; i++) {
      if (!values[i].equals(m.get(names[i]))) {
        return false;
      }
    }
    return true;
  }

  /** {@link Map#hashCode()}'s definition, cached. */
  @Override
  public int hashCode() {
    int h = hash;
    if (h == 0) {
      for (int i = 0; i < names.length; i++) {
        h += names[i].hashCode() ^ values[i].hashCode();
      }
      hash = h;
    }
    return h;
  }

  /**
   * A hash for keying maps by label set. {@link #hashCode()} must follow {@link Map#hashCode()}, a sum of
   * name-xor-value hashes under which sets that differ in a digit or two (alertname "Bench12" and "Bench21", say)
   * collide; this one mixes every position.
   */
  public int contentHash() {
    int h = names.length;
    for (int i = 0; i < names.length; i++) {
      h = (h * 31 + names[i].hashCode()) * 31 + values[i].hashCode();
    }
    return h ^ (h >>> 16);
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("{");
    for (int i = 0; i < names.length; i++) {
      if (i > 0) {
        b.append(", ");
      }
      b.append(names[i]).append('=').append(values[i]);
    }
    return b.append('}').toString();
  }

  @Override
  public String put(String key, String value) {
    throw new UnsupportedOperationException("LabelMap is immutable");
  }

  @Override
  public String remove(Object key) {
    throw new UnsupportedOperationException("LabelMap is immutable");
  }

  @Override
  public void putAll(Map<? extends String, ? extends String> m) {
    throw new UnsupportedOperationException("LabelMap is immutable");
  }

  @Override
  public void clear() {
    throw new UnsupportedOperationException("LabelMap is immutable");
  }

  /** Names in sorted order, as fingerprints and group keys need them. */
  String name(int i) {
    return names[i];
  }

  String value(int i) {
    return values[i];
  }
}
