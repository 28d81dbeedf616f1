package io.sluice.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.sluice.console.panels.Panel;
import io.sluice.console.panels.PipelinePanels;
import io.sluice.exporter.MetricsExporter;
import io.sluice.metrics.MetricsServer;
import io.sluice.metrics.promql.parser.AggregateOp;
import io.sluice.metrics.promql.parser.Expr;
import io.sluice.metrics.promql.parser.Parser;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The series every node of a cluster exports alike are never summed or counted by the bundled rules and the
 * dashboard's panels (which the Grafana export shares): in one view over two nodes, a sum would count each restart
 * and dead letter twice and raise an alert one restart early.
 */
class ClusterWideSeriesTest {
  /** Aggregations that add the nodes' copies up; max, min, topk and the like pick one. */
  private static final Set<AggregateOp> ADDING = Set.of(AggregateOp.SUM, AggregateOp.COUNT, AggregateOp.AVG,
      AggregateOp.STDDEV, AggregateOp.STDVAR, AggregateOp.COUNT_VALUES, AggregateOp.QUANTILE);

  @Test
  void noRuleOrPanelAddsUpTheNodesCopiesOfAClusterWideSeries() throws Exception {
    Map<String, String> exprs = new LinkedHashMap<>();
    for (Panel p : PipelinePanels.ALL) {
      for (Panel.Query q : p.queries()) {
        exprs.put("panel " + p.id() + ": " + q.legend(), q.expr());
      }
    }
    JsonNode rules = new ObjectMapper(new YAMLFactory()).readTree(MetricsServer.bundledRules());
    for (JsonNode group : rules.path("groups")) {
      for (JsonNode rule : group.path("rules")) {
        exprs.put("rule " + rule.path("alert").asText(rule.path("record").asText()) + " #" + exprs.size(),
            rule.path("expr").asText());
      }
    }
    List<String> wrong = new ArrayList<>();
    int clusterWide = 0;
    for (Map.Entry<String, String> e : exprs.entrySet()) {
      Expr expr = Parser.parse(e.getValue());
      clusterWide += mentions(expr) ? 1 : 0;
      addsUp(expr, e.getKey(), wrong);
    }
    assertEquals(List.of(), wrong);
    assertTrue(clusterWide >= 8, "the check saw the rules and panels over cluster-wide series: " + clusterWide);
    // The check itself finds the sum the restart panel and rule had before.
    List<String> before = new ArrayList<>();
    addsUp(Parser.parse("floor(sum by (connector) (increase("
        + "svc_connect_connector_task_metrics_total_restarts_total[1h]))) > 3"), "before", before);
    assertEquals(List.of("before: sum over a cluster-wide series"), before);
  }

  private static boolean mentions(Expr e) {
    return e instanceof Expr.VectorSelector v ? v.name() != null && MetricsExporter.CLUSTER_WIDE.contains(v.name())
        : children(e).stream().anyMatch(ClusterWideSeriesTest::mentions);
  }

  /** Whether a cluster-wide series reaches this expression other than through a max or min over the nodes. */
  private static boolean touches(Expr e) {
    if (e instanceof Expr.VectorSelector v) {
      return v.name() != null && MetricsExporter.CLUSTER_WIDE.contains(v.name());
    }
    if (e instanceof Expr.Aggregate a) {
      return ADDING.contains(a.op()) && touches(a.expr());
    }
    return children(e).stream().anyMatch(ClusterWideSeriesTest::touches);
  }

  private static void addsUp(Expr e, String where, List<String> wrong) {
    if (e instanceof Expr.Aggregate a && ADDING.contains(a.op()) && touches(a.expr())) {
      wrong.add(where + ": " + a.op().keyword() + " over a cluster-wide series");
    }
    children(e).forEach(c -> addsUp(c, where, wrong));
  }

  private static List<Expr> children(Expr e) {
    if (e instanceof Expr.MatrixSelector m) {
      return List.of(m.selector());
    } else if (e instanceof Expr.Subquery s) {
      return List.of(s.expr());
    } else if (e instanceof Expr.Paren p) {
      return List.of(p.expr());
    } else if (e instanceof Expr.Unary u) {
      return List.of(u.expr());
    } else if (e instanceof Expr.Binary b) {
      return List.of(b.lhs(), b.rhs());
    } else if (e instanceof Expr.Call c) {
      return c.args();
    } else if (e instanceof Expr.Aggregate a) {
      return List.of(a.expr());
    }
    return List.of();
  }
}
