package io.sluice.console.panels;

import java.util.List;

/**
 * One panel of a pipeline's page: what it shows, the PromQL it runs (shown beside it, copyable) and how it is drawn.
 * Expressions name the pipeline as {@code $pipeline} and its connectors as the regular expression {@code $connectors},
 * the variables of the Grafana dashboard Sluice exports, so the same text serves both.
 *
 * @param thresholds where a gauge turns yellow and red (in the panel's unit), empty otherwise
 */
public record Panel(String id, String title, Kind kind, String unit, List<Query> queries, List<Double> thresholds,
    String description) {

  /** How a panel is drawn. */
  public enum Kind {
    /** The latest value against thresholds. */
    GAUGE,
    /** Lines over the time range. */
    TIMESERIES,
    /** Each connector's state now, and since when. */
    STATUS,
    /** One number per series, now. */
    STAT
  }

  /** One expression and the legend of its series ({@code {{connector}}} is replaced by that label's value). */
  public record Query(String expr, String legend) {}

  /** The panel's expressions for one pipeline. */
  public Panel forPipeline(String pipeline, List<String> connectors) {
    String regex = String.join("|", connectors.stream().map(Panel::escapeRegex).toList());
    return new Panel(id, title, kind, unit, queries.stream().map(q -> new Query(q.expr()
        .replace("$pipeline", escapeString(pipeline)).replace("$connectors", escapeString(regex.isEmpty()
            ? "^$" : regex)), q.legend())).toList(), thresholds, description);
  }

  private static String escapeRegex(String s) {
    return s.replaceAll("[\\\\.^$|?*+()\\[\\]{}]", "\\\\$0");
  }

  /** A value inside a PromQL double-quoted string. */
  private static String escapeString(String s) {
    return s.replace("\\", "\\\\").replace("\"", "\\\"");
  }
}
