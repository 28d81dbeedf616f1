package io.sluice.console.schemas;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.util.ArrayList;
import java.util.List;

/**
 * Two versions of a schema side by side, line against line: the lines both have, those only the left has (removed),
 * those only the right has (added), and a removed line beside the added one that took its place (changed). The
 * lines are those of each schema pretty-printed the same way (JSON indented, a {@code .proto} as written), so that a
 * schema the registry stores on one line still compares field by field.
 */
public final class SideBySide {
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  /** Past this many lines a side, the longest common run is not looked for: lines are paired as they come. */
  static final int MAX_LINES = 3_000;

  private SideBySide() {}

  public enum Kind { SAME, REMOVED, ADDED, CHANGED }

  /** One row: the left line (null on an added row), the right line (null on a removed row), their numbers. */
  public record Row(Kind kind, Integer leftNumber, String left, Integer rightNumber, String right) {}

  /** The schema's text as it is compared and shown: JSON indented two spaces, anything else as given. */
  public static String pretty(String schema) {
    String t = schema.strip();
    if (t.startsWith("{") || t.startsWith("[") || t.startsWith("\"")) {
      try {
        JsonNode n = JSON.readTree(t);
        return JSON.writeValueAsString(n);
      } catch (JsonProcessingException e) {
        return schema;
      }
    }
    return schema;
  }

  /** The rows of {@code left} against {@code right}, line by line. */
  public static List<Row> diff(String left, String right) {
    List<String> a = left.lines().toList();
    List<String> b = right.lines().toList();
    List<Row> rows = new ArrayList<>();
    if (a.size() > MAX_LINES || b.size() > MAX_LINES) {
      for (int i = 0; i < Math.max(a.size(), b.size()); i++) {
        String l = i < a.size() ? a.get(i) : null;
        String r = i < b.size() ? b.get(i) : null;
        Kind k = l == null ? Kind.ADDED : r == null ? Kind.REMOVED : l.equals(r) ? Kind.SAME : Kind.CHANGED;
        rows.add(new Row(k, l == null ? null : i + 1, l, r == null ? null : i + 1, r));
      }
      return rows;
    }
    // Longest common subsequence of lines, suffix lengths: lcs[i][j] for a[i..] against b[j..].
    int[][] lcs = new int[a.size() + 1][b.size() + 1];
    for (int i = a.size() - 1; i >= 0; i--) {
      for (int j = b.size() - 1; j >= 0; j--) {
        lcs[i][j] = a.get(i).equals(b.get(j)) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
      }
    }
    int i = 0;
    int j = 0;
    List<Integer> removed = new ArrayList<>();
    List<Integer> added = new ArrayList<>();
    while (i < a.size() || j < b.size()) {
      if (i < a.size() && j < b.size() && a.get(i).equals(b.get(j))) {
        flush(rows, a, b, removed, added);
        rows.add(new Row(Kind.SAME, i + 1, a.get(i), j + 1, b.get(j)));
        i++;
        j++;
      } else if (j < b.size() && (i == a.size() || lcs[i][j + 1] >= lcs[i + 1][j])) {
        added.add(j++);
      } else {
        removed.add(i++);
      }
    }
    flush(rows, a, b, removed, added);
    return rows;
  }

  /** A run of removed and added lines between two common ones: paired as changed rows, the rest alone. */
  private static void flush(List<Row> rows, List<String> a, List<String> b, List<Integer> removed,
      List<Integer> added) {
    int n = Math.max(removed.size(), added.size());
    for (int k = 0; k < n; k++) {
      Integer l = k < removed.size() ? removed.get(k) : null;
      Integer r = k < added.size() ? added.get(k) : null;
      Kind kind = l == null ? Kind.ADDED : r == null ? Kind.REMOVED : Kind.CHANGED;
      rows.add(new Row(kind, l == null ? null : l + 1, l == null ? null : a.get(l), r == null ? null : r + 1,
          r == null ? null : b.get(r)));
    }
    removed.clear();
    added.clear();
  }
}
