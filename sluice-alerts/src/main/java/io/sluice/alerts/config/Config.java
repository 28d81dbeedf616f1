package io.sluice.alerts.config;

import io.sluice.alerts.labels.Matcher;
import io.sluice.http.client.HttpClientConfig;
import io.sluice.http.client.Secret;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A parsed and validated Alertmanager configuration. Route values are already inherited from the parents, as
 * Alertmanager does when it builds its route tree. {@code maskedYaml} is the file as loaded with every secret replaced
 * by {@code <secret>}: what the status API and UI show.
 */
public record Config(
    Global global,
    Route route,
    List<InhibitRule> inhibitRules,
    List<Receiver> receivers,
    Map<String, List<TimeInterval>> timeIntervals,
    List<String> templates,
    List<String> templateTexts,
    String maskedYaml) {

  public Optional<Receiver> receiver(String name) {
    return receivers.stream().filter(r -> r.name().equals(name)).findFirst();
  }

  public record Global(
      Duration resolveTimeout,
      String smtpFrom,
      String smtpHello,
      String smtpSmarthost,
      String smtpAuthUsername,
      Secret smtpAuthPassword,
      String smtpAuthIdentity,
      boolean smtpRequireTls,
      Secret slackApiUrl,
      String pagerdutyUrl,
      HttpClientConfig httpConfig) {}

  public record Route(
      String receiver,
      List<String> groupBy,
      boolean groupByAll,
      List<Matcher> matchers,
      boolean continueMatching,
      Duration groupWait,
      Duration groupInterval,
      Duration repeatInterval,
      List<String> muteTimeIntervals,
      List<String> activeTimeIntervals,
      List<Route> routes) {}

  public record InhibitRule(List<Matcher> sourceMatchers, List<Matcher> targetMatchers, List<String> equal) {}

  public record Receiver(String name, List<Integration> integrations) {}

  /**
   * The integrations Sluice sends to; a config naming any other Alertmanager kind is refused by the loader. Each HTTP
   * integration's {@code http_config} is Prometheus' common one ({@link HttpClientConfig}), as every client in Sluice
   * reads it.
   */
  public sealed interface Integration permits Webhook, Slack, PagerDuty, Email {
    boolean sendResolved();

    /** Alertmanager's integration name, used in the notification log key and metrics. */
    String kind();
  }

  public record Webhook(boolean sendResolved, Secret url, int maxAlerts, HttpClientConfig http) implements Integration {
    public String kind() {
      return "webhook";
    }
  }

  public record Slack(
      boolean sendResolved, Secret apiUrl, String channel, String username, String color, String title,
      String titleLink, String pretext, String text, String fallback, String iconEmoji, String iconUrl,
      HttpClientConfig http) implements Integration {
    public String kind() {
      return "slack";
    }
  }

  public record PagerDuty(
      boolean sendResolved, Secret routingKey, String url, String client, String clientUrl, String description,
      String severity, String eventClass, String component, String group, Map<String, String> details,
      HttpClientConfig http) implements Integration {
    public String kind() {
      return "pagerduty";
    }
  }

  public record Email(
      boolean sendResolved, String to, String from, String hello, String smarthost, String authUsername,
      Secret authPassword, String authIdentity, boolean requireTls, Map<String, String> headers, String html,
      String text) implements Integration {
    public String kind() {
      return "email";
    }
  }
}
