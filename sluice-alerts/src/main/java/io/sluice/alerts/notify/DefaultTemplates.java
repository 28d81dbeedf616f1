package io.sluice.alerts.notify;

import io.sluice.alerts.types.Alert;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Alertmanager's default named templates (its default.tmpl), computed in Java with the exact output of Alertmanager's
 * definitions, white space included. A default built from others ({@code opsgenie.default.description} lists the alerts
 * with {@code __text_alert_list}) reaches them through {@link Parts}, so a template file that overrides a part changes
 * every default built on it, as in Alertmanager.
 */
final class DefaultTemplates {
  private DefaultTemplates() {}

  /** What a default is rendered in: the named templates it is built from, and how it prints a value of the data. */
  interface Parts {
    /** The named template {@code name} on {@code dot}, a template file's definition if there is one. */
    String execute(String name, Object dot);

    /** A value of the data as printed in this rendering: itself in a text, escaped in HTML. */
    String escape(String value);
  }

  /** Defaults that are nothing but another named template ({@code {{ template "__subject" . }}}). */
  private static final Map<String, String> CALLS = Map.ofEntries(
      Map.entry("slack.default.title", "__subject"),
      Map.entry("pagerduty.default.description", "__subject"),
      Map.entry("email.default.subject", "__subject"),
      Map.entry("webhook.default.title", "__subject"),
      Map.entry("opsgenie.default.message", "__subject"),
      Map.entry("victorops.default.entity_display_name", "__subject"),
      Map.entry("pushover.default.title", "__subject"),
      Map.entry("sns.default.subject", "__subject"),
      Map.entry("discord.default.title", "__subject"),
      Map.entry("msteams.default.title", "__subject"),
      Map.entry("msteams.default.summary", "__subject"),
      Map.entry("msteamsv2.default.title", "__subject"),
      Map.entry("slack.default.username", "__alertmanager"),
      Map.entry("pagerduty.default.client", "__alertmanager"),
      Map.entry("victorops.default.monitoring_tool", "__alertmanager"),
      Map.entry("slack.default.titlelink", "__alertmanagerURL"),
      Map.entry("pagerduty.default.clientURL", "__alertmanagerURL"),
      Map.entry("opsgenie.default.source", "__alertmanagerURL"),
      Map.entry("pushover.default.url", "__alertmanagerURL"),
      Map.entry("pagerduty.default.instances", "__text_alert_list"));

  /**
   * The default {@code name} on {@code dot}; null for a name that is none of them. Defaults read the notification's
   * data whatever dot they are given, except the alert lists, which list the alerts given.
   */
  static String render(String name, Object dot, TemplateData d, Parts p) {
    String called = CALLS.get(name);
    if (called != null) {
      return p.execute(called, dot);
    }
    return switch (name) {
      case "__alertmanager" -> "Alertmanager";
      case "__alertmanagerURL" -> p.escape(alertmanagerUrl(d));
      case "__subject" -> p.escape(subject(d));
      // The texts below have no character HTML escapes: escaping them whole escapes each value they print.
      case "__text_alert_list" -> p.escape(textAlertList(alertsOf(dot, d)));
      case "__text_alert_list_markdown" -> p.escape(markdownAlertList(alertsOf(dot, d)));
      case "__description", "slack.default.text", "slack.default.pretext", "slack.default.iconemoji",
          "slack.default.iconurl", "slack.default.footer", "slack.default.callbackid", "discord.default.content" -> "";
      case "slack.default.fallback" ->
          p.execute("slack.default.title", dot) + " | " + p.execute("slack.default.titlelink", dot);
      case "email.default.html" -> emailHtml(d, p.execute("__subject", dot), p.execute("__alertmanagerURL", dot));
      case "opsgenie.default.description", "victorops.default.state_message" -> p.escape(commonAnnotations(d))
          + "\n" + headed(d.firing(), "Alerts Firing:\n", p) + "\n" + headed(d.resolved(), "Alerts Resolved:\n", p);
      case "pushover.default.message", "webex.default.message", "sns.default.message" ->
          p.escape(commonAnnotations(d)) + sections(d, "__text_alert_list", "", p);
      case "telegram.default.message", "discord.default.message" -> sections(d, "__text_alert_list", "", p);
      case "msteams.default.text", "msteamsv2.default.text" -> sections(d, "__text_alert_list_markdown", "# ", p);
      default -> null;
    };
  }

  /** A heading and the text list of {@code alerts}, or nothing when there are none. */
  private static String headed(List<Alert> alerts, String heading, Parts p) {
    return alerts.isEmpty() ? "" : heading + p.execute("__text_alert_list", alerts);
  }

  /** The firing, then the resolved alerts, each block set off by blank lines, as the chat defaults lay them out. */
  private static String sections(TemplateData d, String list, String mark, Parts p) {
    StringBuilder b = new StringBuilder("\n");
    if (!d.firing().isEmpty()) {
      b.append('\n').append(mark).append("Alerts Firing:\n").append(p.execute(list, d.firing())).append('\n');
    }
    b.append('\n');
    if (!d.resolved().isEmpty()) {
      b.append('\n').append(mark).append("Alerts Resolved:\n").append(p.execute(list, d.resolved())).append('\n');
    }
    return b.append('\n').toString();
  }

