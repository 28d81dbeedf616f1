package io.sluice.console.web;

import static io.sluice.console.web.ConsoleReply.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.http.HttpRequest;
import io.sluice.http.HttpResponse;
import io.sluice.http.HttpServer;
import io.sluice.http.MalformedRequestException;
import io.sluice.http.Audit;
import io.sluice.http.Look;
import io.sluice.client.ClientOptions;
import io.sluice.http.web.Role;
import io.sluice.connect.client.ConnectRestClient;
import io.sluice.connect.client.ConnectorSilencer;
import io.sluice.client.HttpTransport;
import io.sluice.ops.dlq.DeadLetterQueue;
import io.sluice.registry.client.SchemaRegistryClient;
import io.sluice.serde.view.PayloadDecoder;
import java.time.Clock;
import io.sluice.topics.KafkaCluster;
import java.nio.file.Path;
import io.sluice.console.auth.Accounts;
import io.sluice.console.auth.LoginThrottle;
import io.sluice.console.auth.Sessions;
import io.sluice.console.auth.Sessions.Session;
import io.sluice.console.panels.Panel;
import io.sluice.console.panels.PipelinePanels;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The console's routes: login, password change and logout; the overview and pipeline pages; their data endpoints
 * under {@code /api/}; static files. Without a session a page redirects to the login and {@code /api/} answers 401;
 * with the default password still unchanged, only the password page opens (403 on {@code /api/}); every POST needs
 * the session's CSRF token (the login form a token of its own, sent as a cookie and a field alike).
 */
public final class Site {
  private static final Logger log = LoggerFactory.getLogger(Site.class);
  private static final Logger AUDIT = LoggerFactory.getLogger("io.sluice.audit");
  private static final ObjectMapper JSON = new ObjectMapper();
  static final String SESSION_COOKIE = "sluice_session";
  static final String LOGIN_COOKIE = "sluice_login";
  private static final String UPLOT = "META-INF/resources/webjars/uplot/1.6.30/dist/";
  private static final Map<String, String> ASSETS = Map.of(
      "app.css", "io/sluice/console/static/app.css",
      "app.js", "io/sluice/console/static/app.js",
      "dlq.js", "io/sluice/console/static/dlq.js",
      "alerts.js", "io/sluice/console/static/alerts.js",
      "uPlot.min.css", UPLOT + "uPlot.min.css",
      "uPlot.iife.min.js", UPLOT + "uPlot.iife.min.js");

  private final Accounts accounts;
  private final Sessions sessions;
  private final LoginThrottle throttle;
  private final Upstream upstream;
  private final boolean secureCookies;
  private final ConnectorConsole connectors;
  private final DataConsole data;
  private final ReconcileConsole reconcile;
  private final DlqConsole dlqs;
  private final AlertConsole alertPages;
  private final Function<String, Role> roles;
  private final Path auditDir;

  /**
   * How the console acts on connectors: Connect's REST API and, for silences, the alert router, each through the
   * client its options say; {@code silencer} may be null (no silence offered).
   *
   * @param roles each user's role, as the web configuration's {@code sluice_roles} gives it
   * @param auditDir the data directory whose {@code audit.log} gets a line per action, as the CLI's commands write
   * @param dlq the dead-letter queues of the Connect cluster's sinks, as {@code sluice dlq} reads and replays them
   *     (null: no DLQ page)
   * @param router the alert router the silences page reads and writes, on the path a pause silences on (null: none)
   */
  public record Actions(ConnectRestClient connect, ConnectorSilencer silencer, Function<String, Role> roles,
      Path auditDir, Data data, DeadLetterQueue dlq, HttpTransport router) {
    /** Without the DLQ and the silences pages. */
    public Actions(ConnectRestClient connect, ConnectorSilencer silencer, Function<String, Role> roles, Path auditDir,
        Data data) {
      this(connect, silencer, roles, auditDir, data, null, null);
    }
  }

  /**
   * Where the topic, consumer group and schema pages read: the Kafka cluster (null: no such pages' data) and the
   * schema registry with how to reach it (null URL: none); the topic of the connectors' secrets, where a reconcile
   * from a pipeline's page finds the databases' passwords as the worker does.
   */
  public record Data(KafkaCluster kafka, String registryUrl, ClientOptions registryClient, String secretsTopic) {
    /** The secrets topic a Connect worker of Sluice uses unless configured otherwise. */
    public static final String SECRETS_TOPIC = "sluice-connect-secrets";

