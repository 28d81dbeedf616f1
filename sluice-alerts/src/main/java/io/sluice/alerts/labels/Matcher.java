package io.sluice.alerts.labels;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import java.util.Map;
import java.util.Objects;

/**
 * One label matcher as Alertmanager defines it. Regular expressions are fully anchored, as in Alertmanager, and a
 * missing label matches as the empty string. The metrics server's selector matcher reads alike (same arguments, same
 * constants) but is its own class, so that neither server depends on the other.
 */
public record Matcher(String name, Type type, String value, Pattern pattern) {

  public enum Type {
    EQ("="), NE("!="), RE("=~"), NRE("!~");

    private final String op;

    Type(String op) {
      this.op = op;
    }

    public String op() {
      return op;
    }

    public boolean isRegex() {
      return this == RE || this == NRE;
    }

    public boolean isEqual() {
      return this == EQ || this == RE;
    }
  }

  public static Matcher of(String name, Type type, String value) {
    Pattern p = null;
    if (type.isRegex()) {
      try {
        p = Pattern.compile("^(?:" + value + ")$", Pattern.DOTALL);
      } catch (PatternSyntaxException e) {
        throw new IllegalArgumentException("invalid regular expression \"" + value + "\": " + e.getDescription());
      }
    }
    return new Matcher(name, type, value, p);
  }

  public static Matcher eq(String name, String value) {
    return of(name, Type.EQ, value);
  }

  public boolean matches(String v) {
    String s = v == null ? "" : v;
    return switch (type) {
      case EQ -> s.equals(value);
      case NE -> !s.equals(value);
      case RE -> regexMatches(s);
      case NRE -> !regexMatches(s);
    };
  }

  /** The two expressions routes use most, {@code .+} and {@code .*}, without running the regex engine. */
  private boolean regexMatches(String s) {
    return switch (value) {
      case ".*" -> true;
      case ".+" -> !s.isEmpty();
      default -> pattern.matcher(s).matches();
    };
  }

  public boolean matches(Map<String, String> labels) {
    return matches(labels.get(name));
  }

  @Override
  public String toString() {
    return name + type.op + "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Matcher m && m.name.equals(name) && m.type == type && m.value.equals(value);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, type, value);
  }
}
