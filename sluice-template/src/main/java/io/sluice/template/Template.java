package io.sluice.template;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A parsed Go {@code text/template}: text, {@code {{ pipelines }}} with {@code |}, variables, fields, literals and
 * function calls, {@code if}/{@code else if}/{@code else}, {@code range} (with {@code break} and {@code continue}),
 * {@code with}, {@code define}, {@code template}, {@code block}, comments and the {@code {{-}} / {@code -}}} trim
 * markers. Values are Java objects:
 * {@code String}, {@code Double} (float64), {@code Long} (int), {@code Boolean}, {@code Map<String, ?>} (structs and
 * maps alike), {@code List<?>}; other values expose fields and methods through the caller's {@link Members}.
 *
 * <p>As in Go, a missing map key prints {@code <no value>} and an unknown function is a parse error.
 */
public final class Template {
  private final List<Node> nodes;
  private final Map<String, List<Node>> defines;
  private final Map<String, TemplateFunction> functions;

  private Template(List<Node> nodes, Map<String, List<Node>> defines, Map<String, TemplateFunction> functions) {
    this.nodes = nodes;
    this.defines = defines;
    this.functions = functions;
  }

  /** A template function; the piped value, if any, is the last argument. */
  @FunctionalInterface
  public interface TemplateFunction {
    Object call(List<Object> args);
  }

  /**
   * Fields and methods of values that are not plain maps, as Go finds them on structs and named types
   * ({@code .Alerts.Firing}, {@code .CommonLabels.Names}). Asked before a map's keys, as Go looks for a method first.
   */
  @FunctionalInterface
  public interface Members {
    /** What {@link #get} answers when the receiver has no member of that name. */
    Object NONE = new Object() {
      @Override
      public String toString() {
        return "<no member>";
      }
    };

    /**
     * {@code receiver.name args...}: {@code args} is empty for a field or a method called without arguments;
     * {@link #NONE} when the receiver has no such member, so that the engine's own rules apply (map keys).
     */
    Object get(Object receiver, String name, List<Object> args);
  }

  /** Named templates a template calls with {@code {{ template }}} but does not define itself. */
  @FunctionalInterface
  public interface Definitions {
    /** The template {@code name} executed on {@code dot}, or null when no template has that name. */
    String execute(String name, Object dot);
  }

  /**
   * A value that prints itself, as a Go value whose type has a {@code String} method does under {@code fmt}'s
   * {@code %v} and {@code %s} (Alertmanager's {@code Pairs} prints as {@code a=1, b=2}, not as a list).
   */
  @FunctionalInterface
  public interface Stringer {
    String string();
  }

  /**
   * How the value of an action such as {@code {{ .Labels.job }}} becomes output. Go's {@code text/template} prints it
   * ({@link GoFormat#print}); a caller standing in for {@code html/template} escapes it as well. The template's own
   * text is never passed through it.
   */
  @FunctionalInterface
  public interface Printer {
    String print(Object value);
  }

  /** What an execution may look outside the template for; members and definitions may be null. */
  public record Environment(Members members, Definitions definitions, Printer printer) {
    public static final Environment NONE = new Environment(null, null);

    public Environment {
      printer = printer == null ? GoFormat::print : printer;
    }

    /** Values printed as Go's {@code text/template} prints them. */
    public Environment(Members members, Definitions definitions) {
      this(members, definitions, null);
    }
  }

  /** A template that does not parse or fails while executing; the message is Go's where it matters. */
  public static final class TemplateException extends IllegalArgumentException {
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

  /** Parses {@code text}, whose functions are Go's builtins and {@code functions}. */
  public static Template parse(String name, String text, Map<String, TemplateFunction> functions) {
    Map<String, TemplateFunction> all = new HashMap<>(Builtins.ALL);
    all.putAll(functions);
    TemplateParser p = new TemplateParser(name, text, all.keySet());
    List<Node> nodes = p.parse();
    return new Template(nodes, Map.copyOf(p.defines()), all);
  }

  /**
   * The same parsed template calling {@code all} instead: no copy, no re-parse. {@code all} must hold every name the
   * template was parsed with, builtins included ({@link Builtins#ALL} plus one's own, built once).
   */
  public Template bind(Map<String, TemplateFunction> all) {
    return new Template(nodes, defines, all);
  }

  /** The names this template's {@code define} and {@code block} actions define. */
  public Set<String> definedNames() {
    return defines.keySet();
  }

  public String execute(Object data) {
    return execute(data, Environment.NONE);
  }

  public String execute(Object data, Environment env) {
    return new Execution(env).run(nodes, data);
  }

  /** Executes the template this one defines as {@code name}, as {@code {{ template "name" data }}} would. */
  public String executeDefinition(String name, Object data, Environment env) {
    List<Node> body = defines.get(name);
    if (body == null) {
      throw new TemplateException("no such template \"" + name + "\"");
    }
    return new Execution(env).run(body, data);
  }

  // ---- AST

  sealed interface Node {}

  record Text(String text) implements Node {}

  record Action(Pipeline pipe) implements Node {}

  /** {@code {{ template "name" pipe }}}; {@code pipe} is null when no data is passed (dot then prints no value). */
  record Call(String name, Pipeline pipe) implements Node {}

  /** {@code {{break}}}: ends the innermost range. */
  record Break() implements Node {}

  /** {@code {{continue}}}: ends the innermost range's current iteration. */
  record Continue() implements Node {}

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

