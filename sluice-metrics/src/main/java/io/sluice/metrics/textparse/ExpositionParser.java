package io.sluice.metrics.textparse;

import io.sluice.metrics.model.Labels;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Parses the Prometheus text exposition format (0.0.4) and OpenMetrics 1.0 text. The two differ in details that
 * matter: OpenMetrics timestamps are seconds (text: milliseconds), OpenMetrics requires a final {@code # EOF} and
 * allows exemplars after {@code #} on a sample line, which are ignored here.
 */
public final class ExpositionParser {

  /** One sample of an exposition; {@code timestamp} is null when the exposition gave none. */
  public record Entry(Labels labels, double value, Long timestamp) {}

  /** The exposition is malformed; the scrape fails as a whole, as in Prometheus. */
  public static final class ParseError extends Exception {
    public ParseError(String message) {
      super(message);
    }
  }

  private final String text;
  private final boolean openMetrics;
  private int pos;
  private int line = 1;

  private ExpositionParser(String text, boolean openMetrics) {
    this.text = text;
    this.openMetrics = openMetrics;
  }

  public static boolean isOpenMetrics(String contentType) {
    return contentType != null && contentType.toLowerCase(Locale.ROOT).startsWith("application/openmetrics-text");
  }

  public static List<Entry> parse(byte[] body, String contentType) throws ParseError {
    return parse(new String(body, StandardCharsets.UTF_8), isOpenMetrics(contentType));
  }

  public static List<Entry> parse(String text, boolean openMetrics) throws ParseError {
    return new ExpositionParser(text, openMetrics).run();
  }

  private ParseError error(String msg) {
    return new ParseError((openMetrics ? "openmetrics" : "text format") + " parsing error in line " + line + ": "
        + msg);
  }

  private List<Entry> run() throws ParseError {
    List<Entry> out = new ArrayList<>();
    boolean sawEof = false;
    while (pos < text.length()) {
      int end = text.indexOf('\n', pos);
      if (end < 0) {
        end = text.length();
      }
      String l = text.substring(pos, end);
      if (l.endsWith("\r")) {
        l = l.substring(0, l.length() - 1);
      }
      pos = end + 1;
      if (sawEof) {
        if (!l.isEmpty()) {
          throw error("unexpected data after # EOF");
        }
        line++;
        continue;
      }
      if (openMetrics && l.equals("# EOF")) {
        sawEof = true;
      } else if (l.startsWith("#")) {
        checkComment(l);
      } else if (!l.isBlank()) {
        out.add(sample(l));
      } else if (openMetrics) {
        throw error("unexpected empty line");
      }
      line++;
    }
    if (openMetrics && !sawEof) {
      throw error("data does not end with # EOF");
    }
    return out;
  }

  private void checkComment(String l) throws ParseError {
    String[] parts = l.substring(1).strip().split("\\s+", 3);
    if (parts.length >= 1 && parts[0].equals("TYPE")) {
      if (parts.length < 3) {
        throw error("invalid TYPE line");
      }
      String type = parts[2].strip().toLowerCase(Locale.ROOT);
      List<String> known = openMetrics
          ? List.of("counter", "gauge", "histogram", "gaugehistogram", "summary", "info", "stateset", "unknown")
          : List.of("counter", "gauge", "histogram", "summary", "untyped");
      if (!known.contains(type)) {
        throw error("invalid metric type \"" + parts[2] + "\"");
      }
    }
  }

  private Entry sample(String l) throws ParseError {
    int i = 0;
    int n = l.length();
    while (i < n && Character.isWhitespace(l.charAt(i))) {
      i++;
    }
    int nameStart = i;
    while (i < n && isNameChar(l.charAt(i), i == nameStart)) {
      i++;
    }
    if (i == nameStart) {
      throw error("invalid metric name in \"" + l + "\"");
    }
    Labels.Builder b = Labels.builder().set(Labels.METRIC_NAME, l.substring(nameStart, i));
    if (i < n && l.charAt(i) == '{') {
      i = labels(l, i + 1, b);
    }
    if (i >= n || (l.charAt(i) != ' ' && l.charAt(i) != '\t')) {
      throw error("expected value after metric in \"" + l + "\"");
    }
    while (i < n && (l.charAt(i) == ' ' || l.charAt(i) == '\t')) {
      i++;
    }
    int vs = i;
    while (i < n && l.charAt(i) != ' ' && l.charAt(i) != '\t') {
      i++;
    }
    double value = parseValue(l.substring(vs, i));
    while (i < n && (l.charAt(i) == ' ' || l.charAt(i) == '\t')) {
      i++;
    }
    Long ts = null;
    if (i < n && l.charAt(i) != '#') {
      int tsStart = i;
      while (i < n && l.charAt(i) != ' ' && l.charAt(i) != '\t') {
        i++;
      }
      String tsText = l.substring(tsStart, i);
      try {
        ts = openMetrics ? Math.round(Double.parseDouble(tsText) * 1000) : Long.parseLong(tsText);
      } catch (NumberFormatException e) {
        throw error("invalid timestamp \"" + tsText + "\"");
      }
      while (i < n && (l.charAt(i) == ' ' || l.charAt(i) == '\t')) {
        i++;
      }
    }
    if (i < n) {
      // Only an OpenMetrics exemplar may follow.
      if (!(openMetrics && l.charAt(i) == '#')) {
        throw error("unexpected text after sample: \"" + l.substring(i) + "\"");
      }
    }
    return new Entry(b.build(), value, ts);
  }

  private static boolean isNameChar(char c, boolean first) {
    return c == '_' || c == ':' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (!first && c >= '0' && c <= '9');
  }

  private int labels(String l, int i, Labels.Builder b) throws ParseError {
    int n = l.length();
    Set<String> seen = new HashSet<>();
    while (true) {
      while (i < n && l.charAt(i) == ' ') {
        i++;
      }
      if (i < n && l.charAt(i) == '}') {
        return i + 1;
      }
      int ns = i;
      while (i < n && isNameChar(l.charAt(i), i == ns) && l.charAt(i) != ':') {
        i++;
      }
      if (ns == i) {
        throw error("invalid label name in \"" + l + "\"");
      }
      String name = l.substring(ns, i);
      while (i < n && l.charAt(i) == ' ') {
        i++;
      }
      if (i >= n || l.charAt(i) != '=') {
        throw error("expected '=' after label name \"" + name + "\"");
      }
      i++;
      while (i < n && l.charAt(i) == ' ') {
        i++;
      }
      if (i >= n || l.charAt(i) != '"') {
        throw error("expected quoted label value for \"" + name + "\"");
      }
      i++;
      StringBuilder v = new StringBuilder();
      while (true) {
        if (i >= n) {
          throw error("unterminated label value for \"" + name + "\"");
        }
        char c = l.charAt(i++);
        if (c == '"') {
          break;
        }
        if (c == '\\' && i < n) {
          char e = l.charAt(i++);
          switch (e) {
            case 'n' -> v.append('\n');
            case '\\' -> v.append('\\');
            case '"' -> v.append('"');
            default -> {
              v.append('\\').append(e);
            }
          }
        } else {
          v.append(c);
        }
      }
      if (!seen.add(name)) {
        throw error("duplicate label name \"" + name + "\"");
      }
      b.set(name, v.toString());
      while (i < n && l.charAt(i) == ' ') {
        i++;
      }
      if (i < n && l.charAt(i) == ',') {
        i++;
        continue;
      }
      if (i < n && l.charAt(i) == '}') {
        return i + 1;
      }
      throw error("expected ',' or '}' in labels of \"" + l + "\"");
    }
  }

  private double parseValue(String s) throws ParseError {
    switch (s) {
      case "+Inf", "Inf", "+inf", "inf":
        return Double.POSITIVE_INFINITY;
      case "-Inf", "-inf":
        return Double.NEGATIVE_INFINITY;
      case "NaN", "nan":
        return Double.NaN;
      default:
        try {
          if (!s.matches("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?")) {
            throw new NumberFormatException();
          }
          return Double.parseDouble(s);
        } catch (NumberFormatException e) {
          throw error("invalid value \"" + s + "\"");
        }
    }
  }
}
