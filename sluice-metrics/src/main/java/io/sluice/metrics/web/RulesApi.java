package io.sluice.metrics.web;

import io.sluice.http.HttpRequest;
import io.sluice.http.HttpResponse;
import io.sluice.http.HttpServer;
import io.sluice.gofmt.GoFloat;
import io.sluice.metrics.rules.Alert;
import io.sluice.metrics.rules.AlertingRule;
import io.sluice.metrics.rules.Group;
import io.sluice.metrics.rules.RecordingRule;
import io.sluice.metrics.rules.Rule;
import io.sluice.metrics.rules.Ruler;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * {@code /api/v1/rules}, {@code /api/v1/alerts}, {@code POST /-/reload} and the {@code /alerts} page, in the shapes
 * of Prometheus 2.x.
 */
public final class RulesApi {
  private final Ruler ruler;
  private final Runnable reload;
  private final Supplier<List<String>> alertmanagers;

  /**
   * {@code reload} re-reads configuration and rules and throws with the reason when it refuses them;
   * {@code alertmanagers} gives the URLs alerts are posted to.
   */
  public RulesApi(Ruler ruler, Runnable reload, Supplier<List<String>> alertmanagers) {
    this.ruler = ruler;
    this.reload = reload;
    this.alertmanagers = alertmanagers;
  }

  public HttpServer.Builder register(HttpServer.Builder b) {
    return b.get("/api/v1/rules", this::rules)
        .get("/api/v1/alerts", this::alerts)
        .get("/api/v1/alertmanagers", r -> {
          List<Map<String, String>> active = new ArrayList<>();
          for (String u : alertmanagers.get()) {
            active.add(Map.of("url", u));
          }
          return HttpResponse.json(200, Map.of("status", "success", "data", Map.of("activeAlertmanagers", active,
              "droppedAlertmanagers", List.of())));
        })
        .post("/-/reload", this::reload).put("/-/reload", this::reload)
        .get("/alerts", r -> HttpResponse.text(200, "text/html; charset=utf-8", AlertsPage.render(ruler.groups())));
  }

  private HttpResponse reload(HttpRequest r) {
    try {
      reload.run();
    } catch (RuntimeException e) {
      return HttpResponse.text(500, "text/plain; charset=utf-8", "failed to reload config: " + e.getMessage()
          + "\n");
    }
    return HttpResponse.empty(200);
  }

  private HttpResponse rules(HttpRequest r) {
    String type = r.param("type").orElse("").toLowerCase(Locale.ROOT);
    if (!type.isEmpty() && !type.equals("alert") && !type.equals("record")) {
      throw Api.badData("invalid query parameter type='" + type + "'");
    }
    List<String> names = r.params("rule_name[]");
    List<String> groupNames = r.params("rule_group[]");
    List<String> files = r.params("file[]");
    List<Map<String, Object>> groups = new ArrayList<>();
    for (Group g : ruler.groups()) {
      if ((!groupNames.isEmpty() && !groupNames.contains(g.name())) || (!files.isEmpty() && !files.contains(
          g.file()))) {
        continue;
      }
      List<Map<String, Object>> rules = new ArrayList<>();
      for (Rule rule : g.rules()) {
        if (!names.isEmpty() && !names.contains(rule.name())) {
          continue;
        }
        Rule.Evaluation ev = rule.lastEvaluation();
        Map<String, Object> m = new LinkedHashMap<>();
        if (rule instanceof AlertingRule a) {
          if (type.equals("record")) {
            continue;
          }
          m.put("state", a.state().apiName());
          m.put("name", a.name());
          m.put("query", a.expr().toString());
          m.put("duration", a.holdMillis() / 1000.0);
          m.put("keepFiringFor", a.keepFiringForMillis() / 1000.0);
          m.put("labels", new TreeMap<>(a.labels()));
          m.put("annotations", new TreeMap<>(a.annotations()));
          m.put("alerts", alertsJson(a.activeAlerts()));
        } else if (rule instanceof RecordingRule rr) {
          if (type.equals("alert")) {
            continue;
          }
          m.put("name", rr.name());
          m.put("query", rr.expr().toString());
          if (!rr.labels().isEmpty()) {
            m.put("labels", new TreeMap<>(rr.labels()));
          }
        }
        m.put("health", ev.health());
        if (!ev.lastError().isEmpty()) {
          m.put("lastError", ev.lastError());
        }
        m.put("evaluationTime", ev.durationSeconds());
        m.put("lastEvaluation", time(ev.timestampMillis()));
        m.put("type", rule instanceof AlertingRule ? "alerting" : "recording");
        rules.add(m);
      }
      if (!type.isEmpty() && rules.isEmpty()) {
        continue;
      }
      Map<String, Object> gm = new LinkedHashMap<>();
      gm.put("name", g.name());
      gm.put("file", g.file());
      gm.put("rules", rules);
      gm.put("interval", g.intervalMillis() / 1000.0);
      gm.put("limit", g.limit());
      gm.put("evaluationTime", g.lastDurationSeconds());
      gm.put("lastEvaluation", time(g.lastEvaluation()));
      groups.add(gm);
    }
    return HttpResponse.json(200, Map.of("status", "success", "data", Map.of("groups", groups)));
  }

  private HttpResponse alerts(HttpRequest r) {
    return HttpResponse.json(200, Map.of("status", "success", "data", Map.of("alerts", alertsJson(ruler.alerts()))));
  }

  static List<Map<String, Object>> alertsJson(List<Alert> alerts) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Alert a : alerts) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("labels", a.labels().toMap());
      m.put("annotations", new TreeMap<>(a.annotations()));
      m.put("state", a.state().apiName());
      m.put("activeAt", time(a.activeAt()));
      m.put("value", GoFloat.formatE(a.value()));
      out.add(m);
    }
    return out;
  }

  /** Go's RFC 3339 with nanoseconds, trailing zeros dropped; the zero time before anything happened. */
  static String time(long millis) {
    if (millis == 0) {
      return "0001-01-01T00:00:00Z";
    }
    return DateTimeFormatter.ISO_INSTANT.format(Instant.ofEpochMilli(millis));
  }
}
