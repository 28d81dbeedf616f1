package io.sluice.metrics.config;

import io.sluice.http.client.HttpClientConfig;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.sluice.metrics.promql.parser.ParseException;
import io.sluice.metrics.promql.parser.Parser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The subset of Prometheus's YAML configuration the metrics server reads. Fields Prometheus knows and we do not use
 * are logged and ignored, so a file written for Prometheus still loads.
 */
public record Config(Global global, List<String> ruleFiles, List<String> alertmanagers, List<ScrapeConfig> scrapeConfigs,
    Map<String, HttpClientConfig> alertmanagerHttp) {
  public Config(Global global, List<String> ruleFiles, List<String> alertmanagers, List<ScrapeConfig> scrapeConfigs) {
    this(global, ruleFiles, alertmanagers, scrapeConfigs, Map.of());
  }

  private static final Logger log = LoggerFactory.getLogger(Config.class);
  private static final ObjectMapper YAML =
      new ObjectMapper(new YAMLFactory()).configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  public record Global(Duration scrapeInterval, Duration scrapeTimeout, Duration evaluationInterval,
      Map<String, String> externalLabels) {}

  /** One job; {@code http} is how its targets are reached (basic_auth, authorization, tls_config, as Prometheus). */
  public record ScrapeConfig(String jobName, Duration scrapeInterval, Duration scrapeTimeout, String metricsPath,
      String scheme, boolean honorLabels, boolean honorTimestamps, List<StaticConfig> staticConfigs,
      HttpClientConfig http) {
    public ScrapeConfig(String jobName, Duration scrapeInterval, Duration scrapeTimeout, String metricsPath,
        String scheme, boolean honorLabels, boolean honorTimestamps, List<StaticConfig> staticConfigs) {
      this(jobName, scrapeInterval, scrapeTimeout, metricsPath, scheme, honorLabels, honorTimestamps, staticConfigs,
          HttpClientConfig.none());
    }
  }

  public record StaticConfig(List<String> targets, Map<String, String> labels) {}

  /** A configuration that cannot be used; the message says which field and why. */
  public static final class ConfigException extends IllegalArgumentException {
    public ConfigException(String message) {
      super(message);
    }
  }

  public static Config load(Path file) {
    try {
      return parse(Files.readString(file), file.toAbsolutePath().getParent());
    } catch (IOException e) {
      throw new ConfigException("cannot read " + file + ": " + e.getMessage());
    }
  }

  /** The embedded default: scrape Sluice's exporter and this server every 15 s, alert to Sluice's router. */
  public static Config defaults(int ownPort) {
    return defaults(ownPort, "127.0.0.1:9093", List.of());
  }

  /**
   * The embedded default with the router at {@code alertmanager} ({@code host:port}) and the given rule files (the
   * bundled CDC alert catalog for {@code sluice up}).
   */
  public static Config defaults(int ownPort, String alertmanager, List<String> ruleFiles) {
    StringBuilder rules = new StringBuilder();
    for (String f : ruleFiles) {
      rules.append("  - '").append(f.replace("'", "''")).append("'\n");
    }
    return parse("""
        global:
          scrape_interval: 15s
          evaluation_interval: 15s
        %salerting:
          alertmanagers:
            - static_configs:
                - targets: ['%s']
        scrape_configs:
          - job_name: sluice
            static_configs:
              - targets: ['127.0.0.1:5556']
          - job_name: prometheus
            static_configs:
              - targets: ['127.0.0.1:%d']
        """.formatted(ruleFiles.isEmpty() ? "" : "rule_files:\n" + rules, alertmanager, ownPort));
  }

  public static Config parse(String yaml) {
    return parse(yaml, null);
  }

  /**
   * This (default) configuration with the exporter job pointed at {@code exporter} ({@code host:port}) and every
   * target and router reached with {@code scheme} and {@code http}: how {@code sluice up} scrapes and alerts its own
   * components once their surfaces ask for credentials or serve TLS.
   */
  public Config reachedAs(String exporter, String scheme, HttpClientConfig http) {
    List<ScrapeConfig> scrapes = new ArrayList<>();
    for (ScrapeConfig sc : scrapeConfigs) {
      List<StaticConfig> statics = sc.jobName().equals("sluice")
          ? List.of(new StaticConfig(List.of(exporter), Map.of())) : sc.staticConfigs();
      scrapes.add(new ScrapeConfig(sc.jobName(), sc.scrapeInterval(), sc.scrapeTimeout(), sc.metricsPath(), scheme,
          sc.honorLabels(), sc.honorTimestamps(), statics, http));
    }
    List<String> ams = new ArrayList<>();
    Map<String, HttpClientConfig> amHttp = new LinkedHashMap<>();
    for (String am : alertmanagers) {
      String url = am.replaceFirst("^https?://", scheme + "://");
      ams.add(url);
      amHttp.put(url, http);
    }
    return new Config(global, ruleFiles, List.copyOf(ams), List.copyOf(scrapes), Map.copyOf(amHttp));
  }

  /** As {@link #parse(String)}; relative {@code *_file} paths resolve against {@code baseDir}, as in Prometheus. */
  public static Config parse(String yaml, Path baseDir) {
    JsonNode root;
    try {
      root = YAML.readTree(yaml);
    } catch (IOException e) {
      throw new ConfigException("invalid YAML: " + e.getMessage());
    }
    if (root == null || root.isMissingNode() || root.isNull()) {
      root = YAML.createObjectNode();
    }
    warnUnknown(root, "", Set.of("global", "rule_files", "alerting", "scrape_configs", "remote_write", "remote_read",
        "storage", "tracing", "scrape_config_files"));
    JsonNode g = root.path("global");
    Duration interval = duration(g, "scrape_interval", Duration.ofMinutes(1));
    Duration timeout = duration(g, "scrape_timeout", Duration.ofSeconds(10));
    Duration evaluation = duration(g, "evaluation_interval", Duration.ofMinutes(1));
    if (timeout.compareTo(interval) > 0) {
      throw new ConfigException("global scrape timeout greater than scrape interval");
    }
    Map<String, String> external = new LinkedHashMap<>();
    g.path("external_labels").fields().forEachRemaining(e -> external.put(e.getKey(), e.getValue().asText()));
    Global global = new Global(interval, timeout, evaluation, external);

    List<String> rules = new ArrayList<>();
    root.path("rule_files").forEach(n -> rules.add(n.asText()));
    List<String> ams = new ArrayList<>();
    Map<String, HttpClientConfig> amHttp = new LinkedHashMap<>();
    for (JsonNode am : root.path("alerting").path("alertmanagers")) {
      String scheme = am.path("scheme").asText("http");
      String prefix = am.path("path_prefix").asText("");
      HttpClientConfig http;
      try {
        http = HttpClientConfig.parse(am, baseDir);
      } catch (IllegalArgumentException e) {
        throw new ConfigException("alertmanager config: " + e.getMessage());
      }
      for (JsonNode sc : am.path("static_configs")) {
        for (JsonNode t : sc.path("targets")) {
          String url = scheme + "://" + t.asText() + prefix;
          ams.add(url);
          amHttp.put(url, http);
        }
      }
    }
    List<ScrapeConfig> scrapes = new ArrayList<>();
    Set<String> jobs = new HashSet<>();
    for (JsonNode sc : root.path("scrape_configs")) {
      String job = sc.path("job_name").asText("");
      if (job.isEmpty()) {
        throw new ConfigException("job_name is empty");
      }
      if (!jobs.add(job)) {
        throw new ConfigException("found multiple scrape configs with job name \"" + job + "\"");
      }
      warnUnknown(sc, "scrape_configs[" + job + "].", Set.of("job_name", "scrape_interval", "scrape_timeout",
          "metrics_path", "scheme", "honor_labels", "honor_timestamps", "static_configs", "basic_auth",
          "authorization", "bearer_token", "bearer_token_file", "tls_config", "follow_redirects"));
      Duration si = duration(sc, "scrape_interval", interval);
      // Prometheus: a job's timeout defaults to the global one, capped at the job's interval.
      Duration st = duration(sc, "scrape_timeout", timeout.compareTo(si) > 0 ? si : timeout);
      if (st.compareTo(si) > 0) {
        throw new ConfigException("scrape timeout greater than scrape interval for scrape config with job name \""
            + job + "\"");
      }
      List<StaticConfig> statics = new ArrayList<>();
      for (JsonNode s : sc.path("static_configs")) {
        List<String> targets = new ArrayList<>();
        s.path("targets").forEach(t -> targets.add(t.asText()));
        Map<String, String> labels = new LinkedHashMap<>();
        s.path("labels").fields().forEachRemaining(e -> labels.put(e.getKey(), e.getValue().asText()));
        statics.add(new StaticConfig(List.copyOf(targets), Map.copyOf(labels)));
      }
      String scheme = sc.path("scheme").asText("http");
      if (!scheme.equals("http") && !scheme.equals("https")) {
        throw new ConfigException("invalid scheme \"" + scheme + "\" for job \"" + job + "\"");
      }
      HttpClientConfig http;
      try {
        http = HttpClientConfig.parse(sc, baseDir);
      } catch (IllegalArgumentException e) {
        throw new ConfigException("scrape config with job name \"" + job + "\": " + e.getMessage());
      }
      scrapes.add(new ScrapeConfig(job, si, st, sc.path("metrics_path").asText("/metrics"), scheme,
          sc.path("honor_labels").asBoolean(false), sc.path("honor_timestamps").asBoolean(true),
          List.copyOf(statics), http));
    }
    return new Config(global, List.copyOf(rules), List.copyOf(ams), List.copyOf(scrapes), Map.copyOf(amHttp));
  }

  private static void warnUnknown(JsonNode node, String prefix, Set<String> known) {
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!known.contains(f)) {
        log.warn("configuration field {}{} is not supported and is ignored", prefix, f);
      }
    }
  }

  private static Duration duration(JsonNode parent, String field, Duration dflt) {
    JsonNode n = parent.get(field);
    if (n == null || n.isNull()) {
      return dflt;
    }
    try {
      long ms = Parser.parseDuration(n.asText());
      if (ms <= 0) {
        throw new ConfigException(field + " must be positive, got \"" + n.asText() + "\"");
      }
      return Duration.ofMillis(ms);
    } catch (ParseException e) {
      throw new ConfigException("invalid " + field + " \"" + n.asText() + "\": not a valid duration string");
    }
  }
}
