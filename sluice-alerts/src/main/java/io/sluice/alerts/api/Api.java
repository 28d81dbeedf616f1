package io.sluice.alerts.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.re2j.PatternSyntaxException;
import io.sluice.alerts.config.ConfigException;
import io.sluice.alerts.dispatch.Dispatcher;
import io.sluice.alerts.labels.Matcher;
import io.sluice.alerts.labels.Matchers;
import io.sluice.alerts.silence.Silence;
import io.sluice.alerts.silence.SilenceException;
import io.sluice.alerts.state.ClusterStatus;
import io.sluice.alerts.types.Alert;
import io.sluice.alerts.types.Marker;
import io.sluice.alerts.types.Times;
import io.sluice.http.HttpRequest;
import io.sluice.http.HttpResponse;
import io.sluice.http.HttpServer;
import io.sluice.http.MalformedRequestException;
import io.sluice.http.MetricsPage;
import io.sluice.http.Json;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import com.google.re2j.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Alertmanager's HTTP API: v2 (paths and JSON shapes of its OpenAPI spec, errors as a JSON string) and the v1 alert
 * endpoints with v1's {@code {"status": ...}} envelope, plus the lifecycle endpoints.
 */
public final class Api {
  private static final Logger log = LoggerFactory.getLogger(Api.class);

  private final Backend b;

  private Api(Backend b) {
    this.b = b;
  }

  /** An API error with its status; the body shape depends on the API version that raised it. */
  static final class ApiError extends RuntimeException {
    final int status;
    final boolean v1;

    ApiError(int status, String message, boolean v1) {
      super(message);
      this.status = status;
      this.v1 = v1;
    }
  }

  /** A request that fails the OpenAPI schema: Alertmanager's go-swagger answers 422 with a code. */
  static final class ValidationError extends RuntimeException {
    final int code;

    ValidationError(int code, String message) {
      super(message);
      this.code = code;
    }
  }

  private static final Pattern UUID = Pattern.compile(
      "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$");

  private static String silenceId(HttpRequest r) {
    String id = r.pathParam("id");
    if (!UUID.matcher(id).matches()) {
      throw new ValidationError(601, "silenceID in path must be of type uuid: \"" + id + "\"");
    }
    return id;
  }

  public static HttpServer.Builder routes(HttpServer.Builder s, Backend backend) {
    Api a = new Api(backend);
    // Posting alerts only touches memory under short locks, and clients post many small requests: answered on the
    // thread that read them (about 1.8x the rate of single-alert posts on two cores).
    return s
        .get("/api/v2/alerts", a::getAlertsV2)
        .nonBlocking("POST", "/api/v2/alerts", a::postAlertsV2)
        .get("/api/v2/alerts/groups", a::getGroups)
        .get("/api/v2/silences", a::getSilences)
        .post("/api/v2/silences", a::postSilence)
        .get("/api/v2/silence/{id}", a::getSilence)
        .delete("/api/v2/silence/{id}", a::deleteSilence)
        .get("/api/v2/status", a::status)
        .get("/api/v2/receivers", a::receivers)
        .get("/api/v1/alerts", a::getAlertsV1)
        .nonBlocking("POST", "/api/v1/alerts", a::postAlertsV1)
        .get("/-/healthy", r -> HttpResponse.text(200, "text/plain; charset=utf-8", "OK"))
        .get("/-/ready", r -> HttpResponse.text(200, "text/plain; charset=utf-8", "OK"))
        .post("/-/reload", a::reload)
        .get("/metrics", MetricsPage.serving(backend.metrics().registry()))
        .onError(Api::error);
  }

  private static HttpResponse error(Throwable e) {
    if (e instanceof MalformedRequestException m) {
      return HttpResponse.json(m.status(), Map.of("code", m.status(), "message", m.getMessage()));
    }
    if (e instanceof ApiError ae) {
      if (ae.v1) {
        return HttpResponse.json(ae.status, Map.of("status", "error",
            "errorType", ae.status == 400 ? "bad_data" : "server_error", "error", ae.getMessage()));
      }
      return HttpResponse.json(ae.status, ae.getMessage());
    }
    if (e instanceof Json.MalformedJsonException) {
      return HttpResponse.json(400, Map.of("code", 400, "message", e.getMessage()));
    }
    if (e instanceof ValidationError v) {
      return HttpResponse.json(422, Map.of("code", v.code, "message", v.getMessage()));
    }
    log.error("API handler failed", e);
    return HttpResponse.json(500, String.valueOf(e.getMessage()));
  }

