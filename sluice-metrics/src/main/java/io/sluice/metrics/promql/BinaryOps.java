package io.sluice.metrics.promql;

import io.sluice.metrics.model.Labels;
import io.sluice.metrics.promql.parser.BinaryOp;
import io.sluice.metrics.promql.parser.Expr;
import io.sluice.metrics.promql.parser.VectorMatching;
import io.sluice.metrics.promql.parser.VectorMatching.Cardinality;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Binary operators between scalars and vectors, with Prometheus's vector matching. */
final class BinaryOps {
  private BinaryOps() {}

  /** Arithmetic result, or for comparisons the left value when true and NaN-free "keep" in {@link #keep}. */
  static double arithmetic(BinaryOp op, double l, double r) {
    return switch (op) {
      case ADD -> l + r;
      case SUB -> l - r;
      case MUL -> l * r;
      case DIV -> l / r;
      case MOD -> l % r;
      case POW -> pow(l, r);
      case ATAN2 -> Math.atan2(l, r);
      default -> throw new IllegalArgumentException("not arithmetic: " + op);
    };
  }

  /** Go's math.Pow, which differs from Java's for a base of 1 or -1 with NaN or infinite exponents. */
  static double pow(double x, double y) {
    if (y == 0 || x == 1) {
      return 1;
    }
    if (x == -1 && Double.isInfinite(y)) {
      return 1;
    }
    return Math.pow(x, y);
  }

  /** Prometheus drops the metric name for arithmetic, but (a quirk we keep) not for atan2. */
  static boolean dropsMetricName(BinaryOp op) {
    return switch (op) {
      case ADD, SUB, MUL, DIV, MOD, POW -> true;
      default -> false;
    };
  }

  static boolean compare(BinaryOp op, double l, double r) {
    return switch (op) {
      case EQL -> l == r;
      case NEQ -> l != r;
      case LSS -> l < r;
      case LTE -> l <= r;
      case GTR -> l > r;
      case GTE -> l >= r;
      default -> throw new IllegalArgumentException("not a comparison: " + op);
    };
  }

  static double scalar(BinaryOp op, double l, double r, boolean returnBool) {
    if (op.isComparison()) {
      return compare(op, l, r) ? 1 : 0;
    }
    return arithmetic(op, l, r);
  }

  static List<Value.Sample> vectorScalar(BinaryOp op, List<Value.Sample> vec, double scalar, boolean scalarOnLeft,
      boolean returnBool, long t) {
    List<Value.Sample> out = new ArrayList<>(vec.size());
    boolean dropName = dropsMetricName(op) || returnBool;
    for (Value.Sample s : vec) {
      double l = scalarOnLeft ? scalar : s.v();
      double r = scalarOnLeft ? s.v() : scalar;
      double v;
      if (op.isComparison()) {
        boolean keep = compare(op, l, r);
        if (returnBool) {
          v = keep ? 1 : 0;
        } else if (!keep) {
          continue;
        } else {
          // The vector's own value survives a filter, whichever side it is on.
          v = s.v();
        }
      } else {
        v = arithmetic(op, l, r);
      }
      out.add(new Value.Sample(dropName ? s.labels().withoutName() : s.labels(), t, v));
    }
    return out;
  }

  /** The labels two samples must share to match. Without {@code on}, the metric name never takes part. */
  static Labels signature(Labels l, VectorMatching m) {
    if (m.on()) {
      return l.keep(m.labels());
    }
    Set<String> drop = new HashSet<>(m.labels());
    drop.add(Labels.METRIC_NAME);
    return l.drop(drop);
  }

  static List<Value.Sample> vectorVector(Expr.Binary b, List<Value.Sample> lhs, List<Value.Sample> rhs, long t) {
    VectorMatching m = Evaluator.matchingOf(b);
    return switch (b.op()) {
      case AND -> and(lhs, rhs, m);
      case OR -> or(lhs, rhs, m);
      case UNLESS -> unless(lhs, rhs, m);
      default -> matched(b, m, lhs, rhs, t);
    };
  }

  private static Set<Labels> signatures(List<Value.Sample> v, VectorMatching m) {
    Set<Labels> out = new HashSet<>();
    for (Value.Sample s : v) {
      out.add(signature(s.labels(), m));
    }
    return out;
  }

  private static List<Value.Sample> and(List<Value.Sample> lhs, List<Value.Sample> rhs, VectorMatching m) {
    Set<Labels> right = signatures(rhs, m);
    List<Value.Sample> out = new ArrayList<>();
    for (Value.Sample s : lhs) {
      if (right.contains(signature(s.labels(), m))) {
        out.add(s);
      }
    }
    return out;
  }

  private static List<Value.Sample> or(List<Value.Sample> lhs, List<Value.Sample> rhs, VectorMatching m) {
    Set<Labels> left = signatures(lhs, m);
    List<Value.Sample> out = new ArrayList<>(lhs);
    for (Value.Sample s : rhs) {
      if (!left.contains(signature(s.labels(), m))) {
        out.add(s);
      }
    }
    return out;
  }