    public Data(KafkaCluster kafka, String registryUrl, ClientOptions registryClient) {
      this(kafka, registryUrl, registryClient, SECRETS_TOPIC);
    }

    public static Data none() {
      return new Data(null, null, ClientOptions.defaults());
    }
  }

  public Site(Accounts accounts, Sessions sessions, LoginThrottle throttle, String metricsUrl,
      ClientOptions metricsClient, String alertsUrl, ClientOptions alertsClient, boolean secureCookies,
      Actions actions) {
    this.accounts = accounts;
    this.sessions = sessions;
    this.throttle = throttle;
    this.upstream = new Upstream(metricsUrl, metricsClient, alertsUrl, alertsClient);
    this.secureCookies = secureCookies;
    this.connectors = new ConnectorConsole(actions.connect(), actions.silencer());
    Data d = actions.data() == null ? Data.none() : actions.data();
    this.data = new DataConsole(d.kafka(), actions.connect(), d.registryUrl(), d.registryClient());
    this.dlqs = new DlqConsole(actions.dlq(), new PayloadDecoder(d.registryUrl() == null ? null
        : new SchemaRegistryClient(d.registryUrl(), d.registryClient())), Clock.systemUTC());
    this.alertPages = new AlertConsole(actions.router(), Clock.systemUTC());
    this.roles = actions.roles();
    this.auditDir = actions.auditDir();
    this.reconcile = new ReconcileConsole(actions.connect(), d.kafka(), d.secretsTopic(), o -> {
      // The run's end, beside the line of its start: what it found, as the CLI's exit code says it.
      audit("reconcile " + o.pipeline() + " " + o.status(), o.user(), o.address(), 200);
      try {
        Audit.append(auditDir, "console", "reconcile " + o.pipeline() + " finished", o.user(), o.address(),
            o.status());
      } catch (IOException e) {
        log.warn("cannot write the audit line of reconcile {} to {}: {}", o.pipeline(), auditDir.resolve(Audit.FILE),
            e.getMessage());
      }
    });
  }

  /** Ends what the site holds beside its routes (the threads that read Connect). */
  public void close() {
    connectors.close();
    data.close();
    reconcile.close();
    dlqs.close();
  }

