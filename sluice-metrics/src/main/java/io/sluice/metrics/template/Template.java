package io.sluice.metrics.template;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A parsed Go {@code text/template}: text, {@code {{ pipelines }}} with {@code |}, variables, fields, literals and
 * function calls, {@code if}/{@code else if}/{@code else}, {@code range}, {@code with}, comments and the
 * {@code {{-}} / {@code -}}} trim markers. Values are Java objects: {@code String}, {@code Double} (float64),
 * {@code Long} (int), {@code Boolean}, {@code Map<String, ?>} (structs and maps alike), {@code List<?>}.
 *
 * <p>As in Go, a missing map key prints {@code <no value>} and an unknown function is a parse error.
 */
public final class Template {
  private final List<Node> nodes;
  private final Map<String, TemplateFunction> functions;

  private Template(List<Node> nodes, Map<String, TemplateFunction> functions) {
    this.nodes = nodes;
    this.functions = functions;
  }

  /** A template function; the piped value, if any, is the last argument. */
  @FunctionalInterface
  public interface TemplateFunction {
    Object call(List<Object> args);
  }

  /** A template that does not parse or fails while executing; the message is Go's where it matters. */
  public static final class TemplateException extends RuntimeException {
    public TemplateException(String message) {
      super(message);
    }
  }

  /** What a missing map key yields: prints {@code <no value>}, is false in {@code if}. */
  static final Object NO_VALUE = new Object() {
    @Override
    public String toString() {
      return "<no value>";
    }
  };

  public static Template parse(String name, String text, Map<String, TemplateFunction> functions) {
    Map<String, TemplateFunction> all = new HashMap<>(Builtins.ALL);
    all.putAll(functions);
    TemplateParser p = new TemplateParser(name, text, all.keySet());
    return new Template(p.parse(), all);
  }

  /** The same parsed template calling {@code all} (builtins included) instead: no copy, no re-parse. */
  Template bind(Map<String, TemplateFunction> all) {
    return new Template(nodes, all);
  }

  public String execute(Object data) {
    StringBuilder out = new StringBuilder();
    Scope scope = new Scope(null);
    scope.vars.put("$", data);
    run(nodes, data, scope, out);
    return out.toString();
  }

  // ---- AST

  sealed interface Node {}

  record Text(String text) implements Node {}

  record Action(Pipeline pipe) implements Node {}

  /** if, with and range: {@code elseNodes} may be empty. */
  record Branch(String kind, Pipeline pipe, List<Node> body, List<Node> elseNodes) implements Node {}

  record Pipeline(List<String> decl, boolean assign, List<List<Operand>> commands) {}

  sealed interface Operand {}

  record Literal(Object value) implements Operand {}

  record Dot() implements Operand {}

  /** {@code .A.B} on dot. */
  record Field(List<String> chain) implements Operand {}

  /** {@code $x.A.B}. */
  record Variable(String name, List<String> chain) implements Operand {}

  record Identifier(String name) implements Operand {}

  record Sub(Pipeline pipe, List<String> chain) implements Operand {}

  // ---- execution

  private static final class Scope {
    final Scope parent;
    final Map<String, Object> vars = new HashMap<>();

    Scope(Scope parent) {
      this.parent = parent;
    }

    Object get(String name) {
      for (Scope s = this; s != null; s = s.parent) {
        if (s.vars.containsKey(name)) {
          return s.vars.get(name);
        }
      }
      throw new TemplateException("undefined variable: " + name);
    }

    void set(String name, Object v) {
      for (Scope s = this; s != null; s = s.parent) {
        if (s.vars.containsKey(name)) {
          s.vars.put(name, v);
          return;
        }
      }
      throw new TemplateException("undefined variable: " + name);
    }
  }

  private void run(List<Node> list, Object dot, Scope scope, StringBuilder out) {
    for (Node n : list) {
      if (n instanceof Text t) {
        out.append(t.text());
      } else if (n instanceof Action a) {
        Object v = pipeline(a.pipe(), dot, scope);
        if (a.pipe().decl().isEmpty()) {
          out.append(GoFormat.print(v));
        }
      } else if (n instanceof Branch b) {
        branch(b, dot, scope, out);
      }
    }
  }

