package io.sluice.metrics.rules;

import io.sluice.metrics.model.Labels;
import io.sluice.metrics.promql.Value;
import io.sluice.metrics.promql.parser.Expr;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Stores an expression's result under a new metric name, with the rule's labels added. */
public final class RecordingRule implements Rule {
  private final String name;
  private final Expr expr;
  private final Map<String, String> labels;
  private volatile Evaluation last = Evaluation.NEVER;

  RecordingRule(String name, Expr expr, Map<String, String> labels) {
    this.name = name;
    this.expr = expr;
    this.labels = labels;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Expr expr() {
    return expr;
  }

  @Override
  public Map<String, String> labels() {
    return labels;
  }

  @Override
  public Evaluation lastEvaluation() {
    return last;
  }

  void recordEvaluation(Evaluation e) {
    last = e;
  }

  @Override
  public List<Value.Sample> eval(long ts, QueryFunction query, RuleContext ctx) {
    List<Value.Sample> in = query.query(expr, ts);
    List<Value.Sample> out = new ArrayList<>(in.size());
    Set<Labels> seen = new HashSet<>();
    for (Value.Sample s : in) {
      Labels.Builder b = s.labels().toBuilder().set(Labels.METRIC_NAME, name);
      labels.forEach(b::set);
      Labels l = b.build();
      if (!seen.add(l)) {
        throw new RuleEvaluationException("vector contains metrics with the same labelset after applying rule "
            + "labels");
      }
      out.add(new Value.Sample(l, ts, s.v()));
    }
    if (ctx.limit() > 0 && out.size() > ctx.limit()) {
      throw new RuleEvaluationException("exceeded limit of " + ctx.limit() + " with " + out.size() + " series");
    }
    return out;
  }
}
