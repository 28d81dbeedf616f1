package io.sluice.alerts.labels;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/** Parsing of matcher strings ({@code {a="b", c=~"d.*"}} or {@code a=b}) and matching of matcher lists. */
public final class Matchers {

  private Matchers() {}

  /** {@code [a-zA-Z_][a-zA-Z0-9_]*}, checked by hand: it runs for every label of every alert received. */
  public static boolean validLabelName(String name) {
    if (name == null || name.isEmpty()) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (i > 0 && c >= '0' && c <= '9');
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  public static boolean matchesAll(List<Matcher> matchers, Map<String, String> labels) {
    for (Matcher m : matchers) {
      if (!m.matches(labels)) {
        return false;
      }
    }
    return true;
  }

  /** Parses one matcher such as {@code foo="bar"}, {@code foo=~bar.*} or {@code foo!="a,b"}. */
  public static Matcher parseOne(String s) {
    List<Matcher> all = parse(s);
    if (all.size() != 1) {
      throw new IllegalArgumentException("expected exactly one matcher in \"" + s + "\"");
    }
    return all.get(0);
  }

  /** Parses a comma separated list of matchers, optionally enclosed in braces. */
  public static List<Matcher> parse(String input) {
    String s = input.trim();
    if (s.startsWith("{")) {
      if (!s.endsWith("}")) {
        throw new IllegalArgumentException("missing closing '}' in \"" + input + "\"");
      }
      s = s.substring(1, s.length() - 1);
    }
    List<Matcher> out = new ArrayList<>();
    int i = 0;
    int n = s.length();
    while (true) {
      i = skipSpace(s, i);
      if (i >= n) {
        break;
      }
      int nameStart = i;
      while (i < n && (Character.isLetterOrDigit(s.charAt(i)) || s.charAt(i) == '_' || s.charAt(i) == '.')) {
        i++;
      }
      String name = s.substring(nameStart, i);
      if (name.isEmpty()) {
        throw new IllegalArgumentException("bad matcher format: \"" + input + "\"");
      }
      i = skipSpace(s, i);
      Matcher.Type type;
      if (s.startsWith("=~", i)) {
        type = Matcher.Type.RE;
        i += 2;
      } else if (s.startsWith("!~", i)) {
        type = Matcher.Type.NRE;
        i += 2;
      } else if (s.startsWith("!=", i)) {
        type = Matcher.Type.NE;
        i += 2;
      } else if (s.startsWith("=", i)) {
        type = Matcher.Type.EQ;
        i += 1;
      } else {
        throw new IllegalArgumentException("bad matcher format: \"" + input + "\"");
      }
      i = skipSpace(s, i);
      StringBuilder value = new StringBuilder();
      if (i < n && s.charAt(i) == '"') {
        i++;
        boolean closed = false;
        while (i < n) {
          char c = s.charAt(i);
          if (c == '\\' && i + 1 < n) {
            char e = s.charAt(i + 1);
            value.append(e == 'n' ? '\n' : e);
            i += 2;
          } else if (c == '"') {
            closed = true;
            i++;
            break;
          } else {
            value.append(c);
            i++;
          }
        }
        if (!closed) {
          throw new IllegalArgumentException("unterminated quoted string in \"" + input + "\"");
        }
      } else {
        while (i < n && s.charAt(i) != ',') {
          value.append(s.charAt(i));
          i++;
        }
        String v = value.toString().trim();
        value.setLength(0);
        value.append(v);
      }
      out.add(Matcher.of(name, type, value.toString()));
      i = skipSpace(s, i);
      if (i < n) {
        if (s.charAt(i) != ',') {
          throw new IllegalArgumentException("expected ',' after matcher in \"" + input + "\"");
        }
        i++;
      }
    }
    return out;
  }

  private static int skipSpace(String s, int i) {
    while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
      i++;
    }
    return i;
  }

  /** {@code {a="b", c="d"}} with labels sorted by name, as Alertmanager prints label sets. */
  public static String labelSetString(Map<String, String> labels) {
    StringBuilder b = new StringBuilder("{");
    if (labels instanceof LabelMap l) {
      for (int i = 0; i < l.size(); i++) {
        if (i > 0) {
          b.append(", ");
        }
        b.append(l.name(i)).append("=\"");
        escape(b, l.value(i));
        b.append('"');
      }
      return b.append('}').toString();
    }
    boolean first = true;
    Map<String, String> sorted = labels instanceof LabelMap || labels instanceof SortedMap
        ? labels : new TreeMap<>(labels);
    for (var e : sorted.entrySet()) {
      if (!first) {
        b.append(", ");
      }
      first = false;
      b.append(e.getKey()).append("=\"");
      escape(b, e.getValue());
      b.append('"');
    }
    return b.append('}').toString();
  }

  private static void escape(StringBuilder b, String v) {
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (c == '\\' || c == '"') {
        b.append('\\');
      }
      b.append(c);
    }
  }

  /** Fingerprint of a label set: FNV-1a 64 over sorted name/value pairs, separated as Prometheus separates them. */
  public static long fingerprint(Map<String, String> labels) {
    long h = 0xcbf29ce484222325L;
    if (labels instanceof LabelMap l) {
      for (int i = 0; i < l.size(); i++) {
        h = fnvByte(fnv(h, l.name(i)), (byte) 0xff);
        h = fnvByte(fnv(h, l.value(i)), (byte) 0xff);
      }
      return h;
    }
    Map<String, String> sorted = labels instanceof LabelMap || labels instanceof SortedMap
        ? labels : new TreeMap<>(labels);
    for (var e : sorted.entrySet()) {
      h = fnv(h, e.getKey());
      h = fnvByte(h, (byte) 0xff);
      h = fnv(h, e.getValue());
      h = fnvByte(h, (byte) 0xff);
    }
    return h;
  }

  /** One pass for ASCII, the common case; a non-ASCII string is hashed again from its UTF-8 bytes. */
  private static long fnv(long h, String s) {
    long out = h;
    for (int i = 0, n = s.length(); i < n; i++) {
      char c = s.charAt(i);
      if (c >= 0x80) {
        // Non-ASCII: hash the UTF-8 bytes, as Prometheus does.
        out = h;
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
          out = fnvByte(out, b);
        }
        return out;
      }
      out = (out ^ c) * 0x100000001b3L;
    }
    return out;
  }

  private static long fnvByte(long h, byte b) {
    h ^= (b & 0xff);
    return h * 0x100000001b3L;
  }

  public static String fingerprintHex(long fp) {
    return String.format("%016x", fp);
  }
}
