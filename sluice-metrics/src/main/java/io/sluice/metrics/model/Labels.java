package io.sluice.metrics.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiConsumer;

/**
 * An immutable label set, sorted by name, as Prometheus identifies a series. Empty values are never stored: Prometheus
 * treats a label with an empty value as absent, so {@code {a=""}} and {@code {}} are the same series.
 */
public final class Labels implements Comparable<Labels> {
  public static final String METRIC_NAME = "__name__";
  public static final Labels EMPTY = new Labels(new String[0]);

  /** name0, value0, name1, value1, ... sorted by name. */
  private final String[] pairs;
  private int hash;
  /** Queries drop the metric name of the same series at every step; computing it once matters. */
  private Labels withoutNameCache;

  private Labels(String[] pairs) {
    this.pairs = pairs;
  }

  public static Labels of(String... nameValues) {
    if (nameValues.length % 2 != 0) {
      throw new IllegalArgumentException("odd number of label strings");
    }
    Builder b = builder();
    for (int i = 0; i < nameValues.length; i += 2) {
      b.set(nameValues[i], nameValues[i + 1]);
    }
    return b.build();
  }

  /**
   * Labels from name/value pairs already sorted by name, none with an empty value, the array handed over: what a
   * store reads back from its own index, where a builder per series would cost more than the read.
   */
  public static Labels ofSorted(String[] pairs) {
    if (pairs.length % 2 != 0) {
      throw new IllegalArgumentException("odd number of label strings");
    }
    return new Labels(pairs);
  }

  public static Labels fromMap(Map<String, String> map) {
    Builder b = builder();
    map.forEach(b::set);
    return b.build();
  }

  public static Builder builder() {
    return new Builder(EMPTY);
  }

  public Builder toBuilder() {
    return new Builder(this);
  }

  public int size() {
    return pairs.length / 2;
  }

  public boolean isEmpty() {
    return pairs.length == 0;
  }

  public String name(int i) {
    return pairs[2 * i];
  }

  public String value(int i) {
    return pairs[2 * i + 1];
  }

  /** The label's value, or "" when absent (Prometheus semantics). */
  public String get(String name) {
    for (int i = 0; i < pairs.length; i += 2) {
      int c = pairs[i].compareTo(name);
      if (c == 0) {
        return pairs[i + 1];
      }
      if (c > 0) {
        break;
      }
    }
    return "";
  }

  public boolean has(String name) {
    return !get(name).isEmpty();
  }

  public String metricName() {
    return get(METRIC_NAME);
  }

  public void forEach(BiConsumer<String, String> action) {
    for (int i = 0; i < pairs.length; i += 2) {
      action.accept(pairs[i], pairs[i + 1]);
    }
  }

  public Map<String, String> toMap() {
    Map<String, String> m = new LinkedHashMap<>();
    forEach(m::put);
    return m;
  }

  public Labels withoutName() {
    Labels cached = withoutNameCache;
    if (cached != null) {
      return cached;
    }
    int at = -1;
    for (int i = 0; i < pairs.length; i += 2) {
      if (pairs[i].equals(METRIC_NAME)) {
        at = i;
        break;
      }
    }
    if (at < 0) {
      cached = this;
    } else {
      String[] p = new String[pairs.length - 2];
      System.arraycopy(pairs, 0, p, 0, at);
      System.arraycopy(pairs, at + 2, p, at, pairs.length - at - 2);
      cached = new Labels(p);
    }
    withoutNameCache = cached;
    return cached;
  }

  /** Only the named labels. */
  public Labels keep(Collection<String> names) {
    String[] out = new String[pairs.length];
    int n = 0;
    for (int i = 0; i < pairs.length; i += 2) {
      if (names.contains(pairs[i])) {
        out[n++] = pairs[i];
        out[n++] = pairs[i + 1];
      }
    }
    return new Labels(n == out.length ? out : Arrays.copyOf(out, n));
  }

  /** All but the named labels. */
  public Labels drop(Collection<String> names) {
    String[] out = new String[pairs.length];
    int n = 0;
    for (int i = 0; i < pairs.length; i += 2) {
      if (!names.contains(pairs[i])) {
        out[n++] = pairs[i];
        out[n++] = pairs[i + 1];
      }
    }
    return new Labels(n == out.length ? out : Arrays.copyOf(out, n));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Labels l && (l == this || (hashCode() == l.hashCode() && Arrays.equals(pairs, l.pairs)));
  }

  @Override
  public int hashCode() {
    int h = hash;
    if (h == 0) {
      // Arrays.hashCode is linear in the strings' hashes, and label sets that differ in two numbered labels
      // (host7/job3 vs host8/job2) collide in bulk; mixing each element breaks that.
      for (String p : pairs) {
        int x = p.hashCode();
        x ^= x >>> 16;
        x *= 0x85ebca6b;
        x ^= x >>> 13;
        x *= 0xc2b2ae35;
        x ^= x >>> 16;
        h = h * 0x9E3779B1 + x;
      }
      hash = h == 0 ? 1 : h;
    }
    return hash;
  }

  @Override
  public int compareTo(Labels o) {
    int n = Math.min(pairs.length, o.pairs.length);
    for (int i = 0; i < n; i++) {
      int c = pairs[i].compareTo(o.pairs[i]);
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(pairs.length, o.pairs.length);
  }

  /** Prometheus's notation: {@code name{a="b"}}, or {@code {a="b"}} without a metric name. */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    String name = metricName();
    sb.append(name).append('{');
    boolean first = true;
    for (int i = 0; i < pairs.length; i += 2) {
      if (pairs[i].equals(METRIC_NAME)) {
        continue;
      }
      if (!first) {
        sb.append(", ");
      }
      first = false;
      sb.append(pairs[i]).append("=\"").append(escape(pairs[i + 1])).append('"');
    }
    sb.append('}');
    if (name.isEmpty() || !first) {
      return sb.toString();
    }
    return name;
  }

  private static String escape(String v) {
    return v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }

  public static boolean isValidLabelName(String s) {
    if (s.isEmpty()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean ok = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9');
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /** Mutable staging of a label set. */
  public static final class Builder {
    private final TreeMap<String, String> map = new TreeMap<>();

    private Builder(Labels base) {
      base.forEach(map::put);
    }

    public Builder set(String name, String value) {
      if (value == null || value.isEmpty()) {
        map.remove(name);
      } else {
        map.put(name, value);
      }
      return this;
    }

    public Builder del(String name) {
      map.remove(name);
      return this;
    }

    public Labels build() {
      String[] p = new String[map.size() * 2];
      int i = 0;
      for (Map.Entry<String, String> e : map.entrySet()) {
        p[i++] = e.getKey();
        p[i++] = e.getValue();
      }
      return new Labels(p);
    }
  }
}