  // ---- alerts ----

  private HttpResponse postAlertsV2(HttpRequest r) {
    ingest(r, false);
    return HttpResponse.empty(200);
  }

  private HttpResponse postAlertsV1(HttpRequest r) {
    ingest(r, true);
    return HttpResponse.json(200, Map.of("status", "success"));
  }

  /** Stores every valid alert of the batch and answers 400 naming the invalid ones, as Alertmanager does. */
  private void ingest(HttpRequest r, boolean v1) {
    List<PostedAlerts.Posted> posted;
    try {
      posted = PostedAlerts.parse(r.body());
    } catch (Json.MalformedJsonException e) {
      if (!v1) {
        throw new Json.MalformedJsonException("parsing alerts body from \"\" failed, because " + e.getMessage());
      }
      throw new ApiError(400, "parsing request body: " + e.getMessage(), v1);
    }
    Instant now = b.clock().instant();
    // One instance for every alert of the batch that gets the default end.
    Instant defaultEnd = now.plus(b.config().global().resolveTimeout());
    List<String> errors = new ArrayList<>();
    List<Alert> valid = new ArrayList<>(posted.size());
    for (PostedAlerts.Posted n : posted) {
      try {
        valid.add(alert(n, now, defaultEnd));
      } catch (IllegalArgumentException e) {
        errors.add(e.getMessage());
      }
    }
    if (!errors.isEmpty()) {
      b.metrics().add("alertmanager_alerts_invalid_total", "version", v1 ? "v1" : "v2", errors.size());
    }
    int resolved = 0;
    for (Alert a : valid) {
      if (a.resolvedAt(now)) {
        resolved++;
      }
      b.alerts().put(a);
    }
    if (resolved > 0) {
      b.metrics().add("alertmanager_alerts_received_total", "status", "resolved", resolved);
    }
    if (valid.size() > resolved) {
      b.metrics().add("alertmanager_alerts_received_total", "status", "firing", valid.size() - resolved);
    }
    if (!errors.isEmpty()) {
      throw new ApiError(400, String.join("; ", errors), v1);
    }
  }

  private static Alert alert(PostedAlerts.Posted n, Instant now, Instant defaultEnd) {
    if (n.problem() != null) {
      throw new IllegalArgumentException(n.problem());
    }
    Map<String, String> labels = n.labels();
    Map<String, String> annotations = n.annotations();
    Instant start = time(n.startsAt(), "startsAt");
    Instant end = time(n.endsAt(), "endsAt");
    if (start == null) {
      start = end == null ? now : end;
    }
    boolean timeout = false;
    if (end == null) {
      timeout = true;
      end = defaultEnd;
    }
    if (labels.isEmpty()) {
      throw new IllegalArgumentException("at least one label pair required");
    }
    for (String name : labels.keySet()) {
      if (!Matchers.validLabelName(name)) {
        throw new IllegalArgumentException("invalid label set: invalid name \"" + name + "\"");
      }
    }
    for (String name : annotations.keySet()) {
      if (!Matchers.validLabelName(name)) {
        throw new IllegalArgumentException("invalid annotations: invalid name \"" + name + "\"");
      }
    }
    if (end.isBefore(start)) {
      throw new IllegalArgumentException("start time must be before end time");
    }
    return Alert.of(labels, annotations, start, end, n.generatorURL(), now, timeout);
  }

  private static Instant time(String s, String field) {
    if (s.isEmpty() || s.startsWith("0001-01-01")) {
      return null;
    }
    try {
      return Times.parse(s);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("invalid " + field + " \"" + s + "\": not an RFC 3339 time");
    }
  }