  public HttpServer.Builder register(HttpServer.Builder b) {
    return b.get("/login", this::loginPage)
        .post("/login", this::login)
        .get("/password", r -> page(r, true, s -> html(200, render("password.html", s, Map.of("error", "")))))
        .post("/password", this::changePassword)
        .post("/logout", this::logout)
        .get("/", r -> page(r, false, s -> html(200, render("overview.html", s, Map.of()))))
        .get("/pipeline", r -> page(r, false, s -> html(200, render("pipeline.html", s, Map.of()))))
        .get("/connector", r -> page(r, false, s -> html(200, render("connector.html", s, Map.of()))))
        .get("/connector/edit", r -> page(r, false, s -> roleOf(s).allows(Role.ADMIN)
            ? html(200, render("connector-edit.html", s, Map.of()))
            : html(403, "<!doctype html><p>Editing a connector's config needs the role admin.</p>")))
        .get("/topics", r -> page(r, false, s -> html(200, render("topics.html", s, Map.of()))))
        .get("/topic", r -> page(r, false, s -> html(200, render("topic.html", s, Map.of()))))
        .get("/groups", r -> page(r, false, s -> html(200, render("groups.html", s, Map.of()))))
        .get("/schemas", r -> page(r, false, s -> html(200, render("schemas.html", s, Map.of()))))
        .get("/schema", r -> page(r, false, s -> html(200, render("schema.html", s, Map.of()))))
        .get("/api/topics", r -> api(r, s -> data.topics()))
        .get("/api/topic", r -> api(r, s -> data.topic(r)))
        .get("/api/topic/messages", r -> api(r, s -> data.messages(r)))
        .get("/api/groups", r -> api(r, s -> data.groups()))
        .get("/api/subjects", r -> api(r, s -> data.subjects(r)))
        .get("/api/subject", r -> api(r, s -> data.subject(r, roleOf(s))))
        .get("/api/subject/version", r -> api(r, s -> data.version(r)))
        .get("/api/subject/diff", r -> api(r, s -> data.diff(r)))
        .post("/api/subject/{action}", this::subjectAction)
        .get("/dlqs", r -> page(r, false, s -> html(200, render("dlqs.html", s, Map.of()))))
        .get("/dlq", r -> page(r, false, s -> html(200, render("dlq.html", s, Map.of()))))
        .get("/api/dlqs", r -> api(r, s -> dlqs.list(roleOf(s))))
        .get("/api/dlq", r -> api(r, s -> dlqs.topic(r, roleOf(s))))
        .get("/api/dlq/records", r -> api(r, s -> dlqs.records(r)))
        .get("/api/dlq/replay", r -> api(r, s -> dlqs.replayStatus(r)))
        .post("/api/dlq/{action}", this::dlqAction)
        .get("/alerts", r -> page(r, false, s -> html(200, render("alerts.html", s, Map.of()))))
        .get("/api/alert-groups", r -> api(r, s -> alertPages.groups(roleOf(s))))
        .get("/api/silences", r -> api(r, s -> alertPages.silences(roleOf(s))))
        .post("/api/silence/{action}", this::silenceAction)
        .get("/api/connectors", r -> api(r, s -> json(200, Overview.rows(upstream, connectors.pool()))))
        .get("/api/connector", r -> api(r, s -> connectors.describe(r.param("name").orElse(""), roleOf(s))))
        .post("/api/connector/{action}", this::connectorAction)
        .get("/api/pipeline", r -> api(r, s -> pipeline(r)))
        .get("/api/reconcile", r -> api(r, s -> reconcile.state(r.param("name").orElse(""), roleOf(s))))
        .post("/api/reconcile/{action}", this::reconcileAction)
        .get("/api/query", r -> api(r, s -> proxy("query", r, "query", "time")))
        .get("/api/query_range", r -> api(r, s -> proxy("query_range", r, "query", "start", "end", "step")))
        .get("/api/alerts", r -> api(r, s -> alerts(r)))
        .get("/static/{file}", this::asset)
        .get("/-/healthy", r -> HttpResponse.text(200, "text/plain; charset=utf-8", "Sluice console is healthy.\n"))
        .notFound(r -> HttpResponse.text(404, "text/plain; charset=utf-8", "404 page not found\n"))
        .onError(e -> {
          if (e instanceof MalformedRequestException m) {
            // Past the body limit (413) or not HTTP the server can read: the client's error.
            return HttpResponse.text(m.status(), "text/plain; charset=utf-8", m.getMessage() + "\n");
          }
          log.error("console request failed", e);
          return HttpResponse.text(500, "text/plain; charset=utf-8", "internal error\n");
        });
  }

  // ---- sessions

  /**
   * The request's live session. One whose user has since got another password (from {@code sluice ui user passwd},
   * or in another session) or is gone ends here, as a password change ends the sessions it was meant to lock out.
   */
  private Optional<Session> session(HttpRequest r) {
    Optional<Session> s = sessions.find(cookie(r, SESSION_COOKIE));
    if (s.isPresent() && !accounts.find(s.get().user()).map(a -> a.hash().equals(s.get().credential()))
        .orElse(false)) {
      sessions.end(s.get().id());
      return Optional.empty();
    }
    return s;
  }

  /** A page: the login without a session, the password page while the password must change. */
  private HttpResponse page(HttpRequest r, boolean passwordPage, Function<Session, HttpResponse> h) {
    Optional<Session> s = session(r);
    if (s.isEmpty()) {
      return redirect("/login");
    }
    if (s.get().mustChange() && !passwordPage) {
      return redirect("/password");
    }
    return h.apply(s.get());
  }

  /** A data endpoint: 401 without a session, 403 until the default password is changed. */
  private HttpResponse api(HttpRequest r, Function<Session, HttpResponse> h) {
    Optional<Session> s = session(r);
    if (s.isEmpty()) {
      return json(401, JSON.createObjectNode().put("error", "login required"));
    }
    if (s.get().mustChange()) {
      return json(403, JSON.createObjectNode().put("error", "the password must be changed first"));
    }
    return h.apply(s.get());
  }

  private HttpResponse loginPage(HttpRequest r) {
    String token = Sessions.randomToken();
    return html(200, render("login.html", null, Map.of("csrf", token, "error", "")))
        .withHeader("Set-Cookie", cookieHeader(LOGIN_COOKIE, token, "/login", 600));
  }

