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
    StringBuilder sb = new StringBuilder("""
        <!DOCTYPE html>
        <html><head><meta charset="utf-8"><title>Targets - Sluice metrics</title>
        <style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin-bottom:2em}
        td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}.up{color:#080}.down{color:#c00}
        .unknown{color:#888}</style></head><body><h1>Targets</h1>
        """);
    for (Map.Entry<String, List<Target>> e : byJob.entrySet()) {
      long up = e.getValue().stream().filter(t -> t.health() == Target.Health.UP).count();
      sb.append("<h2>").append(esc(e.getKey())).append(" (").append(up).append('/').append(e.getValue().size())
          .append(" up)</h2>\n<table><tr><th>Endpoint</th><th>State</th><th>Labels</th><th>Last Scrape</th>"
              + "<th>Scrape Duration</th><th>Error</th></tr>\n");
      for (Target t : e.getValue()) {
        sb.append("<tr><td><a href=\"").append(esc(t.url())).append("\">").append(esc(t.url())).append("</a></td>")
            .append("<td class=\"").append(t.health().apiName()).append("\">")
            .append(t.health().apiName().toUpperCase(Locale.ROOT)).append("</td><td>")
            .append(esc(t.labels().toString())).append("</td><td>")
            .append(t.lastScrape() == null ? "never" : esc(t.lastScrape().toString())).append("</td><td>")
            .append(String.format(Locale.ROOT, "%.3fs", t.lastDurationSeconds())).append("</td><td>")
            .append(esc(t.lastError())).append("</td></tr>\n");
      }
      sb.append("</table>\n");
    }
    if (byJob.isEmpty()) {
      sb.append("<p>No targets configured.</p>\n");
    }
    return sb.append("</body></html>\n").toString();
  }

  static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