  /** The alert filter of the v2 API and the UI: the query parameters of GET /api/v2/alerts. */
  private record Filter(List<Matcher> matchers, boolean silenced, boolean inhibited, boolean active,
      Optional<Pattern> receiver) {}

  private Filter filter(HttpRequest r, boolean v1) {
    List<Matcher> ms = new ArrayList<>();
    for (String f : r.params("filter")) {
      try {
        ms.addAll(Matchers.parse(f));
      } catch (IllegalArgumentException e) {
        throw new ApiError(400, "bad matcher format: " + f, v1);
      }
    }
    Optional<Pattern> receiver = Optional.empty();
    Optional<String> rx = r.param("receiver").filter(s -> !s.isEmpty());
    if (rx.isPresent()) {
      try {
        receiver = Optional.of(Pattern.compile("^(?:" + rx.get() + ")$"));
      } catch (PatternSyntaxException e) {
        throw new ApiError(400, "failed to parse receiver param: " + e.getDescription(), v1);
      }
    }
    return new Filter(ms, bool(r, "silenced"), bool(r, "inhibited"), bool(r, "active"), receiver);
  }

  private static boolean bool(HttpRequest r, String name) {
    return r.param(name).map(v -> !v.equalsIgnoreCase("false")).orElse(true);
  }

  private boolean keep(Alert a, List<String> receivers, Marker.Status st, Filter f, Instant now) {
    if (a.resolvedAt(now)) {
      return false;
    }
    if (!Matchers.matchesAll(f.matchers, a.labels())) {
      return false;
    }
    if (f.receiver.isPresent() && receivers.stream().noneMatch(x -> f.receiver.get().matcher(x).matches())) {
      return false;
    }
    if (!f.silenced && !st.silencedBy().isEmpty()) {
      return false;
    }
    if (!f.inhibited && !st.inhibitedBy().isEmpty()) {
      return false;
    }
    return f.active || st.suppressed();
  }