  private HttpResponse login(HttpRequest r) {
    Map<String, List<String>> form = HttpRequest.parseForm(r.bodyText());
    String user = first(form, "user");
    String password = first(form, "password");
    String address = r.remoteAddress();
    String expected = cookie(r, LOGIN_COOKIE);
    if (expected == null || !constantTimeEquals(expected, first(form, "csrf"))) {
      audit("POST /login", user, address, 403);
      return html(403, "<!doctype html><p>The login form has expired; <a href=\"/login\">open it again</a>.</p>");
    }
    Duration wait = throttle.wait(user, address);
    if (!wait.isZero()) {
      audit("POST /login", user, address, 429);
      return loginAgain(429, expected, "Too many failed logins: try again in " + Math.max(1, wait.toSeconds())
          + " s.").withHeader("Retry-After", String.valueOf(Math.max(1, wait.toSeconds())));
    }
    Optional<Accounts.Account> account = accounts.verify(user, password);
    if (account.isEmpty()) {
      throttle.failed(user, address);
      audit("POST /login", user, address, 401);
      return loginAgain(401, expected, "Wrong user name or password.");
    }
    throttle.succeeded(user, address);
    Session s = sessions.start(user, account.get().mustChange(), account.get().hash());
    audit("POST /login", user, address, 303);
    return redirect(s.mustChange() ? "/password" : "/")
        .withHeader("Set-Cookie", cookieHeader(SESSION_COOKIE, s.id(), "/", Sessions.ABSOLUTE.toSeconds()));
  }

  private HttpResponse loginAgain(int status, String token, String error) {
    return html(status, render("login.html", null, Map.of("csrf", token, "error", error)));
  }

  private HttpResponse changePassword(HttpRequest r) {
    Optional<Session> s = session(r);
    Map<String, List<String>> form = HttpRequest.parseForm(r.bodyText());
    if (s.isEmpty()) {
      return redirect("/login");
    }
    if (!constantTimeEquals(s.get().csrf(), first(form, "csrf"))) {
      audit("POST /password", s.get().user(), r.remoteAddress(), 403);
      return html(403, "<!doctype html><p>Missing or wrong CSRF token.</p>");
    }
    String current = first(form, "current");
    String next = first(form, "password");
    String error = null;
    if (accounts.verify(s.get().user(), current).isEmpty()) {
      error = "The current password is wrong.";
    } else if (!next.equals(first(form, "confirm"))) {
      error = "The two new passwords differ.";
    } else {
      try {
        accounts.setPassword(s.get().user(), next);
      } catch (IllegalArgumentException e) {
        error = e.getMessage().substring(0, 1).toUpperCase() + e.getMessage().substring(1) + ".";
      }
    }
    if (error != null) {
      audit("POST /password", s.get().user(), r.remoteAddress(), 400);
      return html(400, render("password.html", s.get(), Map.of("error", error)));
    }
    sessions.passwordChanged(s.get(), accounts.find(s.get().user()).map(Accounts.Account::hash).orElse(""));
    audit("POST /password", s.get().user(), r.remoteAddress(), 303);
    return redirect("/");
  }

  private HttpResponse logout(HttpRequest r) {
    Optional<Session> s = session(r);
    Map<String, List<String>> form = HttpRequest.parseForm(r.bodyText());
    if (s.isPresent() && !constantTimeEquals(s.get().csrf(), first(form, "csrf"))) {
      audit("POST /logout", s.get().user(), r.remoteAddress(), 403);
      return html(403, "<!doctype html><p>Missing or wrong CSRF token.</p>");
    }
    s.ifPresent(x -> {
      sessions.end(x.id());
      audit("POST /logout", x.user(), r.remoteAddress(), 303);
    });
    return redirect("/login").withHeader("Set-Cookie", cookieHeader(SESSION_COOKIE, "", "/", 0));
  }

  // ---- actions

  private Role roleOf(Session s) {
    return roles.apply(s.user());
  }

  /**
   * A connector action ({@code pause}, {@code resume}, {@code restart}, {@code stop}, {@code delete}, {@code validate},
   * {@code apply}), its JSON body naming the connector; every outcome but a validation is audited, refusals included.
   */
  private HttpResponse connectorAction(HttpRequest r) {
    return action(r, "connector", ConnectorConsole::roleFor, a -> a + " a connector",
        a -> !a.equals("validate"), ConnectorConsole::auditName,
        (a, body, user) -> connectors.act(a, body, user));
  }

