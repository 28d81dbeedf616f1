package io.sluice.alerts.config;

import io.sluice.alerts.labels.Matcher;
import io.sluice.client.ClientOptions;
import io.sluice.client.Secret;
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
      String opsgenieApiUrl,
      Secret opsgenieApiKey,
      String victoropsApiUrl,
      Secret victoropsApiKey,
      String telegramApiUrl,
      String webexApiUrl,
      ClientOptions httpConfig) {}

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
   * The integrations Sluice sends to; a config naming any other Alertmanager kind is refused by the loader. Templated
   * fields hold the template text, rendered at each notification.
   */
  public sealed interface Integration permits HttpIntegration, Email {
    boolean sendResolved();

    /** Alertmanager's integration name, used in the notification log key and metrics. */
    String kind();
  }

  /**
   * An integration that speaks HTTP. Its {@code http_config} is Prometheus' common one ({@link io.sluice.client.HttpConfig}), as
   * every client in Sluice reads it; absent, the global one applies.
   */
  public sealed interface HttpIntegration extends Integration permits Webhook, Slack, PagerDuty, Discord, MsTeams,
      MsTeamsV2, OpsGenie, Telegram, Webex, Pushover, VictorOps {
    ClientOptions http();
  }

  public record Webhook(boolean sendResolved, Secret url, int maxAlerts, ClientOptions http)
      implements HttpIntegration {
    public String kind() {
      return "webhook";
    }
  }

  public record Slack(
      boolean sendResolved, Secret apiUrl, String channel, String username, String color, String title,
      String titleLink, String pretext, String text, String fallback, String iconEmoji, String iconUrl,
      ClientOptions http) implements HttpIntegration {
    public String kind() {
      return "slack";
    }
  }

  public record PagerDuty(
      boolean sendResolved, Secret routingKey, String url, String client, String clientUrl, String description,
      String severity, String eventClass, String component, String group, Map<String, String> details,
      ClientOptions http) implements HttpIntegration {
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

  /** A Discord channel webhook: one embed, and {@code content} above it when set. */
  public record Discord(
      boolean sendResolved, Secret webhookUrl, String content, String title, String message, String username,
      String avatarUrl, ClientOptions http) implements HttpIntegration {
    public String kind() {
      return "discord";
    }
  }

  /** A Microsoft Teams incoming webhook (Office 365 connector): a MessageCard. */
  public record MsTeams(
      boolean sendResolved, Secret webhookUrl, String title, String summary, String text, ClientOptions http)
      implements HttpIntegration {
    public String kind() {
      return "msteams";
    }
  }

  /** A Microsoft Teams Workflows (Power Automate) webhook: an Adaptive Card. */
  public record MsTeamsV2(boolean sendResolved, Secret webhookUrl, String title, String text, ClientOptions http)
      implements HttpIntegration {
    public String kind() {
      return "msteamsv2";
    }
  }

  /** Opsgenie's Alert API v2; {@code apiUrl} ends with a slash. */
  public record OpsGenie(
      boolean sendResolved, Secret apiKey, String apiUrl, String message, String description, String source,
      Map<String, String> details, String entity, List<Responder> responders, String actions, String tags,
      String note, String priority, boolean updateAlerts, ClientOptions http) implements HttpIntegration {
    public String kind() {
      return "opsgenie";
    }
  }

  /** An Opsgenie responder; every field is a template, {@code type} lower-cased when it is not one. */
  public record Responder(String id, String name, String username, String type) {}

  /** The Telegram Bot API's sendMessage. */
  public record Telegram(
      boolean sendResolved, String apiUrl, Secret botToken, long chatId, int messageThreadId, String message,
      boolean disableNotifications, String parseMode, ClientOptions http) implements HttpIntegration {
    public String kind() {
      return "telegram";
    }
  }

  /** Webex's messages API; the bot's token is the {@code http_config}'s authorization. */
  public record Webex(boolean sendResolved, String apiUrl, String message, String roomId, ClientOptions http)
      implements HttpIntegration {
    public String kind() {
      return "webex";
    }
  }

  /** Pushover's messages API; {@code apiUrl} is Pushover's own (Alertmanager has no key for it). */
  public record Pushover(
      boolean sendResolved, Secret userKey, Secret token, String apiUrl, String title, String message, String url,
      String urlTitle, String device, String sound, String priority, Duration retry, Duration expire, Duration ttl,
      boolean html, ClientOptions http) implements HttpIntegration {
    public String kind() {
      return "pushover";
    }
  }

  /** VictorOps' (Splunk On-Call) REST endpoint; {@code apiUrl} ends with a slash. */
  public record VictorOps(
      boolean sendResolved, Secret apiKey, String apiUrl, String routingKey, String messageType, String stateMessage,
      String entityDisplayName, String monitoringTool, Map<String, String> customFields, ClientOptions http)
      implements HttpIntegration {
    public String kind() {
      return "victorops";
    }
  }
}
