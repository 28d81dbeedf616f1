package io.sluice.metrics.web;

import io.sluice.http.HttpRequest;
import io.sluice.http.HttpResponse;
import io.sluice.http.MetricsPage;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.sluice.http.HttpServer;
import io.sluice.http.MalformedRequestException;
import io.sluice.metrics.model.Labels;
import io.sluice.metrics.model.Matcher;
import io.sluice.metrics.promql.Engine;
import io.sluice.metrics.promql.QueryException;
import io.sluice.metrics.promql.Value;
import io.sluice.metrics.promql.parser.Expr;
import io.sluice.metrics.promql.parser.ParseException;
import io.sluice.metrics.promql.parser.Parser;
import io.sluice.metrics.scrape.Target;
import io.sluice.metrics.storage.Querier;
import io.sluice.metrics.storage.Queryable;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Prometheus's HTTP API v1 (the parts Grafana and promtool use), the health endpoints and the {@code /targets} page.
 * Errors have Prometheus's shape and status codes: bad_data 400, execution 422, timeout 503, internal 500.
 */
public final class Api {
  /** Prometheus's minimum and maximum timestamps, used when a range is not given. */
  static final long MIN_TIME = (Long.MIN_VALUE / 1000 + 62135596801L) * 1000;
  static final long MAX_TIME = (Long.MAX_VALUE / 1000 - 62135596801L) * 1000 + 999;
  private static final int MAX_POINTS = 11_000;

  private final Queryable storage;
  private final Engine engine;
  private final Clock clock;
  private final Supplier<List<Target>> targets;
  private final BooleanSupplier ready;
  private final String version;
  private PrometheusRegistry selfMetrics = new PrometheusRegistry();

  public Api(Queryable storage, Engine engine, Clock clock, Supplier<List<Target>> targets, BooleanSupplier ready,
      String version) {
    this.storage = storage;
    this.engine = engine;
    this.clock = clock;
    this.targets = targets;
    this.ready = ready;
    this.version = version;
  }

  /** The server's own exposition, served on {@code /metrics} so it can scrape itself. */
  public Api selfMetrics(PrometheusRegistry registry) {
    this.selfMetrics = registry;
    return this;
  }

  /** Adds every route of the API to a server under construction. */
  public HttpServer.Builder register(HttpServer.Builder b) {
    return GraphPage.register(b).get("/api/v1/query", this::query).post("/api/v1/query", this::query)
        .get("/api/v1/query_range", this::queryRange).post("/api/v1/query_range", this::queryRange)
        .get("/api/v1/series", this::series).post("/api/v1/series", this::series)
        .get("/api/v1/labels", this::labels).post("/api/v1/labels", this::labels)
        .get("/api/v1/label/{name}/values", this::labelValues)
        .get("/api/v1/targets", this::targetsJson)
        .get("/api/v1/metadata", r -> ok("{}"))
        // Grafana asks for exemplars when a panel enables them; we store none, but check the request as Prometheus.
        .get("/api/v1/query_exemplars", this::exemplars).post("/api/v1/query_exemplars", this::exemplars)
        .get("/api/v1/status/buildinfo", this::buildInfo)
        .get("/metrics", r -> MetricsPage.render(selfMetrics, r.header("accept").orElse("")))
        .get("/-/healthy", r -> HttpResponse.text(200, "text/plain; charset=utf-8", "Prometheus Server is Healthy.\n"))
        .get("/-/ready", r -> ready.getAsBoolean()
            ? HttpResponse.text(200, "text/plain; charset=utf-8", "Prometheus Server is Ready.\n")
            : HttpResponse.text(503, "text/plain; charset=utf-8", "Service Unavailable"))
        .get("/targets", r -> HttpResponse.text(200, "text/html; charset=utf-8", TargetsPage.render(targets.get())))
        .notFound(r -> HttpResponse.text(404, "text/plain; charset=utf-8", "404 page not found\n"))
        .onError(Api::error);
  }

  // ---- errors

  private static String quoted(String text) {
    StringBuilder sb = new StringBuilder();
    ResultJson.string(sb, String.valueOf(text));
    return sb.toString();
  }

  /** An API error with Prometheus's errorType. */
  static final class ApiError extends RuntimeException {
    final String type;

    ApiError(String type, String message) {
      super(message);
      this.type = type;
    }
  }

  static ApiError badData(String message) {
    return new ApiError("bad_data", message);
  }

  static ApiError invalidParam(String param, String message) {
    return badData("invalid parameter \"" + param + "\": " + message);
  }

