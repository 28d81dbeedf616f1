package io.sluice.alerts.notify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.sluice.alerts.types.Alert;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TemplatesTest {
  static final Instant NOW = Instant.parse("2026-11-18T12:00:00Z");

  static TemplateData data() {
    Alert firing = Alert.of(Map.of("alertname", "ConnectHighLag", "connector", "orders", "severity", "critical"),
        Map.of("summary", "lag 5m"), NOW.minusSeconds(60), NOW.plusSeconds(300), "http://prom", NOW, false);
    Alert resolved = Alert.of(Map.of("alertname", "ConnectHighLag", "connector", "payments", "severity", "critical"),
        Map.of(), NOW.minusSeconds(600), NOW.minusSeconds(1), "", NOW, false);
    return TemplateData.of("paging", "{}:{alertname=\"ConnectHighLag\"}", Map.of("alertname", "ConnectHighLag"),
        List.of(firing, resolved), "http://am", NOW);
  }

  @Test
  void defaultSubjectMatchesAlertmanager() {
    assertEquals("[FIRING:1] ConnectHighLag (critical)", DefaultTemplates.subject(data()));
  }

  @Test
  void controlStructuresAndFunctions() {
    Templates t = Templates.load(List.of("""
        {{ define "x" }}{{ range .Alerts }}{{ if eq .Status "firing" }}F{{ else if eq .Labels.connector "payments" }}P{{ else }}?{{ end }}{{ end }}{{ end }}
        """));
    TemplateData d = data();
    assertEquals("FP", t.render("{{ template \"x\" . }}", d));
    assertEquals("orders", t.render("{{ with .Alerts.Firing }}{{ range . }}{{ .Labels.connector }}{{ end }}{{ else }}none{{ end }}", d));
    assertEquals("none", t.render("{{ with .CommonAnnotations.nothing }}x{{ else }}none{{ end }}", d));
    assertEquals("empty", t.render("{{ range .CommonAnnotations }}x{{ else }}empty{{ end }}", d));
    assertEquals("Connect-HighLag", t.render("{{ reReplaceAll \"(Connect)(.*)\" \"$1-$2\" .CommonLabels.alertname }}", d));
    assertEquals("2 RESOLVED? no", t.render("{{ .Alerts | len }} {{ \"resolved\" | toUpper }}? {{ if and (eq .Status \"resolved\") true }}yes{{ else }}no{{ end }}", d));
    assertEquals("critical", t.render("{{ .CommonLabels.severity }}", d));
    assertThrows(IllegalArgumentException.class, () -> Templates.load(List.of("{{ define \"y\" }}{{ if .Status }}")));
  }

  @Test
  void userDefinitionsOverrideDefaultsAndCallThem() {
    TemplateData d = data();
    assertEquals("[FIRING:1] ConnectHighLag (critical)", Templates.DEFAULT.render("{{ template \"slack.default.title\" . }}", d));
    Templates t = Templates.load(List.of(
        "{{ define \"slack.default.title\" }}custom: {{ template \"__subject\" . }}{{ end }}",
        "{{ define \"cdc.pairs\" }}{{ range .SortedPairs }}{{ .Name }}={{ .Value }};{{ end }}{{ end }}"));
    assertEquals("custom: [FIRING:1] ConnectHighLag (critical)", t.render("{{ template \"slack.default.title\" . }}", d));
    assertEquals("alertname=ConnectHighLag;severity=critical;", t.render("{{ template \"cdc.pairs\" .CommonLabels }}", d));
    assertThrows(IllegalArgumentException.class, () -> t.render("{{ template \"nope\" . }}", d));
  }

  @Test
  void alertmanagerDataModel() {
    TemplateData d = data();
    Templates t = Templates.DEFAULT;
    assertEquals("[alertname severity] [ConnectHighLag critical]", t.render("{{ .CommonLabels.Names }} {{ .CommonLabels.Values }}", d));
    assertEquals("[alertname connector]",
        t.render("{{ ((index .Alerts 0).Labels.Remove (stringSlice \"severity\")).Names }}", d));
    assertEquals("1 1 firing resolved", t.render("{{ len .Alerts.Firing }} {{ .Alerts.Resolved | len }} {{ range .Alerts }}{{ .Status }} {{ end }}", d).strip());
    assertEquals("alertname, connector, severity", t.render("{{ join \", \" (index .Alerts 0).Labels.SortedPairs.Names }}", d));
    assertEquals("paging http://am", t.render("{{ .Receiver }} {{ .ExternalURL }}", d));
    assertEquals("alertname=ConnectHighLag, severity=critical", t.render("{{ .CommonLabels.SortedPairs }}", d),
        "Pairs prints itself as Alertmanager's String method does");
    assertEquals("{alertname ConnectHighLag}", t.render("{{ index .CommonLabels.SortedPairs 0 }}", d));
    assertEquals("", t.render("{{ .CommonAnnotations.SortedPairs }}", d));
    assertEquals("", t.render("{{ .CommonLabels.nothing }}", d), "a missing label is empty, as Alertmanager's missingkey=zero");
    assertThrows(IllegalArgumentException.class, () -> t.render("{{ .NoSuchField }}", d));
  }

  @Test
  void defaultsBuiltOnSubjectFollowItsOverride() {
    TemplateData d = data();
    Templates t = Templates.load(List.of("{{ define \"__subject\" }}{{ .Status }} of {{ .CommonLabels.alertname }}{{ end }}",
        "{{ define \"__alertmanagerURL\" }}https://alerts.example{{ end }}"));
    assertEquals("firing of ConnectHighLag", t.render("{{ template \"slack.default.title\" . }}", d));
    assertEquals("firing of ConnectHighLag", t.render("{{ template \"email.default.subject\" . }}", d));
    assertEquals("firing of ConnectHighLag", t.render("{{ template \"pagerduty.default.description\" . }}", d));
    assertEquals("firing of ConnectHighLag | https://alerts.example",
        t.render("{{ template \"slack.default.fallback\" . }}", d));
    String html = t.render("{{ template \"email.default.html\" . }}", d);
    assertEquals(true, html.contains("<title>firing of ConnectHighLag</title>") && html.contains("href=\"https://alerts.example\""),
        html);
    assertEquals("[FIRING:1] ConnectHighLag (critical) | http://am/#/alerts?receiver=paging",
        Templates.DEFAULT.render("{{ template \"slack.default.fallback\" . }}", d));
  }

  /** Teams' Markdown list, as Alertmanager 0.28's default.tmpl renders it (checked with amtool template render). */
  @Test
  void teamsDefaultsListTheAlertsInMarkdown() {
    TemplateData d = data();
    String firing = "\nLabels:\n  - alertname = ConnectHighLag\n  - connector = orders\n  - severity = critical\n"
        + "\nAnnotations:\n  - summary = lag 5m\n\nSource: http://prom\n\n";
    String resolved = "\nLabels:\n  - alertname = ConnectHighLag\n  - connector = payments\n  - severity = critical\n"
        + "\nAnnotations:\n\nSource: \n\n";
    String text = "\n\n# Alerts Firing:\n" + firing + "\n\n\n# Alerts Resolved:\n" + resolved + "\n\n";
    assertEquals(text, Templates.DEFAULT.render("{{ template \"msteams.default.text\" . }}", d));
    assertEquals(text, Templates.DEFAULT.render("{{ template \"msteamsv2.default.text\" . }}", d));
    assertEquals("[FIRING:1] ConnectHighLag (critical)",
        Templates.DEFAULT.render("{{ template \"msteams.default.summary\" . }}", d));
  }

  @Test
  void htmlRenderingEscapesValuesNotTheTemplate() {
    TemplateData d = data();
    Templates t = Templates.load(List.of("{{ define \"cdc.item\" }}<i>{{ . }}</i>{{ end }}"));
    assertEquals("<b>a&lt;b &amp; c&#43;d</b> <i>&#39;q&#39;</i> <u>raw</u>",
        t.renderHtml("<b>{{ \"a<b & c+d\" }}</b> {{ template \"cdc.item\" \"'q'\" }} {{ \"<u>raw</u>\" | safeHtml }}",
            d));
    assertEquals("<b>a<b</b>", t.render("<b>{{ \"a<b\" }}</b>", d), "a text is not escaped");
    assertEquals("a&lt;b", Templates.load(List.of("{{ define \"__subject\" }}{{ \"a<b\" }}{{ end }}"))
        .renderHtml("{{ template \"opsgenie.default.message\" . }}", d), "an override of a part is escaped once");
  }
}
