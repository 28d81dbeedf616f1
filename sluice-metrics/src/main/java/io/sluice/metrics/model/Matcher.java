package io.sluice.metrics.model;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;

/** One label matcher of a selector. Regular expressions are anchored at both ends, as in Prometheus. */
public record Matcher(Type type, String name, String value, Pattern pattern) {

  public enum Type {
    EQ("="), NEQ("!="), RE("=~"), NRE("!~");

    private final String op;

    Type(String op) {
      this.op = op;
    }

    public String op() {
      return op;
    }
  }

  public static Matcher of(Type type, String name, String value) {
    Pattern p = null;
    if (type == Type.RE || type == Type.NRE) {
      try {
        p = Pattern.compile("^(?:" + value + ")$", Pattern.DOTALL);
      } catch (PatternSyntaxException e) {
        throw new IllegalArgumentException("invalid regular expression " + quote(value) + ": " + e.getDescription(), e);
      }
    }
    return new Matcher(type, name, value, p);
  }

  public static Matcher eq(String name, String value) {
    return of(Type.EQ, name, value);
  }

  public boolean matches(String v) {
    return switch (type) {
      case EQ -> v.equals(value);
      case NEQ -> !v.equals(value);
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
    return o instanceof Matcher m && m.type == type && m.name.equals(name) && m.value.equals(value);
  }

  @Override
  public int hashCode() {
    return (type.hashCode() * 31 + name.hashCode()) * 31 + value.hashCode();
  }
}
