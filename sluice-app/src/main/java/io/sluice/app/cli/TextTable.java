package io.sluice.app.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The one table printer of the CLI: left-aligned columns, as wide as their widest cell, two spaces apart, no trailing
 * blanks; a missing cell shows as {@code -}.
 */
public final class TextTable {
  private final List<String[]> rows = new ArrayList<>();
  private String indent = "";

  public TextTable(String... header) {
    rows.add(header);
  }

  public TextTable(List<String> header) {
    this(header.toArray(String[]::new));
  }

  /** Printed before every line, for a table nested under a heading. */
  public TextTable indent(String indent) {
    this.indent = indent;
    return this;
  }

  public TextTable row(Object... cells) {
    rows.add(Arrays.stream(cells).map(c -> c == null ? "-" : c.toString()).toArray(String[]::new));
    return this;
  }

  public TextTable rows(List<? extends List<?>> cells) {
    cells.forEach(r -> row(r.toArray()));
    return this;
  }

  /** The table, one line per row, each ending in a newline. */
  public String render() {
    int columns = rows.get(0).length;
    int[] width = new int[columns];
    for (String[] row : rows) {
      for (int i = 0; i < columns; i++) {
        width[i] = Math.max(width[i], row[i].length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder(indent);
      for (int i = 0; i < columns; i++) {
        line.append(row[i]);
        if (i < columns - 1) {
          line.append(" ".repeat(width[i] - row[i].length() + 2));
        }
      }
      out.append(line.toString().stripTrailing()).append('\n');
    }
    return out.toString();
  }

  public void print(PrintStream out) {
    out.print(render());
  }

  /** One line of at most {@code max} characters, whitespace runs folded, an ellipsis where it was cut. */
  public static String shorten(String s, int max) {
    if (s == null) {
      return null;
    }
    String one = s.replaceAll("\\s+", " ").trim();
    return one.length() <= max ? one : one.substring(0, max - 1) + "…";
  }
}
