package io.sluice.ops.reconcile;

import io.sluice.ops.reconcile.ColumnType.Kind;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * What is compared: the key and value columns present on both sides (matched by name, case-insensitively, since
 * PostgreSQL folds unquoted names to lower case and MariaDB keeps them), each with the one canonical form both sides
 * use, and the precision casts that form implies.
 */
record Comparison(List<Column> keys, List<Column> values, List<String> casts, List<String> skipped,
    boolean nativeHash) {

  /** One column on both sides. */
  record Column(String name, ColumnType source, ColumnType sink, Canon canon) {}

  /** How the checksums are computed, for reports. */
  String checksumMethod() {
    return nativeHash
        ? "sum of hash_record_extended of the row (both sides PostgreSQL with identical column types)"
        : "sum of the first 64 bits of md5(canonical row text)";
  }

  /** Whether the key is one integer column, so segments can be key ranges read through the primary-key index. */
  boolean integerKey() {
    return keys.size() == 1 && keys.get(0).source().kind() == Kind.INTEGER && keys.get(0).sink().kind() == Kind.INTEGER;
  }

  List<Column> all() {
    List<Column> all = new ArrayList<>(keys);
    all.addAll(values);
    return all;
  }

  static Comparison plan(List<ColumnType> source, List<ColumnType> sink, List<String> key, List<String> only,
      List<String> exclude, Dialect sourceDialect, Dialect sinkDialect) {
    Map<String, ColumnType> sinkByName = new LinkedHashMap<>();
    sink.forEach(c -> sinkByName.put(fold(c.name()), c));
    Set<String> keyNames = key.stream().map(Comparison::fold).collect(Collectors.toCollection(TreeSet::new));
    Set<String> onlyNames = only.stream().map(Comparison::fold).collect(Collectors.toSet());
    Set<String> excluded = exclude.stream().map(Comparison::fold).collect(Collectors.toSet());
    List<String> casts = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    Map<String, Column> keys = new LinkedHashMap<>();
    List<Column> values = new ArrayList<>();
    for (ColumnType s : source) {
      String name = fold(s.name());
      boolean isKey = keyNames.contains(name);
      if (!isKey && (excluded.contains(name) || (!onlyNames.isEmpty() && !onlyNames.contains(name)))) {
        continue;
      }
      ColumnType k = sinkByName.get(name);
      if (k == null) {
        if (isKey) {
          throw new IllegalArgumentException("key column " + s.name() + " is not in the sink table");
        }
        skipped.add(s.name() + " (not in the sink table)");
        continue;
      }
      Column column = new Column(s.name(), s, k, canon(s, k, sourceDialect, sinkDialect, casts));
      if (isKey) {
        keys.put(name, column);
      } else {
        values.add(column);
      }
    }
    List<Column> orderedKeys = new ArrayList<>();
    for (String k : key) {
      Column c = keys.get(fold(k));
      if (c == null) {
        throw new IllegalArgumentException("key column " + k + " is not in the source table");
      }
      orderedKeys.add(c);
    }
    for (ColumnType k : sink) {
      String name = fold(k.name());
      if (source.stream().noneMatch(s -> fold(s.name()).equals(name)) && !excluded.contains(name)
          && (onlyNames.isEmpty() || onlyNames.contains(name))) {
        skipped.add(k.name() + " (only in the sink table)");
      }
    }
    List<Column> all = new ArrayList<>(orderedKeys);
    all.addAll(values);
    boolean nativeHash = sourceDialect.getClass() == sinkDialect.getClass() && casts.isEmpty()
        && sourceDialect.nativeHash(List.of("x")).isPresent()
        && all.stream().allMatch(c -> c.source().declared().equals(c.sink().declared())
            && c.source().scale() == c.sink().scale() && c.source().precision() == c.sink().precision()
            && c.source().kind() != Kind.OTHER);
    return new Comparison(List.copyOf(orderedKeys), List.copyOf(values), List.copyOf(casts), List.copyOf(skipped),
        nativeHash);
  }

  static String fold(String name) {
    return name.toLowerCase(Locale.ROOT);
  }

  /** The canonical form for a pair of declared types; records a line in {@code casts} when precision is lost. */
  private static Canon canon(ColumnType s, ColumnType k, Dialect sd, Dialect kd, List<String> casts) {
    Kind a = s.kind();
    Kind b = k.kind();
    if (integral(a) && integral(b)) {
      return new Canon.Integer();
    }
    if (s.isNumber() && k.isNumber()) {
      if (a == Kind.FLOAT && b == Kind.FLOAT && s.declared().equals(k.declared()) && sd.engine().equals(kd.engine())) {
        return new Canon.Text();
      }
      int scale = commonScale(s, k);
      if (a == Kind.FLOAT || b == Kind.FLOAT) {
        scale = scale < 0 ? 6 : Math.min(scale, 6);
        casts.add(s.name() + ": floating point compared at " + scale + " decimal places");
      } else if (s.scale() != k.scale() && s.scale() >= 0 && k.scale() >= 0) {
        casts.add(s.name() + ": numeric scale " + s.scale() + " (source) vs " + k.scale()
            + " (sink): both rounded to " + scale + " decimal places");
      } else if (s.scale() != k.scale()) {
        casts.add(s.name() + ": compared at the declared scale " + scale + " of the "
            + (s.scale() >= 0 ? "source" : "sink"));
      }
      boolean rescale = s.scale() != k.scale() || a != b;
      return new Canon.Decimal(scale, rescale);
    }
    if (s.isTemporal() && k.isTemporal()) {
      int digits = Math.min(s.precision(), k.precision());
      boolean sourceCoarser = s.precision() < k.precision();
      boolean round = s.precision() != k.precision() && (sourceCoarser ? sd : kd).roundsFractionalSeconds();
      if (s.precision() != k.precision()) {
        casts.add(s.name() + ": timestamps compared at " + digits + " fractional digits (source " + s.precision()
            + ", sink " + k.precision() + "), the finer side " + (round ? "rounded" : "truncated") + " as "
            + (sourceCoarser ? sd : kd).engine() + " stores them");
      }
      if (a != b) {
        casts.add(s.name() + ": " + s.declared() + " vs " + k.declared() + ": instants compared in UTC");
      }
      return new Canon.Timestamp(digits, round);
    }
    if (a == Kind.TIME && b == Kind.TIME) {
      int digits = Math.min(s.precision(), k.precision());
      if (s.precision() != k.precision()) {
        casts.add(s.name() + ": times compared at " + digits + " fractional digits (truncated)");
      }
      return new Canon.Time(digits);
    }
    if (a == Kind.DATE && b == Kind.DATE) {
      return new Canon.Date();
    }
    if (a == Kind.BYTES && b == Kind.BYTES) {
      return new Canon.Bytes();
    }
    if ((a == Kind.UUID || b == Kind.UUID) && (a == Kind.UUID || a == Kind.TEXT) && (b == Kind.UUID || b == Kind.TEXT)) {
      if (a != b) {
        casts.add(s.name() + ": " + s.declared() + " vs " + k.declared() + ": compared as lowercase UUID text");
      }
      return new Canon.Uuid();
    }
    if (a != b || a == Kind.OTHER) {
      casts.add(s.name() + ": " + s.declared() + " vs " + k.declared() + ": compared as text");
    }
    return new Canon.Text();
  }

  private static boolean integral(Kind kind) {
    return kind == Kind.INTEGER || kind == Kind.BOOLEAN;
  }

  private static int commonScale(ColumnType s, ColumnType k) {
    int a = s.kind() == Kind.INTEGER || s.kind() == Kind.BOOLEAN ? 0 : s.scale();
    int b = k.kind() == Kind.INTEGER || k.kind() == Kind.BOOLEAN ? 0 : k.scale();
    if (s.kind() == Kind.FLOAT) {
      a = -1;
    }
    if (k.kind() == Kind.FLOAT) {
      b = -1;
    }
    if (a < 0) {
      return b;
    }
    if (b < 0) {
      return a;
    }
    return Math.min(a, b);
  }
}