  /** Unwinds from {@code {{break}}} or {@code {{continue}}} to the innermost range; no stack trace. */
  private static final class LoopSignal extends RuntimeException {
    static final LoopSignal BREAK = new LoopSignal();
    static final LoopSignal CONTINUE = new LoopSignal();

    private LoopSignal() {
      super(null, null, false, false);
    }
  }

  /** One execution: the caller's environment beside the parsed tree. */
  private final class Execution {
    private final Members members;
    private final Definitions definitions;
    private final Printer printer;

    Execution(Environment env) {
      this.members = env.members();
      this.definitions = env.definitions();
      this.printer = env.printer();
    }

    String run(List<Node> list, Object data) {
      StringBuilder out = new StringBuilder();
      Scope scope = new Scope(null);
      scope.vars.put("$", data);
      try {
        run(list, data, scope, out);
      } catch (StackOverflowError e) {
        // A template that calls itself without end ({{ define "a" }}{{ template "a" . }}{{ end }}) must fail the
        // one text, as Go's depth limit does, not the thread that renders it.
        throw new TemplateException("exceeded maximum template depth");
      }
      return out.toString();
    }

    private void run(List<Node> list, Object dot, Scope scope, StringBuilder out) {
      for (Node n : list) {
        if (n instanceof Text t) {
          out.append(t.text());
        } else if (n instanceof Action a) {
          Object v = pipeline(a.pipe(), dot, scope);
          if (a.pipe().decl().isEmpty()) {
            out.append(printer.print(v));
          }
        } else if (n instanceof Branch b) {
          branch(b, dot, scope, out);
        } else if (n instanceof Call c) {
          call(c, dot, scope, out);
        } else if (n instanceof Break) {
          throw LoopSignal.BREAK;
        } else if (n instanceof Continue) {
          throw LoopSignal.CONTINUE;
        }
      }
    }

    /** As in Go, the called template sees only its data: {@code $} is that data, no variables of the caller. */
    private void call(Call c, Object dot, Scope scope, StringBuilder out) {
      Object data = c.pipe() == null ? NO_VALUE : pipeline(c.pipe(), dot, scope);
      List<Node> own = defines.get(c.name());
      if (own != null) {
        out.append(run(own, data));
        return;
      }
      String text = definitions == null ? null : definitions.execute(c.name(), data);
      if (text == null) {
        throw new TemplateException("template \"" + c.name() + "\" not defined");
      }
      out.append(text);
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
            try {
              run(b.body(), kv[1], inner, out);
            } catch (LoopSignal signal) {
              // What the iteration wrote before it stays, as in Go.
              if (signal == LoopSignal.BREAK) {
                break;
              }
            }
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
      boolean hasArgs = cmd.size() > 1 || piped;
      if (!(first instanceof Identifier) && !hasArgs) {
        return operand(first, dot, scope);
      }
      List<Object> args = new ArrayList<>();
      for (int i = 1; i < cmd.size(); i++) {
        args.add(operand(cmd.get(i), dot, scope));
      }
      if (piped) {
        args.add(final_);
      }
      if (first instanceof Identifier id) {
        TemplateFunction f = functions.get(id.name());
        try {
          return f.call(args);
        } catch (RuntimeException e) {
          throw new TemplateException("error calling " + id.name() + ": " + e.getMessage());
        }
      }
      // A method with arguments ends a chain: {{ .CommonLabels.Remove $names }}.
      List<String> chain = chainOf(first);
      if (chain.isEmpty() || members == null) {
        throw new TemplateException("can't give argument to non-function " + describe(first));
      }
      Object receiver = fields(base(first, dot, scope), chain.subList(0, chain.size() - 1));
      Object v = members.get(receiver, chain.get(chain.size() - 1), args);
      if (v == Members.NONE) {
        throw new TemplateException("can't give argument to non-function " + describe(first));
      }
      return v;
    }

    private static List<String> chainOf(Operand o) {
      if (o instanceof Field f) {
        return f.chain();
      }
      if (o instanceof Variable v) {
        return v.chain();
      }
      if (o instanceof Sub s) {
        return s.chain();
      }
      return List.of();
    }

    /** What an operand's field chain starts from. */
    private Object base(Operand o, Object dot, Scope scope) {
      if (o instanceof Variable v) {
        return scope.get(v.name());
      }
      if (o instanceof Sub s) {
        return pipeline(s.pipe(), dot, scope);
      }
      return dot;
    }

    private Object operand(Operand o, Object dot, Scope scope) {
      if (o instanceof Literal l) {
        return l.value();
      }
      if (o instanceof Dot) {
        return dot;
      }
      if (o instanceof Field || o instanceof Variable || o instanceof Sub) {
        return fields(base(o, dot, scope), chainOf(o));
      }
      Identifier id = (Identifier) o;
      return functions.get(id.name()).call(Collections.emptyList());
    }

    private Object fields(Object v, List<String> chain) {
      for (String name : chain) {
        Object member = members == null ? Members.NONE : members.get(v, name, List.of());
        if (member != Members.NONE) {
          v = member;
        } else if (v instanceof Map<?, ?> m) {
          // Prometheus and Alertmanager expand with missingkey=zero: a missing label is "", a missing field of a
          // struct-like map prints <no value>.
          v = m.containsKey(name) ? m.get(name) : stringMap(m) ? "" : NO_VALUE;
        } else if (v == null || v == NO_VALUE) {
          throw new TemplateException("nil pointer evaluating ." + name);
        } else {
          throw new TemplateException("can't evaluate field " + name + " in type " + GoFormat.typeName(v));
        }
      }
      return v;
    }
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