  static HttpResponse error(Throwable e) {
    String type;
    if (e instanceof MalformedRequestException m) {
      return HttpResponse.text(m.status(), HttpResponse.JSON, "{\"status\":\"error\",\"errorType\":\"bad_data\","
          + "\"error\":" + quoted(m.getMessage()) + "}");
    }
    if (e instanceof ApiError a) {
      type = a.type;
    } else if (e instanceof QueryException q) {
      type = q.errorType();
    } else if (e instanceof ParseException) {
      type = "bad_data";
    } else {
      type = "internal";
    }
    int status = switch (type) {
      case "bad_data" -> 400;
      case "execution" -> 422;
      case "canceled" -> 499;
      case "timeout", "unavailable" -> 503;
      case "not_found" -> 404;
      default -> 500;
    };
    StringBuilder sb = new StringBuilder("{\"status\":\"error\",\"errorType\":");
    ResultJson.string(sb, type);
    sb.append(",\"error\":");
    ResultJson.string(sb, String.valueOf(e.getMessage()));
    sb.append('}');
    return HttpResponse.text(status, HttpResponse.JSON, sb.toString());
  }

  private static HttpResponse ok(String dataJson) {
    return HttpResponse.text(200, HttpResponse.JSON, "{\"status\":\"success\",\"data\":" + dataJson + "}");
  }

  // ---- parameters

  static long parseTime(String param, String s) {
    try {
      BigDecimal secs = new BigDecimal(s.trim());
      return secs.movePointRight(3).setScale(0, RoundingMode.HALF_EVEN).longValueExact();
    } catch (NumberFormatException | ArithmeticException e) {
      // not seconds; try RFC 3339
    }
    try {
      return OffsetDateTime.parse(s.trim()).toInstant().toEpochMilli();
    } catch (DateTimeParseException e) {
      throw invalidParam(param, "cannot parse \"" + s + "\" to a valid timestamp");
    }
  }

  static long parseDuration(String param, String s) {
    try {
      BigDecimal secs = new BigDecimal(s.trim());
      long ms = secs.movePointRight(3).setScale(0, RoundingMode.HALF_EVEN).longValueExact();
      return ms;
    } catch (NumberFormatException | ArithmeticException e) {
      // not seconds; try a Prometheus duration
    }
    try {
      return Parser.parseDuration(s.trim());
    } catch (ParseException e) {
      throw invalidParam(param, "cannot parse \"" + s + "\" to a valid duration");
    }
  }

  private long timeParam(HttpRequest r, String name, long dflt) {
    return r.param(name).filter(s -> !s.isEmpty()).map(s -> parseTime(name, s)).orElse(dflt);
  }

  private static Expr parseQuery(HttpRequest r) {
    String q = r.param("query").orElse("");
    try {
      return Parser.parse(q);
    } catch (ParseException e) {
      throw invalidParam("query", e.getMessage());
    }
  }

  private Engine engineFor(HttpRequest r) {
    return r.param("timeout").filter(s -> !s.isEmpty()).map(s -> {
      long ms = parseDuration("timeout", s);
      return engine.withTimeout(Duration.ofMillis(ms));
    }).orElse(engine);
  }

  // ---- handlers

  private HttpResponse query(HttpRequest r) {
    long t = timeParam(r, "time", clock.millis());
    Engine e = engineFor(r);
    Expr expr = parseQuery(r);
    Value v = e.instantQuery(storage, expr, t);
    return HttpResponse.text(200, HttpResponse.JSON, ResultJson.success(v));
  }

  private HttpResponse exemplars(HttpRequest r) {
    long start = r.param("start").map(v -> parseTime("start", v)).orElse(Long.MIN_VALUE);
    long end = r.param("end").map(v -> parseTime("end", v)).orElse(Long.MAX_VALUE);
    if (end < start) {
      throw invalidParam("end", "end timestamp must not be before start time");
    }
    parseQuery(r);
    return ok("[]");
  }

  private HttpResponse queryRange(HttpRequest r) {
    long start = parseTime("start", r.param("start").orElse(""));
    long end = parseTime("end", r.param("end").orElse(""));
    if (end < start) {
      throw invalidParam("end", "end timestamp must not be before start time");
    }
    long step = parseDuration("step", r.param("step").orElse(""));
    if (step <= 0) {
      throw invalidParam("step", "zero or negative query resolution step widths are not accepted. Try a positive "
          + "integer");
    }
    if ((end - start) / step > MAX_POINTS) {
      throw badData("exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query "
          + "resolution (?step=XX)");
    }
    Engine e = engineFor(r);
    Expr expr;
    try {
      expr = Parser.parse(r.param("query").orElse(""));
    } catch (ParseException pe) {
      // Prometheus names the parameter for an instant query's parse error, not for a range query's.
      throw badData(pe.getMessage());
    }
    try {
      Value v = e.rangeQuery(storage, expr, start, end, step);
      return HttpResponse.text(200, HttpResponse.JSON, ResultJson.success(v));
    } catch (ParseException pe) {
      throw badData(pe.getMessage());
    }
  }