  /**
   * A schema action ({@code compatibility}: set a subject's, admin; {@code check}: a candidate, read); setting a
   * compatibility is audited, refusals included, as {@code schema compatibility <subject>}.
   */
  private HttpResponse subjectAction(HttpRequest r) {
    return action(r, "subject", DataConsole::roleFor, a -> "set a subject's " + a, a -> !a.equals("check"),
        a -> "schema " + a, (a, body, user) -> data.act(a, body));
  }

  /**
   * {@code run}: reconcile a pipeline's tables in the background (operate), audited as {@code reconcile <pipeline>} when
   * it starts or is refused, and again when it ends with what it found.
   */
  private HttpResponse reconcileAction(HttpRequest r) {
    return action(r, "reconcile", ReconcileConsole::roleFor, a -> "reconcile a pipeline", a -> true,
        a -> "reconcile", (a, body, user) -> reconcile.act(a, body, user, r.remoteAddress()));
  }

  /**
   * A DLQ action ({@code replay}: an error group or picked records of the dead-letter topic the body names, operate),
   * audited as {@code dlq replay <topic>}, refusals included.
   */
  private HttpResponse dlqAction(HttpRequest r) {
    return action(r, "dlq", DlqConsole::roleFor, a -> a + " dead-letter records", a -> true, a -> "dlq " + a,
        (a, body, user) -> dlqs.act(a, body, user));
  }

  /**
   * A silence action ({@code add}, {@code update}, {@code expire}; operate), audited as amtool names it
   * ({@code silence expire <id>}), refusals included.
   */
  private HttpResponse silenceAction(HttpRequest r) {
    return action(r, "silence", AlertConsole::roleFor, a -> a + " a silence", a -> true, AlertConsole::auditName,
        (a, body, user) -> alertPages.act(a, body, user));
  }

  /** What a console action does once it is allowed: the action's name, its JSON body, the user. */
  @FunctionalInterface
  private interface ActionRun {
    HttpResponse run(String action, JsonNode body, String user);
  }

  /**
   * One console action under {@code /api/<kind>/<action>}, checked in this order: a known action (404), a session
   * (401), the password changed (403), the session's CSRF token in {@code X-CSRF-Token} (403), the action's role (403),
   * a JSON object body (400); the outcome, refusals included, is an audit line and a line of the CLI's audit file
   * where {@code audited} says so, named {@code auditName(action)} and the body's {@code name}.
   */
  private HttpResponse action(HttpRequest r, String kind, Function<String, Role> roleFor,
      Function<String, String> refusal, Predicate<String> audited, Function<String, String> auditName, ActionRun run) {
    String action = r.pathParam("action");
    Role needed = roleFor.apply(action);
    if (needed == null) {
      return json(404, JSON.createObjectNode().put("error", "no action " + action));
    }
    Optional<Session> s = session(r);
    if (s.isEmpty()) {
      return json(401, JSON.createObjectNode().put("error", "login required"));
    }
    if (s.get().mustChange()) {
      return json(403, JSON.createObjectNode().put("error", "the password must be changed first"));
    }
    JsonNode body;
    try {
      body = JSON.readTree(r.bodyText().isBlank() ? "{}" : r.bodyText());
    } catch (IOException e) {
      body = null;
    }
    String name = body != null ? body.path("name").asText("") : "";
    HttpResponse out;
    if (!constantTimeEquals(s.get().csrf(), r.header("x-csrf-token").orElse(null))) {
      out = json(403, JSON.createObjectNode().put("error", "missing or wrong CSRF token"));
    } else if (!roleOf(s.get()).allows(needed)) {
      out = json(403, JSON.createObjectNode().put("error", "user " + s.get().user() + " (role "
          + roleOf(s.get()).configName() + ") may not " + refusal.apply(action) + ": it needs the role "
          + needed.configName()));
    } else if (body == null || !body.isObject()) {
      out = json(400, JSON.createObjectNode().put("error", "the body must be a JSON object"));
    } else {
      out = run.run(action, body, s.get().user());
    }
    if (audited.test(action)) {
      String line = auditName.apply(action) + (name.isEmpty() ? "" : " " + name);
      audit("POST /api/" + kind + "/" + action, s.get().user(), r.remoteAddress(), out.status());
      try {
        Audit.append(auditDir, "console", line, s.get().user(), r.remoteAddress(), String.valueOf(out.status()));
      } catch (IOException e) {
        log.warn("cannot write the audit line of {} to {}: {}", line, auditDir.resolve(Audit.FILE), e.getMessage());
      }
    }
    return out;
  }

