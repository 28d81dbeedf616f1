package io.sluice.metrics.web;

import io.sluice.gofmt.GoFloat;
import io.sluice.metrics.rules.Alert;
import io.sluice.metrics.rules.AlertingRule;
import io.sluice.metrics.rules.Group;
import io.sluice.metrics.rules.Rule;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** The {@code /alerts} HTML page: every alerting rule with its state, and its active alerts with labels and since. */
final class AlertsPage {
  private AlertsPage() {}

  static String render(List<Group> groups) {
    StringBuilder sb = new StringBuilder("""
        <!DOCTYPE html>
        <html><head><meta charset="utf-8"><title>Alerts - Sluice metrics</title>
        <style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin:0 0 1em 2em}
        td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}.inactive{color:#080}.pending{color:#b80}
        .firing{color:#c00}.rule{margin:.3em 0}code{background:#f4f4f4;padding:2px}</style></head><body>
        <h1>Alerts</h1>
        """);
    int[] counts = new int[3];
    for (Group g : groups) {
      for (Rule r : g.rules()) {
        if (r instanceof AlertingRule a) {
          counts[a.state().ordinal()]++;
        }
      }
    }
    sb.append("<p>Inactive (").append(counts[0]).append(") Pending (").append(counts[1]).append(") Firing (")
        .append(counts[2]).append(")</p>\n");
    for (Group g : groups) {
      sb.append("<h2>").append(TargetsPage.esc(g.file())).append(" &gt; ").append(TargetsPage.esc(g.name()))
          .append("</h2>\n");
      for (Rule r : g.rules()) {
        if (!(r instanceof AlertingRule a)) {
          continue;
        }
        List<Alert> alerts = a.activeAlerts();
        String state = a.state().apiName();
        sb.append("<div class=\"rule\"><b class=\"").append(state).append("\">")
            .append(TargetsPage.esc(a.name())).append(" (").append(alerts.size()).append(" active) ")
            .append(state.toUpperCase(Locale.ROOT)).append("</b> <code>").append(TargetsPage.esc(a.expr().toString()))
            .append("</code>");
        if (a.lastEvaluation().health().equals("err")) {
          sb.append(" <span class=\"firing\">error: ").append(TargetsPage.esc(a.lastEvaluation().lastError()))
              .append("</span>");
        }
        sb.append("</div>\n");
        if (!alerts.isEmpty()) {
          sb.append("<table><tr><th>Labels</th><th>State</th><th>Active Since</th><th>Value</th>"
              + "<th>Annotations</th></tr>\n");
          for (Alert al : alerts) {
            sb.append("<tr><td>").append(TargetsPage.esc(al.labels().toString())).append("</td><td class=\"")
                .append(al.state().apiName()).append("\">").append(al.state().apiName().toUpperCase(Locale.ROOT))
                .append("</td><td>").append(RulesApi.time(al.activeAt())).append("</td><td>")
                .append(GoFloat.format(al.value())).append("</td><td>");
            for (Map.Entry<String, String> e : new TreeMap<>(al.annotations()).entrySet()) {
              sb.append("<b>").append(TargetsPage.esc(e.getKey())).append("</b>: ")
                  .append(TargetsPage.esc(e.getValue())).append("<br>");
            }
            sb.append("</td></tr>\n");
          }
          sb.append("</table>\n");
        }
      }
    }
    if (groups.isEmpty()) {
      sb.append("<p>No rules loaded.</p>\n");
    }
    return sb.append("</body></html>\n").toString();
  }
}