  private static List<Value.Sample> unless(List<Value.Sample> lhs, List<Value.Sample> rhs, VectorMatching m) {
    Set<Labels> right = signatures(rhs, m);
    List<Value.Sample> out = new ArrayList<>();
    for (Value.Sample s : lhs) {
      if (!right.contains(signature(s.labels(), m))) {
        out.add(s);
      }
    }
    return out;
  }

  private static List<Value.Sample> matched(Expr.Binary b, VectorMatching m, List<Value.Sample> lhs,
      List<Value.Sample> rhs, long t) {
    BinaryOp op = b.op();
    if (m.card() == Cardinality.ONE_TO_MANY) {
      List<Value.Sample> tmp = lhs;
      lhs = rhs;
      rhs = tmp;
    }
    // The "one" side must be unique per signature.
    Map<Labels, Value.Sample> oneSide = new HashMap<>();
    for (Value.Sample s : rhs) {
      Labels sig = signature(s.labels(), m);
      Value.Sample prior = oneSide.putIfAbsent(sig, s);
      if (prior != null) {
        String side = m.card() == Cardinality.ONE_TO_MANY ? "left" : "right";
        throw QueryException.execution("found duplicate series for the match group " + goString(sig) + " on the "
            + side + " hand-side of the operation: [" + goString(s.labels()) + ", " + goString(prior.labels())
            + "];many-to-many matching not allowed: matching labels must be unique on one side");
      }
    }
    Set<Labels> matchedSigs = new HashSet<>();
    Set<Labels> inserted = new HashSet<>();
    List<Value.Sample> out = new ArrayList<>();
    boolean dropName = dropsMetricName(op) || b.returnBool();
    for (Value.Sample ls : lhs) {
      Labels sig = signature(ls.labels(), m);
      Value.Sample rs = oneSide.get(sig);
      if (rs == null) {
        continue;
      }
      double vl = ls.v();
      double vr = rs.v();
      if (m.card() == Cardinality.ONE_TO_MANY) {
        double tmp = vl;
        vl = vr;
        vr = tmp;
      }
      double value;
      if (op.isComparison()) {
        boolean keep = compare(op, vl, vr);
        if (b.returnBool()) {
          value = keep ? 1 : 0;
        } else if (!keep) {
          continue;
        } else {
          value = vl;
        }
      } else {
        value = arithmetic(op, vl, vr);
      }
      Labels metric = resultMetric(ls.labels(), rs.labels(), m, dropName);
      if (m.card() == Cardinality.ONE_TO_ONE) {
        if (!matchedSigs.add(sig)) {
          throw QueryException.execution(
              "multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)");
        }
      } else if (!inserted.add(metric)) {
        throw QueryException.execution("multiple matches for labels: grouping labels must ensure unique matches");
      }
      out.add(new Value.Sample(metric, t, value));
    }
    return out;
  }

  /** A label set as Prometheus 2.42 prints one in errors: every label, the name too, values quoted as Go quotes. */
  static String goString(Labels l) {
    StringBuilder sb = new StringBuilder("{");
    for (int i = 0; i < l.size(); i++) {
      if (i > 0) {
        sb.append(", ");
      }
      sb.append(l.name(i)).append('=');
      goQuote(sb, l.value(i));
    }
    return sb.append('}').toString();
  }

  /** Go's strconv.Quote: printable characters as they are, the rest escaped. */
  static void goQuote(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); ) {
      int cp = s.codePointAt(i);
      i += Character.charCount(cp);
      switch (cp) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case 7 -> sb.append("\\a");
        case '\b' -> sb.append("\\b");
        case '\f' -> sb.append("\\f");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        case 11 -> sb.append("\\v");
        default -> {
          if (cp < 0x20 || cp == 0x7f) {
            sb.append(String.format("\\x%02x", cp));
          } else if (Character.isISOControl(cp) || !Character.isDefined(cp) || Character.getType(cp) == Character.FORMAT
              || Character.getType(cp) == Character.SURROGATE || Character.getType(cp) == Character.PRIVATE_USE
              || Character.getType(cp) == Character.LINE_SEPARATOR
              || Character.getType(cp) == Character.PARAGRAPH_SEPARATOR
              || (Character.isSpaceChar(cp) && cp != ' ')) {
            sb.append(cp < 0x10000 ? String.format("\\u%04x", cp) : String.format("\\U%08x", cp));
          } else {
            sb.appendCodePoint(cp);
          }
        }
      }
    }
    sb.append('"');
  }

  private static Labels resultMetric(Labels many, Labels one, VectorMatching m, boolean dropName) {
    Labels.Builder b = many.toBuilder();
    if (dropName) {
      b.del(Labels.METRIC_NAME);
    }
    if (m.card() == Cardinality.ONE_TO_ONE) {
      if (m.on()) {
        Labels kept = b.build().keep(m.labels());
        b = kept.toBuilder();
      } else {
        for (String l : m.labels()) {
          b.del(l);
        }
      }
    }
    for (String l : m.include()) {
      b.set(l, one.get(l));
    }
    return b.build();
  }
}