  private List<List<Matcher>> matchers(HttpRequest r) {
    List<List<Matcher>> out = new ArrayList<>();
    for (String m : r.params("match[]")) {
      try {
        out.add(Parser.parseSelector(m));
      } catch (ParseException e) {
        throw invalidParam("match[]", e.getMessage());
      }
    }
    return out;
  }

  private HttpResponse series(HttpRequest r) {
    // Prometheus parses this endpoint's form itself and refuses a pair that does not decode; its other endpoints
    // read single values, and Go leaves such a pair out.
    if (r.queryError().isPresent()) {
      throw badData("error parsing form values: " + r.queryError().get());
    }
    List<List<Matcher>> sets = matchers(r);
    if (sets.isEmpty()) {
      throw badData("no match[] parameter provided");
    }
    long start = timeParam(r, "start", MIN_TIME);
    long end = timeParam(r, "end", MAX_TIME);
    Set<Labels> found = new TreeSet<>();
    try (Querier q = storage.querier(start, end)) {
      for (List<Matcher> ms : sets) {
        found.addAll(q.series(ms));
      }
    }
    StringBuilder sb = new StringBuilder("[");
    boolean first = true;
    for (Labels l : found) {
      if (!first) {
        sb.append(',');
      }
      first = false;
      ResultJson.labels(sb, l);
    }
    return ok(sb.append(']').toString());
  }

  private HttpResponse labels(HttpRequest r) {
    List<List<Matcher>> sets = matchers(r);
    long start = timeParam(r, "start", MIN_TIME);
    long end = timeParam(r, "end", MAX_TIME);
    Set<String> names = new TreeSet<>();
    try (Querier q = storage.querier(start, end)) {
      if (sets.isEmpty()) {
        names.addAll(q.labelNames(List.of()));
      }
      for (List<Matcher> ms : sets) {
        names.addAll(q.labelNames(ms));
      }
    }
    return ok(stringArray(names));
  }

  private HttpResponse labelValues(HttpRequest r) {
    String name = r.pathParam("name");
    if (!Labels.isValidLabelName(name)) {
      throw badData("invalid label name: \"" + name + "\"");
    }
    List<List<Matcher>> sets = matchers(r);
    long start = timeParam(r, "start", MIN_TIME);
    long end = timeParam(r, "end", MAX_TIME);
    Set<String> values = new TreeSet<>();
    try (Querier q = storage.querier(start, end)) {
      if (sets.isEmpty()) {
        values.addAll(q.labelValues(name, List.of()));
      }
      for (List<Matcher> ms : sets) {
        values.addAll(q.labelValues(name, ms));
      }
    }
    return ok(stringArray(values));
  }

  private static String stringArray(Iterable<String> items) {
    StringBuilder sb = new StringBuilder("[");
    boolean first = true;
    for (String s : items) {
      if (!first) {
        sb.append(',');
      }
      first = false;
      ResultJson.string(sb, s);
    }
    return sb.append(']').toString();
  }

  private HttpResponse targetsJson(HttpRequest r) {
    String state = r.param("state").orElse("any");
    List<Map<String, Object>> active = new ArrayList<>();
    if (!state.equals("dropped")) {
      for (Target t : targets.get()) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("discoveredLabels", t.discoveredLabels().toMap());
        m.put("labels", t.labels().toMap());
        m.put("scrapePool", t.job());
        m.put("scrapeUrl", t.url());
        m.put("globalUrl", t.url());
        m.put("lastError", t.lastError());
        Instant last = t.lastScrape();
        m.put("lastScrape", last == null ? "0001-01-01T00:00:00Z" : last.toString());
        m.put("lastScrapeDuration", t.lastDurationSeconds());
        m.put("health", t.health().apiName());
        m.put("scrapeInterval", goDuration(t.interval().toMillis()));
        m.put("scrapeTimeout", goDuration(t.timeout().toMillis()));
        active.add(m);
      }
    }
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("activeTargets", active);
    data.put("droppedTargets", List.of());
    data.put("droppedTargetCounts", Map.of());
    return HttpResponse.json(200, Map.of("status", "success", "data", data));
  }

  /** Prometheus's model.Duration spelling: 15s, 1m, 1h30m. */
  static String goDuration(long ms) {
    return Parser.formatDuration(ms);
  }

  private HttpResponse buildInfo(HttpRequest r) {
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("version", version);
    data.put("revision", "sluice");
    data.put("branch", "main");
    data.put("buildUser", "sluice");
    data.put("buildDate", "");
    data.put("goVersion", "java" + Runtime.version().feature());
    return HttpResponse.json(200, Map.of("status", "success", "data", data));
  }
}
