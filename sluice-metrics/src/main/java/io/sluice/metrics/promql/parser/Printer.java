package io.sluice.metrics.promql.parser;

import io.sluice.gofmt.GoDuration;
import io.sluice.metrics.model.Labels;
import io.sluice.metrics.model.Matcher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/** Renders an AST back to PromQL, in Prometheus's canonical spelling. */
final class Printer {
  private Printer() {}

  static String number(double v) {
    if (Double.isNaN(v)) {
      return "NaN";
    }
    if (Double.isInfinite(v)) {
      return v > 0 ? "Inf" : "-Inf";
    }
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return Long.toString((long) v);
    }
    return Double.toString(v);
  }

  static String seconds(long millis) {
    return String.format("%.3f", millis / 1000.0);
  }

  static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
  }

  static String duration(long ms) {
    return GoDuration.format(Duration.ofMillis(ms));
  }

  static String selector(Expr.VectorSelector s) {
    List<String> parts = new ArrayList<>();
    for (Matcher m : s.matchers()) {
      if (s.name() != null && m.name().equals(Labels.METRIC_NAME) && m.type() == Matcher.Type.EQ) {
        continue;
      }
      parts.add(m.name() + m.type().op() + quote(m.value()));
    }
    String base = (s.name() == null ? "" : s.name()) + (parts.isEmpty() && s.name() != null ? "" : "{"
        + String.join(", ", parts) + "}");
    return base + modifiers(s.offset(), s.at());
  }

  private static String modifiers(long offset, Expr.At at) {
    String out = "";
    if (at != null) {
      out += " " + at;
    }
    if (offset > 0) {
      out += " offset " + duration(offset);
    } else if (offset < 0) {
      out += " offset -" + duration(-offset);
    }
    return out;
  }

  static String matrix(Expr.MatrixSelector m) {
    Expr.VectorSelector s = m.selector();
    String plain = selector(new Expr.VectorSelector(s.name(), s.matchers(), 0, null));
    return plain + "[" + duration(m.range()) + "]" + modifiers(s.offset(), s.at());
  }

  static String subquery(Expr.Subquery q) {
    return q.expr() + "[" + duration(q.range()) + ":" + (q.step() == 0 ? "" : duration(q.step())) + "]"
        + modifiers(q.offset(), q.at());
  }

  static String binary(Expr.Binary b) {
    StringBuilder sb = new StringBuilder().append(b.lhs()).append(' ').append(b.op().symbol());
    if (b.returnBool()) {
      sb.append(" bool");
    }
    VectorMatching m = b.matching();
    if (m != null && (m.on() || !m.labels().isEmpty())) {
      sb.append(m.on() ? " on(" : " ignoring(").append(String.join(", ", m.labels())).append(')');
    }
    if (m != null && (m.card() == VectorMatching.Cardinality.MANY_TO_ONE
        || m.card() == VectorMatching.Cardinality.ONE_TO_MANY)) {
      sb.append(m.card() == VectorMatching.Cardinality.MANY_TO_ONE ? " group_left" : " group_right")
          .append('(').append(String.join(", ", m.include())).append(')');
    }
    return sb.append(' ').append(b.rhs()).toString();
  }

  static String call(Expr.Call c) {
    return c.function().name() + "(" + c.args().stream().map(Object::toString).collect(Collectors.joining(", ")) + ")";
  }

  static String aggregate(Expr.Aggregate a) {
    StringBuilder sb = new StringBuilder(a.op().keyword());
    if (a.without() || !a.grouping().isEmpty()) {
      sb.append(a.without() ? " without (" : " by (").append(String.join(", ", a.grouping())).append(") ");
    }
    sb.append('(');
    if (a.param() != null) {
      sb.append(a.param()).append(", ");
    }
    return sb.append(a.expr()).append(')').toString();
  }
}