  // ---- data

  /** A pipeline's connectors (from the state series) and its eight panels with their PromQL filled in. */
  private HttpResponse pipeline(HttpRequest r) {
    String name = r.param("name").orElse("");
    Upstream.Answer states = upstream.metrics("query", "query",
        "max by (connector, pipeline, state) (svc_connect_connector_status_info)");
    JsonNode body = states.json();
    if (states.status() != 200) {
      return json(502, JSON.createObjectNode().put("error", "the metrics server answered " + states.status() + ": "
          + body.path("error").asText(states.body())));
    }
    Set<String> pipelines = new TreeSet<>();
    Set<String> connectors = new LinkedHashSet<>();
    for (JsonNode s : body.path("data").path("result")) {
      String pipeline = s.path("metric").path("pipeline").asText(s.path("metric").path("connector").asText());
      pipelines.add(pipeline);
      if (pipeline.equals(name)) {
        connectors.add(s.path("metric").path("connector").asText());
      }
    }
    ObjectNode out = JSON.createObjectNode().put("pipeline", name);
    ArrayNode all = out.putArray("pipelines");
    pipelines.forEach(all::add);
    ArrayNode cs = out.putArray("connectors");
    connectors.forEach(cs::add);
    ArrayNode panels = out.putArray("panels");
    for (Panel p : PipelinePanels.ALL) {
      panels.add(JSON.valueToTree(p.forPipeline(name, new ArrayList<>(connectors))));
    }
    return json(200, out);
  }

  private HttpResponse proxy(String path, HttpRequest r, String... names) {
    String[] params = new String[names.length * 2];
    for (int i = 0; i < names.length; i++) {
      params[2 * i] = names[i];
      params[2 * i + 1] = r.param(names[i]).orElse(null);
    }
    Upstream.Answer a = upstream.metrics(path, params);
    return HttpResponse.text(a.status(), HttpResponse.JSON, a.body());
  }

  /** The alerts firing now for the pipeline's connectors (or carrying its pipeline label). */
  private HttpResponse alerts(HttpRequest r) {
    Set<String> connectors = new HashSet<>(r.params("connector"));
    String pipeline = r.param("pipeline").orElse("");
    Upstream.Answer a = upstream.activeAlerts();
    if (a.status() != 200) {
      return json(502, JSON.createObjectNode().put("error", "the alert router answered " + a.status()));
    }
    ArrayNode out = JSON.createArrayNode();
    for (JsonNode alert : a.json()) {
      JsonNode labels = alert.path("labels");
      if (connectors.contains(labels.path("connector").asText("\u0000"))
          || pipeline.equals(labels.path("pipeline").asText("\u0000"))) {
        out.add(JSON.createObjectNode().put("alertname", labels.path("alertname").asText())
            .put("severity", labels.path("severity").asText()).put("connector", labels.path("connector").asText())
            .put("startsAt", alert.path("startsAt").asText())
            .put("summary", alert.path("annotations").path("summary").asText("")));
      }
    }
    return json(200, out);
  }

