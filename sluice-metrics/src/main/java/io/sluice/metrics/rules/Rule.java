package io.sluice.metrics.rules;

import io.sluice.metrics.model.Labels;
import io.sluice.metrics.promql.Value;
import io.sluice.metrics.promql.parser.Expr;
import java.util.List;
import java.util.Map;

/** A recording or an alerting rule of a {@link Group}. */
public sealed interface Rule permits AlertingRule, RecordingRule {
  String name();

  Expr expr();

  /** The rule's own labels as written (alerting rules expand them as templates per alert). */
  Map<String, String> labels();

  /** The outcome of the last evaluation. */
  Evaluation lastEvaluation();

  /** Evaluates at {@code ts}; the samples to store (recorded series, or ALERTS and ALERTS_FOR_STATE). */
  List<Value.Sample> eval(long ts, QueryFunction query, RuleContext context);

  /** How an evaluation went; {@code health} is "ok", "err" or "unknown" as Prometheus's API says. */
  record Evaluation(String health, String lastError, long timestampMillis, double durationSeconds) {
    static final Evaluation NEVER = new Evaluation("unknown", "", 0, 0);
  }

  /** The engine as rules use it: an instant query. */
  @FunctionalInterface
  interface QueryFunction {
    List<Value.Sample> query(Expr expr, long ts);
  }

  /** The {@code query} function of templates: an instant query at the alert's evaluation time. */
  @FunctionalInterface
  interface TemplateQuery {
    List<Map<String, Object>> query(String expr, long ts);
  }

  /** What an evaluation needs beyond the query: external labels and URL, the group's alert limit. */
  record RuleContext(Labels externalLabels, String externalUrl, int limit, TemplateQuery templateQuery) {
    RuleContext withLimit(int l) {
      return new RuleContext(externalLabels, externalUrl, l, templateQuery);
    }
  }
}
