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
    int[] width = widths(rows);
    StringBuilder out = new StringBuilder();
    for (String[] row : rows) {
      out.append(line(row, width)).append('\n');
    }
    return out.toString();
  }

  private static int[] widths(List<String[]> rows) {
    int columns = rows.get(0).length;
    int[] width = new int[columns];
    for (String[] row : rows) {
      for (int i = 0; i < columns; i++) {
        width[i] = Math.max(width[i], row[i].length());
      }
    }
    return width;
  }

  private String line(String[] row, int[] width) {
    StringBuilder line = new StringBuilder(indent);
    for (int i = 0; i < width.length; i++) {
      line.append(row[i]);
      if (i < width.length - 1) {
        line.append(" ".repeat(Math.max(0, width[i] - row[i].length()) + 2));
      }
    }
    return line.toString().stripTrailing();
  }

  /**
   * This table printed as its rows come, for a table of any length: the first {@code page} rows are held to size the
   * columns, then printed, and every later row is printed at once in those widths (a wider cell shifts the rest of its
   * line). A table of at most {@code page} rows prints exactly as {@link #print} does, at {@link Streaming#finish}.
   */
  public Streaming streaming(PrintStream out, int page) {
    return new Streaming(out, page);
  }

  /** See {@link #streaming}. */
  public final class Streaming {
    private final PrintStream out;
    private final int page;
    private int[] width;

    private Streaming(PrintStream out, int page) {
      this.out = out;
      this.page = page;
    }

    public void row(Object... cells) {
      TextTable.this.row(cells);
      if (width != null) {
        out.print(line(rows.remove(rows.size() - 1), width) + "\n");
      } else if (rows.size() > page) {
        width = widths(rows);
        rows.forEach(r -> out.print(line(r, width) + "\n"));
        rows.clear();
      }
    }

    /** Prints what is still held. */
    public void finish() {
      if (width == null) {
        print(out);
        rows.subList(1, rows.size()).clear();
      }
    }
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
