package io.sluice.alerts.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import io.sluice.alerts.labels.Matcher;
import io.sluice.gofmt.GoDuration;
import io.sluice.alerts.labels.Matchers;
import io.sluice.client.ClientOptions;
import io.sluice.client.HttpConfig;
import io.sluice.client.Secret;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Parses and validates an Alertmanager YAML file; does nothing else. Problems are collected, not thrown one at a
 * time, so {@code check-config} can list them all. Messages follow Alertmanager's where one exists.
 */
public final class ConfigLoader {
  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory()
      .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
      .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES));

  private static final Set<String> TOP = Set.of("global", "route", "inhibit_rules", "receivers", "templates",
      "time_intervals", "mute_time_intervals");
  private static final Set<String> ROUTE = Set.of("receiver", "group_by", "match", "match_re", "matchers",
      "continue", "group_wait", "group_interval", "repeat_interval", "mute_time_intervals", "active_time_intervals",
      "routes");
  /**
   * Every integration Sluice sends to, in the order a receiver's integrations are built: its section, the keys that
   * section may hold (any other is refused, as Alertmanager's strict YAML refuses it), the keys that are secrets in
   * this kind only, and the parser of one entry. A new kind is one entry here, beside its record in {@link Config} and
   * its sender.
   */
  static final List<Kind<?>> KINDS = List.of(
      new Kind<>("webhook", Config.Webhook.class, http("url", "url_file", "max_alerts"), Set.of("url"),
          ConfigLoader::webhook),
      new Kind<>("slack", Config.Slack.class, http("api_url", "api_url_file", "channel", "username", "color", "title",
          "title_link", "pretext", "text", "fallback", "icon_emoji", "icon_url"), Set.of("api_url"),
          ConfigLoader::slack),
      new Kind<>("pagerduty", Config.PagerDuty.class, http("routing_key", "routing_key_file", "service_key",
          "service_key_file", "url", "client", "client_url", "description", "details", "severity", "class",
          "component", "group"), Set.of("routing_key"), ConfigLoader::pagerDuty),
      // Mail has no http_config, in Alertmanager either.
      new Kind<>("email", Config.Email.class, Set.of("send_resolved", "to", "from", "hello", "smarthost",
          "auth_username", "auth_password", "auth_password_file", "auth_identity", "require_tls", "headers", "html",
          "text"), Set.of(), ConfigLoader::email),
      new Kind<>("discord", Config.Discord.class, http("webhook_url", "webhook_url_file", "content", "title",
          "message", "username", "avatar_url"), Set.of(), ConfigLoader::discord),
      new Kind<>("msteams", Config.MsTeams.class, http("webhook_url", "webhook_url_file", "title", "summary", "text"),
          Set.of(), ConfigLoader::msTeams),
      new Kind<>("msteamsv2", Config.MsTeamsV2.class, http("webhook_url", "webhook_url_file", "title", "text"),
          Set.of(), ConfigLoader::msTeamsV2),
      new Kind<>("opsgenie", Config.OpsGenie.class, http("api_key", "api_key_file", "api_url", "message",
          "description", "source", "details", "entity", "responders", "actions", "tags", "note", "priority",
          "update_alerts"), Set.of(), ConfigLoader::opsGenie),
      new Kind<>("telegram", Config.Telegram.class, http("api_url", "bot_token", "bot_token_file", "chat_id",
          "message_thread_id", "message", "disable_notifications", "parse_mode"), Set.of(), ConfigLoader::telegram),
      new Kind<>("webex", Config.Webex.class, http("api_url", "message", "room_id"), Set.of(), ConfigLoader::webex),
      new Kind<>("pushover", Config.Pushover.class, http("user_key", "user_key_file", "token", "token_file", "title",
          "message", "url", "url_title", "device", "sound", "priority", "retry", "expire", "ttl", "html"), Set.of(),
          ConfigLoader::pushover),
      new Kind<>("victorops", Config.VictorOps.class, http("api_key", "api_key_file", "api_url", "routing_key",
          "message_type", "state_message", "entity_display_name", "monitoring_tool", "custom_fields"), Set.of(),
          ConfigLoader::victorOps));
  /** Alertmanager's integrations that Sluice cannot send to: a receiver naming one is refused. */
  private static final List<String> UNSUPPORTED_KINDS = List.of("wechat_configs", "sns_configs", "jira_configs",
      "rocketchat_configs", "incidentio_configs");
  /** The integrations Sluice sends to, in the order an error lists them. */
  static final List<String> SUPPORTED_KINDS = KINDS.stream().map(Kind::section).sorted().toList();
  /** Keys holding one of Alertmanager's {@code Secret}s or {@code SecretURL}s wherever they are. */
  private static final Set<String> SECRET_KEYS = Set.of("slack_api_url", "service_key", "smtp_auth_password",
      "smtp_auth_secret", "auth_password", "auth_secret", "password", "credentials", "bearer_token", "api_key",
      "token", "token_id", "bot_token", "webhook_url", "secrets", "opsgenie_api_key", "victorops_api_key",
      "wechat_api_secret", "api_secret", "rocketchat_token", "rocketchat_token_id", "user_key", "client_secret",
      "secret_key");
  private static final String PUSHOVER_API_URL = "https://api.pushover.net/1/messages.json";
  private static final Pattern OPSGENIE_RESPONDER_TYPE = Pattern.compile("^(team|teams|user|escalation|schedule)$");
  private static final Set<String> VICTOROPS_RESERVED = Set.of("routing_key", "message_type", "state_message",
      "entity_display_name", "monitoring_tool", "entity_id", "entity_state");
  private static final Pattern HHMM = Pattern.compile("^([01]?\\d|2[0-4]):([0-5]\\d)$");
  private static final List<String> WEEKDAYS =
      List.of("sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday");
  private static final List<String> MONTHS = List.of("january", "february", "march", "april", "may", "june", "july",
      "august", "september", "october", "november", "december");

  private final List<String> errors = new ArrayList<>();
  private final Path baseDir;
  private final Map<String, String> env;

  private ConfigLoader(Path baseDir, Map<String, String> env) {
    this.baseDir = baseDir;
    this.env = env;
  }

  public static Config loadFile(Path file) throws ConfigException {
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      throw new ConfigException(List.of("cannot read " + file + ": " + e.getMessage()));
    }
    Path dir = file.toAbsolutePath().getParent();
    return parse(text, dir, System.getenv());
  }

  /** Parses YAML text; relative {@code *_file} paths resolve against {@code baseDir}, as Alertmanager does. */
  public static Config parse(String yaml, Path baseDir, Map<String, String> env) throws ConfigException {
    JsonNode root;
    try {
      root = YAML.readTree(yaml);
    } catch (IOException e) {
      throw new ConfigException(List.of("yaml: " + e.getMessage().lines().findFirst().orElse("parse error")));
    }
    if (root == null || root.isMissingNode() || root.isNull()) {
      root = YAML.createObjectNode();
    }
    if (!root.isObject()) {
      throw new ConfigException(List.of("yaml: the configuration must be a mapping"));
    }
    ConfigLoader l = new ConfigLoader(baseDir, env);
    Config c = l.config((ObjectNode) root);
    if (!l.errors.isEmpty()) {
      throw new ConfigException(l.errors);
    }
    return c;
  }

  private Config config(ObjectNode root) {
    unknown(root, TOP, "config");
    Config.Global global = global(root.path("global"));

    Map<String, List<TimeInterval>> intervals = new LinkedHashMap<>();
    for (String key : List.of("mute_time_intervals", "time_intervals")) {
      for (JsonNode ti : list(root.path(key), key)) {
        String name = ti.path("name").asText("");
        if (name.isEmpty()) {
          errors.add("missing name in time interval");
          continue;
        }
        if (intervals.containsKey(name)) {
          errors.add("time interval \"" + name + "\" is not unique");
          continue;
        }
        List<TimeInterval> specs = new ArrayList<>();
        for (JsonNode spec : list(ti.path("time_intervals"), "time_intervals")) {
          specs.add(timeInterval(spec, name));
        }
        intervals.put(name, List.copyOf(specs));
      }
    }

    List<Config.Receiver> receivers = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (JsonNode r : list(root.path("receivers"), "receivers")) {
      String name = r.path("name").asText("");
      if (name.isEmpty()) {
        errors.add("missing name in receiver");
        continue;
      }
      if (!names.add(name)) {
        errors.add("notification config name \"" + name + "\" is not unique");
        continue;
      }
      receivers.add(receiver(r, name, global));
    }

    JsonNode routeNode = root.path("route");
    Config.Route route = null;
    if (!routeNode.isObject()) {
      errors.add("no routes provided");
    } else {
      if (routeNode.path("receiver").asText("").isEmpty()) {
        errors.add("root route must specify a default receiver");
      }
      if (routeNode.has("match") || routeNode.has("match_re") || routeNode.has("matchers")) {
        errors.add("root route must not have any matchers");
      }
      if (routeNode.has("mute_time_intervals")) {
        errors.add("root route must not have any mute time intervals");
      }
      if (routeNode.has("active_time_intervals")) {
        errors.add("root route must not have any active time intervals");
      }
      Config.Route defaults = new Config.Route("", List.of(), false, List.of(), false, Duration.ofSeconds(30),
          Duration.ofMinutes(5), Duration.ofHours(4), List.of(), List.of(), List.of());
      route = route(routeNode, defaults, names, intervals.keySet());
    }

    List<Config.InhibitRule> inhibit = new ArrayList<>();
    for (JsonNode r : list(root.path("inhibit_rules"), "inhibit_rules")) {
      unknown(r, Set.of("source_match", "source_match_re", "source_matchers", "target_match", "target_match_re",
          "target_matchers", "equal"), "inhibit rule");
      List<Matcher> src = matchers(r, "source_match", "source_match_re", "source_matchers");
      List<Matcher> tgt = matchers(r, "target_match", "target_match_re", "target_matchers");
      List<String> equal = new ArrayList<>();
      for (JsonNode e : list(r.path("equal"), "equal")) {
        if (!Matchers.validLabelName(e.asText())) {
          errors.add("invalid label name \"" + e.asText() + "\" in equal list");
        }
        equal.add(e.asText());
      }
      inhibit.add(new Config.InhibitRule(src, tgt, List.copyOf(equal)));
    }

    List<String> templates = new ArrayList<>();
    List<String> texts = new ArrayList<>();
    for (JsonNode t : list(root.path("templates"), "templates")) {
      templates.add(t.asText());
      texts.addAll(templateFiles(t.asText()));
    }
    return new Config(global, route, List.copyOf(inhibit), List.copyOf(receivers), Map.copyOf(intervals),
        List.copyOf(templates), List.copyOf(texts), masked(root));
  }

  /** The contents of the files a {@code templates:} glob matches; the glob applies to the file name only. */
  private List<String> templateFiles(String pattern) {
    Path p = resolve(pattern);
    Path dir = p.getParent() == null ? Path.of(".") : p.getParent();
    java.nio.file.PathMatcher m = dir.getFileSystem().getPathMatcher("glob:" + p.getFileName());
    List<String> out = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return out;
    }
    try (var files = Files.list(dir)) {
      for (Path f : files.sorted().toList()) {
        if (m.matches(f.getFileName()) && Files.isRegularFile(f)) {
          out.add(Files.readString(f));
        }
      }
    } catch (IOException e) {
      errors.add("cannot read templates " + pattern + ": " + e.getMessage());
    }
    return out;
  }

  private Config.Global global(JsonNode g) {
    unknown(g, Set.of("resolve_timeout", "smtp_from", "smtp_hello", "smtp_smarthost", "smtp_auth_username",
        "smtp_auth_password", "smtp_auth_password_file", "smtp_auth_secret", "smtp_auth_identity",
        "smtp_require_tls", "smtp_tls_config", "slack_api_url", "slack_api_url_file", "pagerduty_url", "http_config",
        "opsgenie_api_url", "opsgenie_api_key", "opsgenie_api_key_file", "wechat_api_url", "wechat_api_secret",
        "wechat_api_corp_id", "victorops_api_url", "victorops_api_key", "victorops_api_key_file", "telegram_api_url",
        "webex_api_url", "jira_api_url", "rocketchat_api_url", "rocketchat_token", "rocketchat_token_id"),
        "global");
    for (String key : List.of("slack_api_url", "opsgenie_api_key", "victorops_api_key", "smtp_auth_password")) {
      atMostOne(g, key, key + "_file");
    }
    return new Config.Global(
        duration(g, "resolve_timeout", Duration.ofMinutes(5)),
        g.path("smtp_from").asText(""),
        g.path("smtp_hello").asText("localhost"),
        g.path("smtp_smarthost").asText(""),
        g.path("smtp_auth_username").asText(""),
        secret(g, "smtp_auth_password").orElse(null),
        g.path("smtp_auth_identity").asText(""),
        g.path("smtp_require_tls").asBoolean(true),
        secret(g, "slack_api_url").orElse(null),
        g.path("pagerduty_url").asText("https://events.pagerduty.com/v2/enqueue"),
        url(g, "opsgenie_api_url", "https://api.opsgenie.com/"),
        secret(g, "opsgenie_api_key").orElse(null),
        url(g, "victorops_api_url", "https://alert.victorops.com/integrations/generic/20131114/alert/"),
        secret(g, "victorops_api_key").orElse(null),
        url(g, "telegram_api_url", "https://api.telegram.org"),
        url(g, "webex_api_url", "https://webexapis.com/v1/messages"),
        httpConfig(g.path("http_config")));
  }

  private Config.Route route(JsonNode n, Config.Route parent, Set<String> receivers, Set<String> intervals) {
    unknown(n, ROUTE, "route");
    String receiver = n.path("receiver").asText(parent.receiver());
    if (!receiver.isEmpty() && !receivers.contains(receiver)) {
      errors.add("undefined receiver \"" + receiver + "\" used in route");
    }
    List<String> groupBy = parent.groupBy();
    boolean all = parent.groupByAll();
    if (n.has("group_by")) {
      groupBy = new ArrayList<>();
      all = false;
      Set<String> seen = new HashSet<>();
      List<JsonNode> items = list(n.path("group_by"), "group_by");
      for (JsonNode gb : items) {
        String l = gb.asText();
        if (l.equals("...")) {
          if (items.size() > 1) {
            errors.add("cannot have wildcard group_by (`...`) and other other labels at the same time");
          }
          all = true;
          continue;
        }
        if (!Matchers.validLabelName(l)) {
          errors.add("invalid label name \"" + l + "\" in group_by list");
        }
        if (!seen.add(l)) {
          errors.add("duplicated label \"" + l + "\" in group_by");
        }
        groupBy.add(l);
      }
      groupBy = List.copyOf(groupBy);
      if (all) {
        groupBy = List.of();
      }
    }
    Duration gw = duration(n, "group_wait", parent.groupWait());
    Duration gi = duration(n, "group_interval", parent.groupInterval());
    Duration ri = duration(n, "repeat_interval", parent.repeatInterval());
    if (n.has("group_interval") && gi.isZero()) {
      errors.add("group_interval cannot be zero");
    }
    if (n.has("repeat_interval") && ri.isZero()) {
      errors.add("repeat_interval cannot be zero");
    }
    List<String> mute = names(n.path("mute_time_intervals"), intervals);
    List<String> active = names(n.path("active_time_intervals"), intervals);
    List<Matcher> matchers = matchers(n, "match", "match_re", "matchers");
    Config.Route self = new Config.Route(receiver, groupBy, all, matchers, n.path("continue").asBoolean(false), gw,
        gi, ri, mute, active, List.of());
    List<Config.Route> children = new ArrayList<>();
    for (JsonNode c : list(n.path("routes"), "routes")) {
      children.add(route(c, self, receivers, intervals));
    }
    return new Config.Route(receiver, groupBy, all, matchers, self.continueMatching(), gw, gi, ri, mute, active,
        List.copyOf(children));
  }

  private List<String> names(JsonNode n, Set<String> intervals) {
    List<String> out = new ArrayList<>();
    for (JsonNode x : list(n, "time interval names")) {
      if (!intervals.contains(x.asText())) {
        errors.add("undefined time interval \"" + x.asText() + "\" used in route");
      }
      out.add(x.asText());
    }
    return List.copyOf(out);
  }

  private List<Matcher> matchers(JsonNode n, String eqKey, String reKey, String matchersKey) {
    List<Matcher> out = new ArrayList<>();
    n.path(eqKey).fields().forEachRemaining(e -> {
      if (!Matchers.validLabelName(e.getKey())) {
        errors.add("\"" + e.getKey() + "\" is not a valid label name");
      }
      out.add(Matcher.eq(e.getKey(), e.getValue().asText()));
    });
    n.path(reKey).fields().forEachRemaining(e -> {
      if (!Matchers.validLabelName(e.getKey())) {
        errors.add("\"" + e.getKey() + "\" is not a valid label name");
      }
      try {
        out.add(Matcher.of(e.getKey(), Matcher.Type.RE, e.getValue().asText()));
      } catch (IllegalArgumentException ex) {
        errors.add(ex.getMessage());
      }
    });
    for (JsonNode m : list(n.path(matchersKey), matchersKey)) {
      try {
        out.addAll(Matchers.parse(m.asText()));
      } catch (IllegalArgumentException ex) {
        errors.add(ex.getMessage());
      }
    }
    return List.copyOf(out);
  }

  private Config.Receiver receiver(JsonNode r, String name, Config.Global g) {
    Set<String> allowed = new HashSet<>(UNSUPPORTED_KINDS);
    KINDS.forEach(k -> allowed.add(k.section()));
    allowed.add("name");
    unknown(r, allowed, "receiver");
    List<Config.Integration> out = new ArrayList<>();
    for (Kind<?> kind : KINDS) {
      for (JsonNode n : list(r.path(kind.section()), kind.section())) {
        unknown(n, kind.keys(), kind.type());
        out.add(kind.parser().parse(this, n, g));
      }
    }
    // Alertmanager's other integrations parse here, but Sluice cannot send to them: a config naming one is refused,
    // so no notification is silently dropped.
    for (String kind : UNSUPPORTED_KINDS) {
      if (!list(r.path(kind), kind).isEmpty()) {
        errors.add("receiver \"" + name + "\": " + kind + " is not supported by Sluice (supported: "
            + String.join(", ", SUPPORTED_KINDS) + ")");
      }
    }
    return new Config.Receiver(name, List.copyOf(out));
  }

  private Config.Webhook webhook(JsonNode w, Config.Global g) {
    Optional<Secret> url = secret(w, "url");
    if (url.isEmpty()) {
      errors.add("one of url or url_file must be configured");
    }
    if (w.has("url") && w.has("url_file")) {
      errors.add("at most one of url & url_file must be configured");
    }
    if (w.has("url") && !w.path("url").asText().startsWith("${")) {
      checkUrl(w.path("url").asText(), "url");
    }
    return new Config.Webhook(w.path("send_resolved").asBoolean(true), url.orElse(null),
        w.path("max_alerts").asInt(0), httpConfig(w.path("http_config"), g.httpConfig()));
  }

  private Config.Slack slack(JsonNode s, Config.Global g) {
    Optional<Secret> url = secret(s, "api_url").or(() -> Optional.ofNullable(g.slackApiUrl()));
    if (url.isEmpty()) {
      errors.add("no global Slack API URL set");
    }
    return new Config.Slack(s.path("send_resolved").asBoolean(false), url.orElse(null),
        s.path("channel").asText(""), s.path("username").asText(named("slack.default.username")),
        s.path("color").asText("{{ if eq .Status \"firing\" }}danger{{ else }}good{{ end }}"),
        s.path("title").asText(named("slack.default.title")),
        s.path("title_link").asText(named("slack.default.titlelink")),
        s.path("pretext").asText(""), s.path("text").asText(""),
        s.path("fallback").asText(named("slack.default.fallback")),
        s.path("icon_emoji").asText(""), s.path("icon_url").asText(""),
        httpConfig(s.path("http_config"), g.httpConfig()));
  }

  private Config.PagerDuty pagerDuty(JsonNode p, Config.Global g) {
    Optional<Secret> key = secret(p, "routing_key");
    if (key.isEmpty() && !p.has("service_key") && !p.has("service_key_file")) {
      errors.add("missing service or routing key in PagerDuty config");
    }
    if (key.isEmpty() && (p.has("service_key") || p.has("service_key_file"))) {
      errors.add("PagerDuty Events API v1 (service_key) is not supported by Sluice; use routing_key");
    }
    Map<String, String> details = new LinkedHashMap<>();
    details.put("firing", "{{ template \"pagerduty.default.instances\" .Alerts.Firing }}");
    details.put("resolved", "{{ template \"pagerduty.default.instances\" .Alerts.Resolved }}");
    details.put("num_firing", "{{ .Alerts.Firing | len }}");
    details.put("num_resolved", "{{ .Alerts.Resolved | len }}");
    p.path("details").fields().forEachRemaining(e -> details.put(e.getKey(), e.getValue().asText()));
    return new Config.PagerDuty(p.path("send_resolved").asBoolean(true), key.orElse(null),
        p.path("url").asText(g.pagerdutyUrl()), p.path("client").asText(named("pagerduty.default.client")),
        p.path("client_url").asText(named("pagerduty.default.clientURL")),
        p.path("description").asText("{{ template \"pagerduty.default.description\" .}}"),
        p.path("severity").asText("error"), p.path("class").asText(""), p.path("component").asText(""),
        p.path("group").asText(""), Map.copyOf(details), httpConfig(p.path("http_config"), g.httpConfig()));
  }

  private Config.Email email(JsonNode e, Config.Global g) {
    if (e.path("to").asText("").isEmpty()) {
      errors.add("missing to address in email config");
    }
    String smarthost = e.path("smarthost").asText(g.smtpSmarthost());
    if (smarthost.isEmpty()) {
      errors.add("no global SMTP smarthost set");
    }
    String from = e.path("from").asText(g.smtpFrom());
    if (from.isEmpty()) {
      errors.add("no global mail from address set");
    }
    Map<String, String> headers = new LinkedHashMap<>();
    e.path("headers").fields().forEachRemaining(h -> headers.put(
        h.getKey().substring(0, 1).toUpperCase(Locale.ROOT) + h.getKey().substring(1), h.getValue().asText()));
    return new Config.Email(e.path("send_resolved").asBoolean(false), e.path("to").asText(""), from,
        e.path("hello").asText(g.smtpHello()), smarthost,
        e.path("auth_username").asText(g.smtpAuthUsername()),
        secret(e, "auth_password").orElse(g.smtpAuthPassword()),
        e.path("auth_identity").asText(g.smtpAuthIdentity()),
        e.path("require_tls").asBoolean(g.smtpRequireTls()), Map.copyOf(headers),
        e.path("html").asText(named("email.default.html")), e.path("text").asText(""));
  }

  private Config.Discord discord(JsonNode n, Config.Global g) {
    return new Config.Discord(n.path("send_resolved").asBoolean(true), webhookUrl(n), n.path("content").asText(""),
        n.path("title").asText(named("discord.default.title")),
        n.path("message").asText(named("discord.default.message")), n.path("username").asText(""),
        n.path("avatar_url").asText(""), httpConfig(n.path("http_config"), g.httpConfig()));
  }

  private Config.MsTeams msTeams(JsonNode n, Config.Global g) {
    return new Config.MsTeams(n.path("send_resolved").asBoolean(true), webhookUrl(n),
        n.path("title").asText(named("msteams.default.title")),
        n.path("summary").asText(named("msteams.default.summary")),
        n.path("text").asText(named("msteams.default.text")), httpConfig(n.path("http_config"), g.httpConfig()));
  }

  private Config.MsTeamsV2 msTeamsV2(JsonNode n, Config.Global g) {
    return new Config.MsTeamsV2(n.path("send_resolved").asBoolean(true), webhookUrl(n),
        n.path("title").asText(named("msteamsv2.default.title")),
        n.path("text").asText(named("msteamsv2.default.text")), httpConfig(n.path("http_config"), g.httpConfig()));
  }

  /** Discord's and Teams' {@code webhook_url} or {@code webhook_url_file}, exactly one of them. */
  private Secret webhookUrl(JsonNode n) {
    if (!n.hasNonNull("webhook_url") && !n.hasNonNull("webhook_url_file")) {
      errors.add("one of webhook_url or webhook_url_file must be configured");
    }
    atMostOne(n, "webhook_url", "webhook_url_file");
    if (n.hasNonNull("webhook_url") && !n.path("webhook_url").asText().startsWith("${")) {
      checkUrl(n.path("webhook_url").asText(), "webhook_url");
    }
    return secret(n, "webhook_url").orElse(null);
  }

  private Config.OpsGenie opsGenie(JsonNode n, Config.Global g) {
    atMostOne(n, "api_key", "api_key_file");
    Optional<Secret> key = secret(n, "api_key").or(() -> Optional.ofNullable(g.opsgenieApiKey()));
    if (key.isEmpty()) {
      errors.add("no global OpsGenie API Key set either inline or in a file");
    }
    List<Config.Responder> responders = new ArrayList<>();
    for (JsonNode r : list(n.path("responders"), "responders")) {
      unknown(r, Set.of("id", "name", "username", "type"), "opsgenie responder");
      Config.Responder responder = new Config.Responder(r.path("id").asText(""), r.path("name").asText(""),
          r.path("username").asText(""), r.path("type").asText(""));
      if (responder.id().isEmpty() && responder.name().isEmpty() && responder.username().isEmpty()) {
        errors.add("opsgenie responder " + responder + " has to have at least one of id, username or name specified");
      }
      if (!responder.type().contains("{{")) {
        // A literal type is checked now; a templated one when it is rendered, as Alertmanager does.
        String type = responder.type().toLowerCase(Locale.ROOT);
        if (!OPSGENIE_RESPONDER_TYPE.matcher(type).matches()) {
          errors.add("opsgenie responder type \"" + responder.type() + "\" does not match valid options "
              + OPSGENIE_RESPONDER_TYPE.pattern());
        }
        responder = new Config.Responder(responder.id(), responder.name(), responder.username(), type);
      }
      responders.add(responder);
    }
    return new Config.OpsGenie(n.path("send_resolved").asBoolean(true), key.orElse(null),
        directory(url(n, "api_url", g.opsgenieApiUrl())),
        n.path("message").asText(named("opsgenie.default.message")),
        n.path("description").asText(named("opsgenie.default.description")),
        n.path("source").asText(named("opsgenie.default.source")), stringMap(n.path("details")),
        n.path("entity").asText(""), List.copyOf(responders), n.path("actions").asText(""),
        n.path("tags").asText(""), n.path("note").asText(""), n.path("priority").asText(""),
        n.path("update_alerts").asBoolean(false), httpConfig(n.path("http_config"), g.httpConfig()));
  }

  private Config.Telegram telegram(JsonNode n, Config.Global g) {
    Optional<Secret> token = secret(n, "bot_token");
    if (token.isEmpty()) {
      errors.add("missing bot_token or bot_token_file on telegram_config");
    }
    atMostOne(n, "bot_token", "bot_token_file");
    long chat = 0;
    if (n.hasNonNull("chat_id") && !n.path("chat_id").canConvertToLong()) {
      errors.add("chat_id: expected an integer, not \"" + n.path("chat_id").asText() + "\"");
    } else if ((chat = n.path("chat_id").asLong(0)) == 0) {
      errors.add("missing chat_id on telegram_config");
    }
    String parseMode = n.path("parse_mode").asText("HTML");
    if (!List.of("", "Markdown", "MarkdownV2", "HTML").contains(parseMode)) {
      errors.add("unknown parse_mode on telegram_config, must be Markdown, MarkdownV2, HTML or empty string");
    }
    return new Config.Telegram(n.path("send_resolved").asBoolean(true), url(n, "api_url", g.telegramApiUrl()),
        token.orElse(null), chat, n.path("message_thread_id").asInt(0),
        n.path("message").asText(named("telegram.default.message")),
        n.path("disable_notifications").asBoolean(false), parseMode,
        httpConfig(n.path("http_config"), g.httpConfig()));
  }

  private Config.Webex webex(JsonNode n, Config.Global g) {
    if (n.path("room_id").asText("").isEmpty()) {
      errors.add("missing room_id on webex_config");
    }
    // The bot's token: Alertmanager asks for it in the receiver's own http_config, not the global one.
    ClientOptions own = httpConfig(n.path("http_config"), HttpConfig.none());
    if (own.authorizationType().isEmpty()) {
      errors.add("missing webex_configs.http_config.authorization");
    }
    return new Config.Webex(n.path("send_resolved").asBoolean(true), url(n, "api_url", g.webexApiUrl()),
        n.path("message").asText(named("webex.default.message")), n.path("room_id").asText(""), own);
  }

  private Config.Pushover pushover(JsonNode n, Config.Global g) {
    for (String key : List.of("user_key", "token")) {
      if (!n.hasNonNull(key) && !n.hasNonNull(key + "_file")) {
        errors.add("one of " + key + " or " + key + "_file must be configured");
      }
      atMostOne(n, key, key + "_file");
    }
    return new Config.Pushover(n.path("send_resolved").asBoolean(true), secret(n, "user_key").orElse(null),
        secret(n, "token").orElse(null), PUSHOVER_API_URL, n.path("title").asText(named("pushover.default.title")),
        n.path("message").asText(named("pushover.default.message")),
        n.path("url").asText(named("pushover.default.url")), n.path("url_title").asText(""),
        n.path("device").asText(""), n.path("sound").asText(""),
        // Emergency while firing (repeated every retry until acknowledged or expired), normal once resolved.
        n.path("priority").asText("{{ if eq .Status \"firing\" }}2{{ else }}0{{ end }}"),
        duration(n, "retry", Duration.ofMinutes(1)), duration(n, "expire", Duration.ofHours(1)),
        duration(n, "ttl", Duration.ZERO), n.path("html").asBoolean(false),
        httpConfig(n.path("http_config"), g.httpConfig()));
  }

  private Config.VictorOps victorOps(JsonNode n, Config.Global g) {
    if (n.path("routing_key").asText("").isEmpty()) {
      errors.add("missing Routing key in VictorOps config");
    }
    atMostOne(n, "api_key", "api_key_file");
    Optional<Secret> key = secret(n, "api_key").or(() -> Optional.ofNullable(g.victoropsApiKey()));
    if (key.isEmpty()) {
      errors.add("no global VictorOps API Key set");
    }
    Map<String, String> custom = stringMap(n.path("custom_fields"));
    for (String reserved : VICTOROPS_RESERVED) {
      if (custom.containsKey(reserved)) {
        errors.add("victorOps config contains custom field " + reserved
            + " which cannot be used as it conflicts with the fixed/static fields");
      }
    }
    return new Config.VictorOps(n.path("send_resolved").asBoolean(true), key.orElse(null),
        directory(url(n, "api_url", g.victoropsApiUrl())), n.path("routing_key").asText(""),
        n.path("message_type").asText("CRITICAL"),
        n.path("state_message").asText(named("victorops.default.state_message")),
        n.path("entity_display_name").asText(named("victorops.default.entity_display_name")),
        n.path("monitoring_tool").asText(named("victorops.default.monitoring_tool")), custom,
        httpConfig(n.path("http_config"), g.httpConfig()));
  }

  /**
   * One kind of integration: {@code name} as Alertmanager names it ({@code slack}: the section {@code slack_configs},
   * the type {@code slack_config} in an unknown key's error), the record it parses to, its section's keys, those of
   * them that are secrets in this kind only, and its parser.
   */
  record Kind<T extends Config.Integration>(String name, Class<T> record, Set<String> keys, Set<String> secrets,
      Parser<T> parser) {
    String section() {
      return name + "_configs";
    }

    String type() {
      return name + "_config";
    }
  }

  /** Parses one entry of a kind's section, adding what is wrong to the loader's errors. */
  @FunctionalInterface
  interface Parser<T extends Config.Integration> {
    T parse(ConfigLoader loader, JsonNode entry, Config.Global global);
  }

  /** The keys of an HTTP integration's section: its own and the two every one has. */
  private static Set<String> http(String... own) {
    Set<String> out = new HashSet<>(List.of(own));
    out.add("send_resolved");
    out.add("http_config");
    return Set.copyOf(out);
  }

  /**
   * Whether {@code key} is a secret in the kind whose section is {@code section} only: Slack's {@code api_url} is a
   * secret URL, Opsgenie's a plain one; a webhook's {@code url} is a secret, Pushover's a template; PagerDuty's
   * {@code routing_key} a secret, VictorOps' not.
   */
  private static boolean secretOf(String section, String key) {
    return KINDS.stream().anyMatch(k -> k.section().equals(section) && k.secrets().contains(key));
  }

  /** A configuration default that is one of Alertmanager's named templates. */
  private static String named(String template) {
    return "{{ template \"" + template + "\" . }}";
  }

  private void atMostOne(JsonNode n, String key, String other) {
    if (n.hasNonNull(key) && n.hasNonNull(other)) {
      errors.add("at most one of " + key + " & " + other + " must be configured");
    }
  }

  /** A plain (not secret) URL such as an {@code api_url}, checked; {@code dflt} when absent. */
  private String url(JsonNode n, String key, String dflt) {
    if (!n.hasNonNull(key)) {
      return dflt;
    }
    checkUrl(n.path(key).asText(), key);
    return n.path(key).asText();
  }

  /** The URL with its path ending in a slash, as Alertmanager makes the base URLs it appends paths to. */
  private static String directory(String url) {
    int end = url.length();
    for (char c : new char[] {'?', '#'}) {
      int i = url.indexOf(c);
      if (i >= 0 && i < end) {
        end = i;
      }
    }
    return url.substring(0, end).endsWith("/") ? url : url.substring(0, end) + "/" + url.substring(end);
  }

  private Map<String, String> stringMap(JsonNode n) {
    Map<String, String> out = new LinkedHashMap<>();
    if (n.isMissingNode() || n.isNull()) {
      return out;
    }
    if (!n.isObject()) {
      errors.add("expected a mapping of strings, not " + n.getNodeType().toString().toLowerCase(Locale.ROOT));
      return out;
    }
    n.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asText()));
    return out;
  }

  /** Checks a URL as Alertmanager checks its URLs: http or https, with a host; errors name the key. */
  private void checkUrl(String url, String key) {
    try {
      java.net.URI u = new java.net.URI(url);
      if (u.getScheme() == null || !(u.getScheme().equals("http") || u.getScheme().equals("https"))) {
        errors.add(key + ": unsupported scheme \"" + (u.getScheme() == null ? "" : u.getScheme()) + "\" for URL");
      } else if (u.getHost() == null && u.getRawAuthority() == null) {
        errors.add(key + ": missing host for URL");
      }
    } catch (java.net.URISyntaxException e) {
      errors.add(key + ": invalid URL: " + e.getReason());
    }
  }

  private ClientOptions httpConfig(JsonNode h) {
    return httpConfig(h, HttpConfig.none());
  }

  /**
   * An {@code http_config}, read and checked as every client in Sluice reads one (Prometheus' rules and messages),
   * with {@code ${ENV}} secrets; absent, the global one ({@code dflt}) applies.
   */
  private ClientOptions httpConfig(JsonNode h, ClientOptions dflt) {
    if (!h.isObject()) {
      return dflt;
    }
    try {
      return HttpConfig.section(h, baseDir, env);
    } catch (IllegalArgumentException e) {
      errors.add(e.getMessage());
      return dflt;
    }
  }

  /** {@code key} inline (or {@code ${ENV}}) or {@code key_file}. */
  private Optional<Secret> secret(JsonNode n, String key) {
    if (n.hasNonNull(key)) {
      try {
        return Optional.of(Secret.inline(n.path(key).asText(), env));
      } catch (IllegalArgumentException e) {
        errors.add(key + ": " + e.getMessage());
        return Optional.empty();
      }
    }
    if (n.hasNonNull(key + "_file")) {
      return Optional.of(new Secret.FromFile(resolve(n.path(key + "_file").asText())));
    }
    return Optional.empty();
  }

  private Path resolve(String file) {
    Path p = Path.of(file);
    return p.isAbsolute() || baseDir == null ? p : baseDir.resolve(p);
  }

  private TimeInterval timeInterval(JsonNode n, String name) {
    unknown(n, Set.of("times", "weekdays", "days_of_month", "months", "years", "location"), "time interval");
    List<TimeInterval.Range> times = new ArrayList<>();
    for (JsonNode t : list(n.path("times"), "times")) {
      int s = clock(t.path("start_time").asText(""), name);
      int e = clock(t.path("end_time").asText(""), name);
      if (s >= 0 && e >= 0 && s >= e) {
        errors.add("start time cannot be equal or greater than end time in time interval \"" + name + "\"");
      }
      times.add(new TimeInterval.Range(s, e));
    }
    List<TimeInterval.Range> weekdays = ranges(n.path("weekdays"), name, "weekday", 0, 6, WEEKDAYS, 0);
    List<TimeInterval.Range> dom = new ArrayList<>();
    for (JsonNode d : list(n.path("days_of_month"), "days_of_month")) {
      String[] p = d.asText().split(":", -1);
      try {
        int b = Integer.parseInt(p[0].trim());
        int e = p.length > 1 ? Integer.parseInt(p[1].trim()) : b;
        if (b == 0 || e == 0 || b < -31 || b > 31 || e < -31 || e > 31) {
          errors.add("days_of_month out of range (1..31 or -31..-1) in time interval \"" + name + "\"");
        } else if ((b > 0) == (e > 0) && b > e) {
          errors.add("start day cannot be greater than end day in time interval \"" + name + "\"");
        }
        dom.add(new TimeInterval.Range(b, e));
      } catch (NumberFormatException ex) {
        errors.add("invalid days_of_month \"" + d.asText() + "\" in time interval \"" + name + "\"");
      }
    }
    List<TimeInterval.Range> months = ranges(n.path("months"), name, "month", 1, 12, MONTHS, 1);
    List<TimeInterval.Range> years = ranges(n.path("years"), name, "year", 1, 9999, List.of(), 0);
    ZoneId zone = ZoneOffset.UTC;
    if (n.has("location")) {
      String loc = n.path("location").asText();
      try {
        zone = loc.equals("Local") ? ZoneId.systemDefault() : loc.equals("UTC") ? ZoneOffset.UTC : ZoneId.of(loc);
      } catch (DateTimeException e) {
        errors.add("unknown time zone " + loc + " in time interval \"" + name + "\"");
      }
    }
    return new TimeInterval(List.copyOf(times), weekdays, List.copyOf(dom), months, years, zone);
  }

  private int clock(String s, String name) {
    java.util.regex.Matcher m = HHMM.matcher(s);
    if (!m.matches()) {
      errors.add("couldn't parse timestamp \"" + s + "\", invalid format in time interval \"" + name + "\"");
      return -1;
    }
    int minutes = Integer.parseInt(m.group(1)) * 60 + Integer.parseInt(m.group(2));
    if (minutes > 24 * 60) {
      errors.add("timestamp \"" + s + "\" out of range in time interval \"" + name + "\"");
    }
    return minutes;
  }

  private List<TimeInterval.Range> ranges(JsonNode n, String name, String what, int min, int max,
      List<String> names, int nameBase) {
    List<TimeInterval.Range> out = new ArrayList<>();
    for (JsonNode x : list(n, what + "s")) {
      String[] p = x.asText().toLowerCase(Locale.ROOT).split(":", -1);
      int b = value(p[0].trim(), names, nameBase);
      int e = p.length > 1 ? value(p[1].trim(), names, nameBase) : b;
      if (b < min || b > max || e < min || e > max) {
        errors.add("invalid " + what + " \"" + x.asText() + "\" in time interval \"" + name + "\"");
      } else if (b > e) {
        errors.add("start " + what + " cannot be greater than end " + what + " in time interval \"" + name + "\"");
      }
      out.add(new TimeInterval.Range(b, e));
    }
    return List.copyOf(out);
  }

  private static int value(String s, List<String> names, int base) {
    int i = names.indexOf(s);
    if (i >= 0) {
      return i + base;
    }
    try {
      return Integer.parseInt(s);
    } catch (NumberFormatException e) {
      return Integer.MIN_VALUE;
    }
  }

  private Duration duration(JsonNode n, String key, Duration dflt) {
    if (!n.hasNonNull(key)) {
      return dflt;
    }
    try {
      return GoDuration.parse(n.path(key).asText());
    } catch (IllegalArgumentException e) {
      errors.add(key + ": " + e.getMessage());
      return dflt;
    }
  }

  private List<JsonNode> list(JsonNode n, String what) {
    List<JsonNode> out = new ArrayList<>();
    if (n.isMissingNode() || n.isNull()) {
      return out;
    }
    if (!n.isArray()) {
      errors.add(what + ": expected a list");
      return out;
    }
    n.forEach(out::add);
    return out;
  }

  private void unknown(JsonNode n, Set<String> known, String where) {
    if (!n.isObject()) {
      return;
    }
    n.fieldNames().forEachRemaining(f -> {
      if (!known.contains(f)) {
        errors.add("field " + f + " not found in type " + where);
      }
    });
  }

  /** The loaded YAML with every secret-bearing value replaced, for the status page and API. */
  private static String masked(ObjectNode root) {
    JsonNode copy = root.deepCopy();
    mask(copy, "");
    try {
      return YAML.writeValueAsString(copy);
    } catch (IOException e) {
      return "";
    }
  }

  /** Masks the secrets under {@code n}, which is in the list {@code section} (a kind such as slack_configs) or "". */
  private static void mask(JsonNode n, String section) {
    if (n instanceof ObjectNode o) {
      List<String> keys = new ArrayList<>();
      o.fieldNames().forEachRemaining(keys::add);
      for (String k : keys) {
        JsonNode v = o.get(k);
        boolean secret = SECRET_KEYS.contains(k) || secretOf(section, k);
        if (secret && (v.isValueNode() || k.equals("secrets"))) {
          // Alertmanager 0.25 (Debian's amtool) parses webhook URLs as plain URLs: a mask that still parses keeps
          // `amtool config routes` working against the status API.
          o.set(k, TextNode.valueOf(k.equals("url") ? "http://" + Secret.MASK : Secret.MASK));
        } else {
          mask(v, v.isArray() ? k : section);
        }
      }
    } else if (n != null && n.isArray()) {
      n.forEach(x -> mask(x, section));
    }
  }
}
