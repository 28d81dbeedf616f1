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
    StringBuilder sb = new StringBuilder(GraphPage.header("Alerts", "Alerts"));
    int[] counts = new int[3];
    for (Group g : groups) {
      for (Rule r : g.rules()) {
        if (r instanceof AlertingRule a) {
          counts[a.state().ordinal()]++;
        }
      }
    }
    sb.append("<p><span class=\"badge inactive\">Inactive ").append(counts[0])
        .append("</span> <span class=\"badge pending\">Pending ").append(counts[1])
        .append("</span> <span class=\"badge firing\">Firing ").append(counts[2]).append("</span></p>\n");
    for (Group g : groups) {
      sb.append("<h2>").append(TargetsPage.esc(g.file())).append(" &gt; ").append(TargetsPage.esc(g.name()))
          .append("</h2>\n");
      for (Rule r : g.rules()) {
        if (!(r instanceof AlertingRule a)) {
          continue;
        }
        List<Alert> alerts = a.activeAlerts();
        String state = a.state().apiName();
        sb.append("<section class=\"box rule\"><span class=\"badge ").append(state).append("\">")
            .append(state.toUpperCase(Locale.ROOT)).append("</span> <b>").append(TargetsPage.esc(a.name()))
            .append("</b> <span class=\"muted\">(").append(alerts.size()).append(" active)</span> <code>").append(TargetsPage.esc(a.expr().toString()))
            .append("</code>");
        if (a.lastEvaluation().health().equals("err")) {
          sb.append(" <span class=\"error\">error: ").append(TargetsPage.esc(a.lastEvaluation().lastError()))
              .append("</span>");
        }
        if (!alerts.isEmpty()) {
          sb.append("<table><tr><th>Labels</th><th>State</th><th>Active Since</th><th>Value</th>"
              + "<th>Annotations</th></tr>\n");
          for (Alert al : alerts) {
            sb.append("<tr><td>").append(TargetsPage.labels(al.labels().toMap())).append("</td><td><span class=\"badge ")
                .append(al.state().apiName()).append("\">").append(al.state().apiName().toUpperCase(Locale.ROOT))
                .append("</span></td><td>").append(RulesApi.time(al.activeAt())).append("</td><td>")
                .append(GoFloat.format(al.value())).append("</td><td>");
            for (Map.Entry<String, String> e : new TreeMap<>(al.annotations()).entrySet()) {
              sb.append("<b>").append(TargetsPage.esc(e.getKey())).append("</b>: ")
                  .append(TargetsPage.esc(e.getValue())).append("<br>");
            }
            sb.append("</td></tr>\n");
          }
          sb.append("</table>\n");
        }
        sb.append("</section>\n");
      }
    }
    if (groups.isEmpty()) {
      sb.append("<p>No rules loaded.</p>\n");
    }
    return sb.append(GraphPage.FOOTER).toString();
  }
}
