package io.sluice.metrics.promql.parser;

import io.sluice.metrics.model.Matcher;
import java.util.List;

/** The PromQL abstract syntax tree. Durations and timestamps are in milliseconds. */
public sealed interface Expr {

  ValueType type();

  /** {@code @ <time>}, {@code @ start()} or {@code @ end()}; {@code timestamp} is set for TIME only. */
  record At(Kind kind, long timestamp) {
    public enum Kind { TIME, START, END }

    @Override
    public String toString() {
      return switch (kind) {
        case START -> "@ start()";
        case END -> "@ end()";
        case TIME -> "@ " + Printer.seconds(timestamp);
      };
    }
  }

  record NumberLiteral(double value) implements Expr {
    public ValueType type() {
      return ValueType.SCALAR;
    }

    @Override
    public String toString() {
      return Printer.number(value);
    }
  }

  record StringLiteral(String value) implements Expr {
    public ValueType type() {
      return ValueType.STRING;
    }

    @Override
    public String toString() {
      return Printer.quote(value);
    }
  }

  /** {@code name{matchers}}; the metric name, when given, is also among the matchers as {@code __name__="..."}. */
  record VectorSelector(String name, List<Matcher> matchers, long offset, At at) implements Expr {
    public ValueType type() {
      return ValueType.VECTOR;
    }

    VectorSelector withOffset(long o) {
      return new VectorSelector(name, matchers, o, at);
    }

    VectorSelector withAt(At a) {
      return new VectorSelector(name, matchers, offset, a);
    }

    @Override
    public String toString() {
      return Printer.selector(this);
    }
  }

  record MatrixSelector(VectorSelector selector, long range) implements Expr {
    public ValueType type() {
      return ValueType.MATRIX;
    }

    @Override
    public String toString() {
      return Printer.matrix(this);
    }
  }

  /** {@code expr[range:step]}; {@code step} 0 means the engine's default evaluation interval. */
  record Subquery(Expr expr, long range, long step, long offset, At at) implements Expr {
    public ValueType type() {
      return ValueType.MATRIX;
    }

    @Override
    public String toString() {
      return Printer.subquery(this);
    }
  }

  record Paren(Expr expr) implements Expr {
    public ValueType type() {
      return expr.type();
    }

    @Override
    public String toString() {
      return "(" + expr + ")";
    }
  }

  record Unary(boolean negative, Expr expr) implements Expr {
    public ValueType type() {
      return expr.type();
    }

    @Override
    public String toString() {
      return (negative ? "-" : "+") + expr;
    }
  }

  record Binary(BinaryOp op, Expr lhs, Expr rhs, VectorMatching matching, boolean returnBool) implements Expr {
    public ValueType type() {
      return lhs.type() == ValueType.SCALAR && rhs.type() == ValueType.SCALAR ? ValueType.SCALAR : ValueType.VECTOR;
    }

    @Override
    public String toString() {
      return Printer.binary(this);
    }
  }

  record Call(Function function, List<Expr> args) implements Expr {
    public ValueType type() {
      return function.returnType();
    }

    @Override
    public String toString() {
      return Printer.call(this);
    }
  }

  record Aggregate(AggregateOp op, Expr expr, Expr param, List<String> grouping, boolean without) implements Expr {
    public ValueType type() {
      return ValueType.VECTOR;
    }

    @Override
    public String toString() {
      return Printer.aggregate(this);
    }
  }

  /** Strips parentheses, which matter for printing but not for evaluation. */
  static Expr unwrap(Expr e) {
    while (e instanceof Paren p) {
      e = p.expr();
    }
    return e;
  }
}
