package io.sluice.metrics.model;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;

/**
 * One label matcher of a selector. Regular expressions are anchored at both ends, as in Prometheus. It reads as the
 * alert router's matcher does ({@code name, type, value}; {@code EQ}, {@code NE}, {@code RE}, {@code NRE}), a class
 * of its own so that neither server depends on the other.
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
  }

  public static Matcher of(String name, Type type, String value) {
    Pattern p = null;
    if (type.isRegex()) {
      try {
        p = Pattern.compile("^(?:" + value + ")$");
      } catch (PatternSyntaxException e) {
        // Go's regexp error, as Prometheus reports it: error parsing regexp: <what>: `<where>`.
        throw new IllegalArgumentException(e.getMessage(), e);
      }
    }
    return new Matcher(name, type, value, p);
  }

  public static Matcher eq(String name, String value) {
    return of(name, Type.EQ, value);
  }

  public boolean matches(String v) {
    return switch (type) {
      case EQ -> v.equals(value);
      case NE -> !v.equals(value);
      case RE -> pattern.matcher(v).matches();
      case NRE -> !pattern.matcher(v).matches();
    };
  }

  public boolean matches(Labels labels) {
    return matches(labels.get(name));
  }

  public boolean matchesEmpty() {
    return matches("");
  }

  @Override
  public String toString() {
    return name + type.op + quote(value);
  }

  private static String quote(String v) {
    return "\"" + v.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Matcher m && m.name.equals(name) && m.type == type && m.value.equals(value);
  }

  @Override
  public int hashCode() {
    return (type.hashCode() * 31 + name.hashCode()) * 31 + value.hashCode();
  }
}
