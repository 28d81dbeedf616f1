package io.sluice.metrics.config;

import io.sluice.client.ClientOptions;
import io.sluice.client.HttpConfig;

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
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The subset of Prometheus's YAML configuration the metrics server reads. Fields Prometheus knows and we do not use
 * are logged and ignored, so a file written for Prometheus still loads.
 */
public record Config(Global global, List<String> ruleFiles, List<String> alertmanagers, List<ScrapeConfig> scrapeConfigs,
    Map<String, ClientOptions> alertmanagerHttp, List<AlertmanagerFiles> alertmanagerFiles) {
  public Config(Global global, List<String> ruleFiles, List<String> alertmanagers, List<ScrapeConfig> scrapeConfigs) {
    this(global, ruleFiles, alertmanagers, scrapeConfigs, Map.of(), List.of());
  }

  public Config(Global global, List<String> ruleFiles, List<String> alertmanagers, List<ScrapeConfig> scrapeConfigs,
      Map<String, ClientOptions> alertmanagerHttp) {
    this(global, ruleFiles, alertmanagers, scrapeConfigs, alertmanagerHttp, List.of());
  }

  /**
   * Routers listed in {@code file_sd_configs} files (absolute paths or globs in the file name) of one
   * {@code alertmanagers} entry, reached with its scheme, path prefix and http settings.
   */
  public record AlertmanagerFiles(List<String> files, String scheme, String pathPrefix, ClientOptions http) {}

  private static final Logger log = LoggerFactory.getLogger(Config.class);
  private static final ObjectMapper YAML =
      new ObjectMapper(new YAMLFactory()).configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  public record Global(Duration scrapeInterval, Duration scrapeTimeout, Duration evaluationInterval,
      Map<String, String> externalLabels) {}

  /** One job; {@code http} is how its targets are reached (basic_auth, authorization, tls_config, as Prometheus). */
  public record ScrapeConfig(String jobName, Duration scrapeInterval, Duration scrapeTimeout, String metricsPath,
      String scheme, boolean honorLabels, boolean honorTimestamps, List<StaticConfig> staticConfigs,
      ClientOptions http, List<String> fileSdFiles) {
    public ScrapeConfig(String jobName, Duration scrapeInterval, Duration scrapeTimeout, String metricsPath,
        String scheme, boolean honorLabels, boolean honorTimestamps, List<StaticConfig> staticConfigs) {
      this(jobName, scrapeInterval, scrapeTimeout, metricsPath, scheme, honorLabels, honorTimestamps, staticConfigs,
          HttpConfig.none(), List.of());
    }

    /** This job with {@code statics} instead of its static configs. */
    public ScrapeConfig withStatics(List<StaticConfig> statics) {
      return new ScrapeConfig(jobName, scrapeInterval, scrapeTimeout, metricsPath, scheme, honorLabels,
          honorTimestamps, List.copyOf(statics), http, fileSdFiles);
    }
  }

  /**
   * This configuration with every {@code file_sd_configs} entry replaced by the target groups {@code read} finds in
   * its files, as static configs: what the scrape manager and the notifier run with.
   */
  public Config resolved(Function<List<String>, List<StaticConfig>> read) {
    List<ScrapeConfig> scrapes = new ArrayList<>();
    for (ScrapeConfig sc : scrapeConfigs) {
      if (sc.fileSdFiles().isEmpty()) {
        scrapes.add(sc);
      } else {
        List<StaticConfig> statics = new ArrayList<>(sc.staticConfigs());
        statics.addAll(read.apply(sc.fileSdFiles()));
        scrapes.add(sc.withStatics(statics));
      }
    }
    List<String> ams = new ArrayList<>(alertmanagers);
    Map<String, ClientOptions> amHttp = new LinkedHashMap<>(alertmanagerHttp);
    for (AlertmanagerFiles af : alertmanagerFiles) {
      for (StaticConfig group : read.apply(af.files())) {
        for (String t : group.targets()) {
          String url = af.scheme() + "://" + t + af.pathPrefix();
          if (!amHttp.containsKey(url)) {
            ams.add(url);
            amHttp.put(url, af.http());
          }
        }
      }
    }
    return new Config(global, ruleFiles, List.copyOf(ams), List.copyOf(scrapes), Map.copyOf(amHttp),
        alertmanagerFiles);
  }

  /** Every file (or glob) named by a {@code file_sd_configs} entry. */
  public List<String> discoveryFiles() {
    List<String> out = new ArrayList<>();
    scrapeConfigs.forEach(sc -> out.addAll(sc.fileSdFiles()));
    alertmanagerFiles.forEach(af -> out.addAll(af.files()));
    return out;
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
    return defaults(ownPort, alertmanager, ruleFiles, List.of(), List.of());
  }

  /**
   * As {@link #defaults(int, String, List)}, with more exporters and routers found in {@code file_sd_configs} files:
   * how each node of a Sluice cluster scrapes every node's exporter and alerts every node's router.
   */
  public static Config defaults(int ownPort, String alertmanager, List<String> ruleFiles, List<String> exporterFiles,
      List<String> alertmanagerFiles) {
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
        %s
        scrape_configs:
          - job_name: sluice
            static_configs:
              - targets: ['127.0.0.1:5556']
        %s
          - job_name: prometheus
            static_configs:
              - targets: ['127.0.0.1:%d']
        """.formatted(ruleFiles.isEmpty() ? "" : "rule_files:\n" + rules, alertmanager,
        fileSd("      file_sd_configs: [{files: [%s]}]", alertmanagerFiles),
        fileSd("    file_sd_configs: [{files: [%s]}]", exporterFiles), ownPort));
  }

  private static String fileSd(String line, List<String> files) {
    if (files.isEmpty()) {
      return "";
    }
    return line.formatted(String.join(", ", files.stream().map(f -> "'" + f.replace("'", "''") + "'").toList()));
  }

  public static Config parse(String yaml) {
    return parse(yaml, null);
  }

  /**
   * This (default) configuration with the exporter job pointed at {@code exporter} ({@code host:port}) and every
   * target and router reached with {@code scheme} and {@code http}: how {@code sluice up} scrapes and alerts its own
   * components once their surfaces ask for credentials or serve TLS.
   */
  public Config reachedAs(String exporter, String scheme, ClientOptions http) {
    List<ScrapeConfig> scrapes = new ArrayList<>();
    for (ScrapeConfig sc : scrapeConfigs) {
      List<StaticConfig> statics = sc.jobName().equals("sluice")
          ? List.of(new StaticConfig(List.of(exporter), Map.of())) : sc.staticConfigs();
      scrapes.add(new ScrapeConfig(sc.jobName(), sc.scrapeInterval(), sc.scrapeTimeout(), sc.metricsPath(), scheme,
          sc.honorLabels(), sc.honorTimestamps(), statics, http, sc.fileSdFiles()));
    }
    List<String> ams = new ArrayList<>();
    Map<String, ClientOptions> amHttp = new LinkedHashMap<>();
    for (String am : alertmanagers) {
      String url = am.replaceFirst("^https?://", scheme + "://");
      ams.add(url);
      amHttp.put(url, http);
    }
    List<AlertmanagerFiles> amFiles = alertmanagerFiles.stream()
        .map(af -> new AlertmanagerFiles(af.files(), scheme, af.pathPrefix(), http)).toList();
    return new Config(global, ruleFiles, List.copyOf(ams), List.copyOf(scrapes), Map.copyOf(amHttp), amFiles);
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
    Map<String, ClientOptions> amHttp = new LinkedHashMap<>();
    List<AlertmanagerFiles> amFiles = new ArrayList<>();
    for (JsonNode am : root.path("alerting").path("alertmanagers")) {
      String scheme = am.path("scheme").asText("http");
      String prefix = am.path("path_prefix").asText("");
      ClientOptions http;
      try {
        http = HttpConfig.parse(am, baseDir);
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
      List<String> files = fileSdFiles(am, "alertmanager config", baseDir);
      if (!files.isEmpty()) {
        amFiles.add(new AlertmanagerFiles(files, scheme, prefix, http));
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
      Set<String> known = new HashSet<>(Set.of("job_name", "scrape_interval", "scrape_timeout", "metrics_path",
          "scheme", "honor_labels", "honor_timestamps", "static_configs", "file_sd_configs"));
      known.addAll(HttpConfig.KEYS);
      warnUnknown(sc, "scrape_configs[" + job + "].", known);
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
      ClientOptions http;
      try {
        http = HttpConfig.parse(sc, baseDir);
      } catch (IllegalArgumentException e) {
        throw new ConfigException("scrape config with job name \"" + job + "\": " + e.getMessage());
      }
      scrapes.add(new ScrapeConfig(job, si, st, sc.path("metrics_path").asText("/metrics"), scheme,
          sc.path("honor_labels").asBoolean(false), sc.path("honor_timestamps").asBoolean(true),
          List.copyOf(statics), http, fileSdFiles(sc, "scrape config with job name \"" + job + "\"", baseDir)));
    }
    return new Config(global, List.copyOf(rules), List.copyOf(ams), List.copyOf(scrapes), Map.copyOf(amHttp),
        List.copyOf(amFiles));
  }

  /**
   * The files of a {@code file_sd_configs} list, relative ones resolved against {@code baseDir}. As Prometheus: a
   * file must end in .json, .yml or .yaml, and a glob may only be in the last path element.
   */
  private static List<String> fileSdFiles(JsonNode parent, String where, Path baseDir) {
    List<String> out = new ArrayList<>();
    for (JsonNode fsd : parent.path("file_sd_configs")) {
      for (JsonNode f : fsd.path("files")) {
        String name = f.asText();
        if (!name.matches("^[^*]*(\\*[^/]*)?\\.(json|yml|yaml|JSON|YML|YAML)$")) {
          throw new ConfigException(where + ": path name \"" + name + "\" is not valid for file discovery");
        }
        Path p = Path.of(name);
        out.add(p.isAbsolute() || baseDir == null ? name : baseDir.resolve(p).toString());
      }
      if (fsd.has("refresh_interval")) {
        duration(fsd, "refresh_interval", Duration.ofMinutes(5));
      }
    }
    return List.copyOf(out);
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