  private Map<String, Object> alertJson(Alert a, List<String> receivers, Marker.Status st, boolean v1) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("annotations", a.annotations());
    m.put("endsAt", Times.format(a.endsAt()));
    m.put("fingerprint", a.fingerprintHex());
    if (v1) {
      m.put("receivers", receivers);
    } else {
      m.put("receivers", receivers.stream().map(x -> Map.of("name", x)).toList());
    }
    m.put("startsAt", Times.format(a.startsAt()));
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("inhibitedBy", st.inhibitedBy());
    status.put("silencedBy", st.silencedBy());
    status.put("state", st.suppressed() ? "suppressed" : "active");
    m.put("status", status);
    m.put("updatedAt", Times.format(a.updatedAt()));
    if (!a.generatorURL().isEmpty()) {
      m.put("generatorURL", a.generatorURL());
    }
    m.put("labels", a.labels());
    return m;
  }

  private List<Map<String, Object>> listAlerts(HttpRequest r, boolean v1) {
    Filter f = filter(r, v1);
    Instant now = b.clock().instant();
    Dispatcher d = b.dispatcher();
    List<Alert> all = new ArrayList<>(b.alerts().all());
    all.sort((x, y) -> Long.compareUnsigned(x.fingerprint(), y.fingerprint()));
    List<Map<String, Object>> out = new ArrayList<>();
    for (Alert a : all) {
      if (a.resolvedAt(now)) {
        continue;
      }
      List<String> receivers = new ArrayList<>(d.receivers(a.labels()));
      b.refreshStatus(a.labels());
      Marker.Status st = b.marker().status(a.fingerprint());
      if (keep(a, receivers, st, f, now)) {
        out.add(alertJson(a, receivers, st, v1));
      }
    }
    return out;
  }

  private HttpResponse getAlertsV2(HttpRequest r) {
    return HttpResponse.json(200, listAlerts(r, false));
  }

  private HttpResponse getAlertsV1(HttpRequest r) {
    return HttpResponse.json(200, Map.of("status", "success", "data", listAlerts(r, true)));
  }

  private HttpResponse getGroups(HttpRequest r) {
    Filter f = filter(r, false);
    Instant now = b.clock().instant();
    List<Map<String, Object>> out = new ArrayList<>();
    List<Dispatcher.GroupView> groups = new ArrayList<>(b.dispatcher().groups());
    groups.sort(Comparator.comparing(Dispatcher.GroupView::groupKey));
    for (Dispatcher.GroupView g : groups) {
      if (f.receiver.isPresent() && !f.receiver.get().matcher(g.receiver()).matches()) {
        continue;
      }
      List<Map<String, Object>> alerts = new ArrayList<>();
      for (Alert stale : g.alerts()) {
        Alert a = Optional.ofNullable(b.alerts().get(stale.fingerprint())).orElse(stale);
        List<String> receivers = new ArrayList<>(b.dispatcher().receivers(a.labels()));
        b.refreshStatus(a.labels());
        Marker.Status st = b.marker().status(a.fingerprint());
        if (keep(a, receivers, st, new Filter(f.matchers, f.silenced, f.inhibited, f.active, Optional.empty()), now)) {
          alerts.add(alertJson(a, receivers, st, false));
        }
      }
      if (!alerts.isEmpty()) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("alerts", alerts);
        m.put("labels", g.labels());
        m.put("receiver", Map.of("name", g.receiver()));
        out.add(m);
      }
    }
    return HttpResponse.json(200, out);
  }

  // ---- silences ----

  private Map<String, Object> silenceJson(Silence s, Instant now) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", s.id());
    m.put("status", Map.of("state", s.state(now).apiName()));
    m.put("updatedAt", Times.format(s.updatedAt()));
    m.put("comment", s.comment());
    m.put("createdBy", s.createdBy());
    m.put("endsAt", Times.format(s.endsAt()));
    List<Map<String, Object>> ms = new ArrayList<>();
    for (Matcher x : s.matchers()) {
      Map<String, Object> mm = new LinkedHashMap<>();
      mm.put("isEqual", x.type().isEqual());
      mm.put("isRegex", x.type().isRegex());
      mm.put("name", x.name());
      mm.put("value", x.value());
      ms.add(mm);
    }
    m.put("matchers", ms);
    m.put("startsAt", Times.format(s.startsAt()));
    return m;
  }

  private HttpResponse getSilences(HttpRequest r) {
    List<Matcher> filter = new ArrayList<>();
    for (String f : r.params("filter")) {
      try {
        filter.addAll(Matchers.parse(f));
      } catch (IllegalArgumentException e) {
        throw new ApiError(400, "bad matcher format: " + f, false);
      }
    }
    Instant now = b.clock().instant();
    List<Silence> list = new ArrayList<>();
    for (Silence s : b.silences().all()) {
      if (matchesFilter(s, filter)) {
        list.add(s);
      }
    }
    // Alertmanager's order: active by end, then pending by start, then expired, most recently ended first.
    list.sort(Comparator.<Silence>comparingInt(s -> rank(s.state(now)))
        .thenComparing((x, y) -> switch (x.state(now)) {
          case ACTIVE -> x.endsAt().compareTo(y.endsAt());
          case PENDING -> x.startsAt().compareTo(y.startsAt());
          case EXPIRED -> y.endsAt().compareTo(x.endsAt());
        }));
    return HttpResponse.json(200, list.stream().map(s -> silenceJson(s, now)).toList());
  }

  private static int rank(Silence.State state) {
    return switch (state) {
      case ACTIVE -> 0;
      case PENDING -> 1;
      case EXPIRED -> 2;
    };
  }

  private static boolean matchesFilter(Silence s, List<Matcher> filter) {
    for (Matcher f : filter) {
      boolean any = false;
      for (Matcher m : s.matchers()) {
        if (m.name().equals(f.name()) && f.matches(m.value())) {
          any = true;
          break;
        }
      }
      if (!any) {
        return false;
      }
    }
    return true;
  }

  private HttpResponse postSilence(HttpRequest r) {
    JsonNode n;
    try {
      n = Json.read(r.body());
    } catch (Json.MalformedJsonException e) {
      throw new Json.MalformedJsonException("parsing silence body from \"\" failed, because " + e.getMessage());
    }
    for (String req : List.of("comment", "createdBy", "endsAt", "matchers", "startsAt")) {
      if (!n.hasNonNull(req)) {
        throw new ValidationError(602, req + " in body is required");
      }
    }
    List<Matcher> ms = new ArrayList<>();
    for (JsonNode m : n.path("matchers")) {
      boolean regex = m.path("isRegex").asBoolean(false);
      boolean equal = m.path("isEqual").asBoolean(true);
      Matcher.Type t = regex ? (equal ? Matcher.Type.RE : Matcher.Type.NRE) : (equal ? Matcher.Type.EQ : Matcher.Type.NE);
      try {
        ms.add(Matcher.of(m.path("name").asText(""), t, m.path("value").asText("")));
      } catch (IllegalArgumentException e) {
        throw new ApiError(400, e.getMessage(), false);
      }
    }
    Instant start;
    Instant end;
    try {
      start = Times.parse(n.path("startsAt").asText());
      end = Times.parse(n.path("endsAt").asText());
    } catch (RuntimeException e) {
      throw new ApiError(400, "startsAt and endsAt must be RFC 3339 times", false);
    }
    if (!start.isBefore(end)) {
      throw new ApiError(400, "Failed to create silence: start time must be before end time", false);
    }
    if (end.isBefore(b.clock().instant())) {
      throw new ApiError(400, "Failed to create silence: end time can't be in the past", false);
    }
    Silence s = new Silence(n.path("id").asText(""), ms, start, end, b.clock().instant(),
        n.path("createdBy").asText(), n.path("comment").asText());
    try {
      String id = b.silences().set(s);
      return HttpResponse.json(200, Map.of("silenceID", id));
    } catch (SilenceException e) {
      throw new ApiError(e.notFound() ? 404 : 400, e.getMessage(), false);
    }
  }

  private HttpResponse getSilence(HttpRequest r) {
    Optional<Silence> s = b.silences().get(silenceId(r));
    if (s.isEmpty()) {
      return HttpResponse.empty(404);
    }
    return HttpResponse.json(200, silenceJson(s.get(), b.clock().instant()));
  }

  private HttpResponse deleteSilence(HttpRequest r) {
    try {
      b.silences().expire(silenceId(r));
      return HttpResponse.empty(200);
    } catch (SilenceException e) {
      if (e.notFound()) {
        return HttpResponse.empty(404);
      }
      throw new ApiError(500, e.getMessage(), false);
    }
  }

  // ---- status ----

  private HttpResponse status(HttpRequest r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("cluster", clusterJson(b.cluster()));
    m.put("config", Map.of("original", b.config().maskedYaml()));
    m.put("uptime", Times.format(b.startedAt()));
    Map<String, Object> v = new LinkedHashMap<>();
    v.put("branch", "main");
    v.put("buildDate", "");
    v.put("buildUser", "sluice");
    v.put("goVersion", "java" + System.getProperty("java.specification.version"));
    v.put("revision", "");
    v.put("version", "0.25.0-sluice");
    m.put("versionInfo", v);
    return HttpResponse.json(200, m);
  }

  /** Alertmanager's ClusterStatus: name (absent when disabled), peers of {address, name}, status. */
  private static Map<String, Object> clusterJson(ClusterStatus c) {
    Map<String, Object> m = new LinkedHashMap<>();
    if (c.name() != null) {
      m.put("name", c.name());
    }
    List<Map<String, String>> peers = new ArrayList<>();
    for (var p : c.peers()) {
      Map<String, String> peer = new LinkedHashMap<>();
      peer.put("address", p.address());
      peer.put("name", p.name());
      peers.add(peer);
    }
    m.put("peers", peers);
    m.put("status", c.status());
    return m;
  }

  private HttpResponse receivers(HttpRequest r) {
    return HttpResponse.json(200,
        b.config().receivers().stream().map(x -> Map.of("name", x.name())).toList());
  }

  private HttpResponse reload(HttpRequest r) {
    try {
      b.reload();
      return HttpResponse.empty(200);
    } catch (ConfigException e) {
      return HttpResponse.text(500, "text/plain; charset=utf-8", "failed to reload config: " + e.getMessage());
    }
  }

}