  private void branch(Branch b, Object dot, Scope outer, StringBuilder out) {
    Scope scope = new Scope(outer);
    switch (b.kind()) {
      case "if" -> {
        Object v = pipeline(b.pipe(), dot, scope);
        run(truth(v) ? b.body() : b.elseNodes(), dot, scope, out);
      }
      case "with" -> {
        Object v = pipeline(b.pipe(), dot, scope);
        if (truth(v)) {
          run(b.body(), v, scope, out);
        } else {
          run(b.elseNodes(), dot, scope, out);
        }
      }
      default -> { // range
        Pipeline p = b.pipe();
        Object v = pipeline(new Pipeline(List.of(), false, p.commands()), dot, scope);
        List<Object[]> items = new ArrayList<>();
        if (v instanceof Map<?, ?> m) {
          for (Map.Entry<?, ?> e : new TreeMap<>(m).entrySet()) {
            items.add(new Object[] {e.getKey(), e.getValue()});
          }
        } else if (v instanceof List<?> l) {
          for (int i = 0; i < l.size(); i++) {
            items.add(new Object[] {(long) i, l.get(i)});
          }
        } else if (v == null || v == NO_VALUE) {
          // nothing to range over
        } else if (v instanceof Long n) {
          for (long i = 0; i < n; i++) {
            items.add(new Object[] {i, i});
          }
        } else {
          throw new TemplateException("range can't iterate over " + GoFormat.print(v));
        }
        if (items.isEmpty()) {
          run(b.elseNodes(), dot, scope, out);
          return;
        }
        for (Object[] kv : items) {
          Scope inner = new Scope(scope);
          if (p.decl().size() == 1) {
            inner.vars.put(p.decl().get(0), kv[1]);
          } else if (p.decl().size() == 2) {
            inner.vars.put(p.decl().get(0), kv[0]);
            inner.vars.put(p.decl().get(1), kv[1]);
          }
          run(b.body(), kv[1], inner, out);
        }
      }
    }
  }

  private Object pipeline(Pipeline p, Object dot, Scope scope) {
    Object v = null;
    boolean piped = false;
    for (List<Operand> cmd : p.commands()) {
      v = command(cmd, dot, scope, piped, v);
      piped = true;
    }
    if (p.decl().size() == 1) {
      if (p.assign()) {
        scope.set(p.decl().get(0), v);
      } else {
        scope.vars.put(p.decl().get(0), v);
      }
    }
    return v;
  }

  private Object command(List<Operand> cmd, Object dot, Scope scope, boolean piped, Object final_) {
    Operand first = cmd.get(0);
    if (first instanceof Identifier id) {
      List<Object> args = new ArrayList<>();
      for (int i = 1; i < cmd.size(); i++) {
        args.add(operand(cmd.get(i), dot, scope));
      }
      if (piped) {
        args.add(final_);
      }
      TemplateFunction f = functions.get(id.name());
      try {
        return f.call(args);
      } catch (TemplateException e) {
        throw new TemplateException("error calling " + id.name() + ": " + e.getMessage());
      } catch (RuntimeException e) {
        throw new TemplateException("error calling " + id.name() + ": " + e.getMessage());
      }
    }
    if (cmd.size() > 1 || piped) {
      throw new TemplateException("can't give argument to non-function " + describe(first));
    }
    return operand(first, dot, scope);
  }

  private static String describe(Operand o) {
    if (o instanceof Field f) {
      return "." + String.join(".", f.chain());
    }
    if (o instanceof Variable v) {
      return v.name() + (v.chain().isEmpty() ? "" : "." + String.join(".", v.chain()));
    }
    if (o instanceof Literal l) {
      return GoFormat.print(l.value());
    }
    return o.toString();
  }

  private Object operand(Operand o, Object dot, Scope scope) {
    if (o instanceof Literal l) {
      return l.value();
    }
    if (o instanceof Dot) {
      return dot;
    }
    if (o instanceof Field f) {
      return fields(dot, f.chain());
    }
    if (o instanceof Variable v) {
      return fields(scope.get(v.name()), v.chain());
    }
    if (o instanceof Sub s) {
      return fields(pipeline(s.pipe(), dot, scope), s.chain());
    }
    Identifier id = (Identifier) o;
    return functions.get(id.name()).call(Collections.emptyList());
  }

  private static Object fields(Object v, List<String> chain) {
    for (String name : chain) {
      if (v instanceof Map<?, ?> m) {
        // Prometheus expands with missingkey=zero: a missing label is "", a missing field of a struct-like map
        // prints <no value>.
        v = m.containsKey(name) ? m.get(name) : stringMap(m) ? "" : NO_VALUE;
      } else if (v == null || v == NO_VALUE) {
        throw new TemplateException("nil pointer evaluating ." + name);
      } else {
        throw new TemplateException("can't evaluate field " + name + " in type " + GoFormat.typeName(v));
      }
    }
    return v;
  }

  private static boolean stringMap(Map<?, ?> m) {
    for (Object v : m.values()) {
      return v instanceof String;
    }
    return true;
  }

  static boolean truth(Object v) {
    if (v == null || v == NO_VALUE) {
      return false;
    }
    if (v instanceof Boolean b) {
      return b;
    }
    if (v instanceof String s) {
      return !s.isEmpty();
    }
    if (v instanceof Double d) {
      return d != 0;
    }
    if (v instanceof Long l) {
      return l != 0;
    }
    if (v instanceof Map<?, ?> m) {
      return !m.isEmpty();
    }
    if (v instanceof List<?> l) {
      return !l.isEmpty();
    }
    return true;
  }
}
