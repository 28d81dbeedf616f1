package io.sluice.metrics.web;

import io.sluice.metrics.scrape.Target;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The {@code /targets} HTML page: targets grouped by job with their health, last scrape and last error. */
final class TargetsPage {
  private TargetsPage() {}

  static String render(List<Target> targets) {
    Map<String, List<Target>> byJob = new LinkedHashMap<>();
    for (Target t : targets) {
      byJob.computeIfAbsent(t.job(), k -> new ArrayList<>()).add(t);
    }
    StringBuilder sb = new StringBuilder(GraphPage.header("Targets", "Targets"));
    for (Map.Entry<String, List<Target>> e : byJob.entrySet()) {
      long up = e.getValue().stream().filter(t -> t.health() == Target.Health.UP).count();
      sb.append("<h2>").append(esc(e.getKey())).append(" (").append(up).append('/').append(e.getValue().size())
          .append(" up)</h2>\n<section class=\"box\"><table><tr><th>Endpoint</th><th>State</th><th>Labels</th><th>Last Scrape</th>"
              + "<th>Scrape Duration</th><th>Error</th></tr>\n");
      for (Target t : e.getValue()) {
        sb.append("<tr><td><a href=\"").append(esc(t.url())).append("\">").append(esc(t.url())).append("</a></td>")
            .append("<td><span class=\"badge ").append(t.health().apiName()).append("\">")
            .append(t.health().apiName().toUpperCase(Locale.ROOT)).append("</span></td><td>")
            .append(labels(t.labels().toMap())).append("</td><td>")
            .append(t.lastScrape() == null ? "never" : esc(t.lastScrape().toString())).append("</td><td>")
            .append(String.format(Locale.ROOT, "%.3fs", t.lastDurationSeconds())).append("</td><td>")
            .append(esc(t.lastError())).append("</td></tr>\n");
      }
      sb.append("</table></section>\n");
    }
    if (byJob.isEmpty()) {
      sb.append("<p>No targets configured.</p>\n");
    }
    return sb.append(GraphPage.FOOTER).toString();
  }

  /** Labels as the shared look draws them: one {@code name="value"} chip each. */
  static String labels(Map<String, String> labels) {
    StringBuilder sb = new StringBuilder();
    labels.forEach((k, v) -> sb.append("<span class=\"label\">").append(esc(k)).append("=\"").append(esc(v))
        .append("\"</span>"));
    return sb.toString();
  }

  static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
