package io.sluice.app.dlq;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Left-aligned columns, as wide as their widest cell. */
final class TextTable {
  private final List<String[]> rows = new ArrayList<>();

  TextTable(String... header) {
    rows.add(header);
  }

  TextTable row(Object... cells) {
    rows.add(Arrays.stream(cells).map(c -> c == null ? "-" : c.toString()).toArray(String[]::new));
    return this;
  }

  void print(PrintStream out) {
    int columns = rows.get(0).length;
    int[] width = new int[columns];
    for (String[] row : rows) {
      for (int i = 0; i < columns; i++) {
        width[i] = Math.max(width[i], row[i].length());
      }
    }
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < columns; i++) {
        line.append(i == columns - 1 ? row[i] : String.format("%-" + width[i] + "s  ", row[i]));
      }
      out.println(line.toString().stripTrailing());
    }
  }

  static String shorten(String s, int max) {
    if (s == null) {
      return null;
    }
    String one = s.replaceAll("\\s+", " ").trim();
    return one.length() <= max ? one : one.substring(0, max - 1) + "…";
  }
}