  /** {@code .CommonAnnotations.SortedPairs.Values | join " "}. */
  private static String commonAnnotations(TemplateData d) {
    return String.join(" ", Templates.sortedPairs(d.commonAnnotations()).stream().map(Templates.Pair::value).toList());
  }

  static String subject(TemplateData d) {
    StringBuilder b = new StringBuilder("[").append(d.status().toUpperCase(Locale.ROOT));
    if (d.status().equals("firing")) {
      b.append(':').append(d.firing().size());
    }
    b.append("] ").append(values(d.groupLabels())).append(' ');
    if (d.commonLabels().size() > d.groupLabels().size()) {
      Map<String, String> rest = new java.util.TreeMap<>(d.commonLabels());
      rest.keySet().removeAll(d.groupLabels().keySet());
      b.append('(').append(values(rest)).append(')');
    }
    return b.toString();
  }

  /** {@code .SortedPairs.Values | join " "}: alertname first, as Alertmanager sorts pairs. */
  private static String values(Map<String, String> m) {
    return String.join(" ", Templates.sortedPairs(m).stream().map(Templates.Pair::value).toList());
  }

  static String alertmanagerUrl(TemplateData d) {
    return d.externalURL() + "/#/alerts?receiver=" + URLEncoder.encode(d.receiver(), StandardCharsets.UTF_8);
  }

  static String textAlertList(List<Alert> alerts) {
    StringBuilder b = new StringBuilder();
    for (Alert a : alerts) {
      b.append("Labels:\n");
      Templates.sortedPairs(a.labels()).forEach(x -> b.append(" - ").append(x.name()).append(" = ")
          .append(x.value()).append('\n'));
      b.append("Annotations:\n");
      Templates.sortedPairs(a.annotations()).forEach(x -> b.append(" - ").append(x.name()).append(" = ")
          .append(x.value()).append('\n'));
      b.append("Source: ").append(a.generatorURL()).append('\n');
    }
    return b.toString();
  }

  /** {@code __text_alert_list_markdown}: Teams' lists, with blank lines Markdown needs. */
  static String markdownAlertList(List<Alert> alerts) {
    StringBuilder b = new StringBuilder();
    for (Alert a : alerts) {
      b.append("\nLabels:\n");
      Templates.sortedPairs(a.labels()).forEach(x -> b.append("  - ").append(x.name()).append(" = ")
          .append(x.value()).append('\n'));
      b.append("\nAnnotations:\n");
      Templates.sortedPairs(a.annotations()).forEach(x -> b.append("  - ").append(x.name()).append(" = ")
          .append(x.value()).append('\n'));
      b.append("\nSource: ").append(a.generatorURL()).append('\n');
    }
    return b.append('\n').toString();
  }

  /** Alertmanager's email.default.html, with its {@code __subject} and {@code __alertmanagerURL} as rendered. */
  static String emailHtml(TemplateData d, String subject, String alertmanagerUrl) {
    StringBuilder b = new StringBuilder("<!DOCTYPE html><html><head><meta charset=\"UTF-8\"><title>")
        .append(esc(subject)).append("</title></head><body><h2>")
        .append(d.firing().size()).append(" alert").append(d.firing().size() == 1 ? "" : "s").append(" for ")
        .append(esc(String.join(" ", d.groupLabels().values()))).append("</h2><p><a href=\"")
        .append(esc(alertmanagerUrl)).append("\">View in Alertmanager</a></p>");
    for (String what : List.of("firing", "resolved")) {
      List<Alert> list = what.equals("firing") ? d.firing() : d.resolved();
      if (list.isEmpty()) {
        continue;
      }
      b.append("<h3>[").append(list.size()).append("] ").append(what.equals("firing") ? "Firing" : "Resolved")
          .append("</h3>");
      for (Alert a : list) {
        b.append("<p><strong>Labels</strong><br>");
        a.labels().forEach((k, v) -> b.append(esc(k)).append(" = ").append(esc(v)).append("<br>"));
        b.append("<strong>Annotations</strong><br>");
        a.annotations().forEach((k, v) -> b.append(esc(k)).append(" = ").append(esc(v)).append("<br>"));
        b.append("<a href=\"").append(esc(a.generatorURL())).append("\">Source</a></p>");
      }
    }
    return b.append("</body></html>").toString();
  }

  private static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }

  /** The alerts a list template was given: a list from a template holds any values. */
  private static List<Alert> alertsOf(Object dot, TemplateData d) {
    if (!(dot instanceof List<?> l)) {
      return d.alerts();
    }
    List<Alert> out = new ArrayList<>();
    for (Object o : l) {
      if (o instanceof Alert a) {
        out.add(a);
      }
    }
    return out;
  }
}
