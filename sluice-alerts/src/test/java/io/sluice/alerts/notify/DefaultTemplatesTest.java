package io.sluice.alerts.notify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.alerts.types.Alert;
import io.sluice.alerts.types.Times;
import io.sluice.http.Json;
import io.sluice.kafka.testing.RequiredTool;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sluice's default templates against Alertmanager's own, rendered by {@code amtool template render} on the same data
 * (Debian's amtool is 0.25, whose default.tmpl holds these definitions as 0.28 does; Teams' are not in it, see
 * {@link TemplatesTest}). Text and HTML rendering alike, with values HTML must escape.
 */
class DefaultTemplatesTest {
  static final Instant NOW = Instant.parse("2026-11-18T12:00:00Z");
  /** The defaults of the chat and paging receivers, their parts, and what they are given. */
  static final List<String> CALLS = List.of("__subject .", "__alertmanagerURL .", "__text_alert_list .Alerts",
      "opsgenie.default.message .", "opsgenie.default.description .", "opsgenie.default.source .",
      "victorops.default.state_message .", "victorops.default.entity_display_name .",
      "victorops.default.monitoring_tool .", "pushover.default.title .", "pushover.default.message .",
      "pushover.default.url .", "telegram.default.message .", "discord.default.title .", "discord.default.message .",
      "webex.default.message .", "sns.default.message .", "pagerduty.default.instances .Alerts.Firing",
      "slack.default.fallback .");
  static final String SEPARATOR = "\n=====\n";

  /** Where Debian's package puts Alertmanager's default.tmpl (its amtool does not embed it). */
  static final Path DEBIAN_DEFAULTS = Path.of("/usr/share/prometheus/alertmanager/default.tmpl");

  static Path amtool;

  @BeforeAll
  static void tool() {
    amtool = RequiredTool.require("amtool", "Debian package prometheus-alertmanager");
    if (!Files.isReadable(DEBIAN_DEFAULTS)) {
      RequiredTool.missing(DEBIAN_DEFAULTS + " (Debian package prometheus-alertmanager)");
    }
  }

  static Alert alert(Map<String, String> labels, Map<String, String> annotations, boolean resolved) {
    return Alert.of(labels, annotations, NOW.minusSeconds(600), resolved ? NOW.minusSeconds(1) : NOW.plusSeconds(300),
        "http://prom:9090/graph?g0.expr=up+%3D%3D+0&x=<1>", NOW, false);
  }

  static TemplateData data(List<Alert> alerts) {
    return TemplateData.of("team x/ops", "{}:{alertname=\"ConnectHighLag\"}", Map.of("alertname", "ConnectHighLag"),
        alerts, "http://sluice.test:9093", NOW);
  }

  /** Firing only, firing and resolved, resolved only; a label that sorts before alertname; values HTML escapes. */
  static List<TemplateData> cases() {
    Alert orders = alert(Map.of("alertname", "ConnectHighLag", "agent", "a&b", "connector", "orders",
        "severity", "critical"), Map.of("summary", "lag > 5m", "runbook", "it's \"bad\" + worse"), false);
    Alert payments = alert(Map.of("alertname", "ConnectHighLag", "agent", "a&b", "connector", "payments",
        "severity", "critical"), Map.of("summary", "lag > 5m"), true);
    return List.of(data(List.of(orders)), data(List.of(orders, payments)), data(List.of(payments)));
  }

  @Test
  void textDefaultsAreAlertmanagers(@TempDir Path dir) throws Exception {
    for (TemplateData d : cases()) {
      List<String> ours = new ArrayList<>();
      for (String call : CALLS) {
        ours.add(Templates.DEFAULT.render(call(call), d));
      }
      assertEquals(render(dir, d, all(), false), String.join(SEPARATOR, ours), d.alerts().size() + " alerts");
    }
  }

  @Test
  void htmlEscapesWhatHtmlTemplateEscapes(@TempDir Path dir) throws Exception {
    String text = "<b>{{ .CommonLabels.agent }}</b> {{ \"<i>kept</i>\" | safeHtml }} {{ .Receiver | urlquery }}"
        + SEPARATOR + all();
    for (TemplateData d : cases()) {
      String ours = Templates.DEFAULT.renderHtml(text, d);
      assertTrue(ours.contains("<b>a&amp;b</b> <i>kept</i> team&#43;x%2Fops"), ours);
      assertEquals(render(dir, d, text, true), ours, d.alerts().size() + " alerts");
    }
  }

  private static String all() {
    return String.join(SEPARATOR, CALLS.stream().map(DefaultTemplatesTest::call).toList());
  }

  /** {@code {{ template "name" dot }}} of "name dot". */
  private static String call(String call) {
    String[] p = call.split(" ", 2);
    return "{{ template \"" + p[0] + "\" " + p[1] + " }}";
  }

  /** What amtool renders from {@code d} given as Alertmanager's template data. */
  private static String render(Path dir, TemplateData d, String text, boolean html) throws Exception {
    Path data = dir.resolve("data.json");
    Files.write(data, Json.write(json(d)));
    List<String> cmd = new ArrayList<>(List.of(amtool.toString(), "template", "render",
        "--template.glob=" + DEBIAN_DEFAULTS, "--template.data=" + data, "--template.text=" + text));
    if (html) {
      cmd.add("--template.type=html");
    }
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), out);
    return out;
  }

  private static Map<String, Object> json(TemplateData d) {
    List<Object> alerts = new ArrayList<>();
    for (Alert a : d.alerts()) {
      Map<String, Object> x = new LinkedHashMap<>();
      x.put("status", d.alertStatus(a));
      x.put("labels", a.labels());
      x.put("annotations", a.annotations());
      x.put("startsAt", Times.format(a.startsAt()));
      x.put("endsAt", Times.format(a.endsAt()));
      x.put("generatorURL", a.generatorURL());
      x.put("fingerprint", a.fingerprintHex());
      alerts.add(x);
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("receiver", d.receiver());
    m.put("status", d.status());
    m.put("alerts", alerts);
    m.put("groupLabels", d.groupLabels());
    m.put("commonLabels", d.commonLabels());
    m.put("commonAnnotations", d.commonAnnotations());
    m.put("externalURL", d.externalURL());
    return m;
  }
}