  private HttpResponse asset(HttpRequest r) {
    String resource = ASSETS.get(r.pathParam("file"));
    if (resource == null) {
      return Look.asset(r.pathParam("file"))
          .orElseGet(() -> HttpResponse.text(404, "text/plain; charset=utf-8", "404 page not found\n"));
    }
    String type = resource.endsWith(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8";
    return HttpResponse.of(200, type, bytes(resource)).withHeader("Cache-Control", "max-age=3600");
  }

  // ---- helpers

  private String render(String template, Session s, Map<String, String> values) {
    String text = new String(bytes("io/sluice/console/static/" + template), StandardCharsets.UTF_8);
    if (s != null) {
      text = text.replace("{{head}}", PAGE_HEAD).replace("{{header}}", PAGE_HEADER).replace("{{nav}}", nav(template));
      text = text.replace("{{csrf}}", escape(s.csrf())).replace("{{user}}", escape(s.user()))
          .replace("{{role}}", escape(roleOf(s).configName()))
          .replace("{{metrics}}", escape(upstream.metricsUrl())).replace("{{router}}", escape(upstream.alertsUrl()));
    }
    for (Map.Entry<String, String> v : values.entrySet()) {
      text = text.replace("{{" + v.getKey() + "}}", escape(v.getValue()));
    }
    return text;
  }

  /** What every signed-in page's head holds: the session's CSRF token and role for app.js, the shared look. */
  private static final String PAGE_HEAD = """
      <meta name="csrf" content="{{csrf}}">
      <meta name="role" content="{{role}}">
      <link rel="stylesheet" href="/static/sluice.css">
      <link rel="stylesheet" href="/static/app.css">""";

  /** The shared header of the pages that add nothing to it (the overview and the pipeline page add their controls). */
  private static final String PAGE_HEADER = """
      <header class="top">
        <a class="brand" href="/">Sluice</a><span class="surface">console</span>
        {{nav}}
        <span class="spacer"></span>
        <form method="post" action="/logout" class="logout"><input type="hidden" name="csrf" value="{{csrf}}">
          <span class="who">{{user}} ({{role}})</span> <button type="submit" id="logout">Log out</button></form>
      </header>""";

  /** The console's pages in the shared header's navigation, and which of them a template belongs to. */
  private static final List<String[]> NAV = List.of(
      new String[] {"/", "Connectors", "overview.html connector.html connector-edit.html pipeline.html"},
      new String[] {"/topics", "Topics", "topics.html topic.html"},
      new String[] {"/groups", "Consumer groups", "groups.html"},
      new String[] {"/schemas", "Schemas", "schemas.html schema.html"},
      new String[] {"/dlqs", "Dead letters", "dlqs.html dlq.html"},
      new String[] {"/alerts", "Alerts", "alerts.html"});

  private String nav(String template) {
    StringBuilder b = new StringBuilder("<nav>");
    for (String[] item : NAV) {
      boolean current = List.of(item[2].split(" ")).contains(template);
      b.append("<a href=\"").append(item[0]).append('"').append(current ? " class=\"current\"" : "").append('>')
          .append(item[1]).append("</a>");
    }
    b.append("<a href=\"").append(escape(upstream.metricsUrl())).append("/graph\" class=\"elsewhere\">Metrics</a>")
        .append("<a href=\"").append(escape(upstream.alertsUrl())).append("/\" class=\"elsewhere\">Alert router</a>")
        .append("</nav>");
    return b.toString();
  }

  private static byte[] bytes(String resource) {
    try (InputStream in = Site.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + resource);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;")
        .replace("'", "&#39;");
  }

  private static HttpResponse html(int status, String body) {
    return HttpResponse.text(status, "text/html; charset=utf-8", body)
        .withHeader("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
        .withHeader("X-Frame-Options", "DENY")
        .withHeader("Cache-Control", "no-store");
  }

  private static HttpResponse redirect(String to) {
    return HttpResponse.empty(303).withHeader("Location", to).withHeader("Cache-Control", "no-store");
  }

  private String cookieHeader(String name, String value, String path, long maxAge) {
    return name + "=" + value + "; Path=" + path + "; Max-Age=" + maxAge + "; HttpOnly; SameSite=Strict"
        + (secureCookies ? "; Secure" : "");
  }

  static String cookie(HttpRequest r, String name) {
    String header = r.header("cookie").orElse("");
    for (String part : header.split(";")) {
      String p = part.trim();
      if (p.startsWith(name + "=")) {
        return p.substring(name.length() + 1);
      }
    }
    return null;
  }

  private static String first(Map<String, List<String>> form, String key) {
    List<String> v = form.get(key);
    return v == null || v.isEmpty() ? "" : v.get(0);
  }

  private static boolean constantTimeEquals(String a, String b) {
    return a != null && b != null && MessageDigest.isEqual(a.getBytes(StandardCharsets.UTF_8),
        b.getBytes(StandardCharsets.UTF_8));
  }

  /** A login, logout or password change. Its lines keep the older name, which tools reading audit.log may match. */
  private static void audit(String what, String user, String address, int status) {
    AUDIT.info("dashboard {} user={} address={} status={}", what, user == null || user.isEmpty() ? "-"
        : URLEncoder.encode(user, StandardCharsets.UTF_8), address, status);
  }
}
