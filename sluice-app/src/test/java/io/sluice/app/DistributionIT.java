package io.sluice.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.connect.client.ConnectRestClient;
import io.sluice.connect.testing.Eventually;
import io.sluice.kafka.testing.MariaDbServer;
import io.sluice.connect.testing.Pipeline;
import io.sluice.connect.testing.SharedPostgres;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import java.util.Arrays;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import io.sluice.app.PackagedSluice.Run;
import io.sluice.kafka.testing.RequiredTool;
import static io.sluice.app.PackagedSluice.freePort;
import static io.sluice.app.PackagedSluice.read;

/**
 * Every user-facing command of the distribution the build produced ({@code sluice-app/target/sluice}, through the
 * repository's {@code ./sluice} launcher), each run as a separate process as a user runs it, against one
 * {@code ./sluice up} started for the class, a real PostgreSQL pipeline through it and, for the cross-engine
 * reconcile, a real MariaDB. A jar missing from {@code lib/}, a launcher bug or a wrong default fails here, where a
 * test on the module classpath would pass.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DistributionIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @TempDir static Path dir;
  private static Path root;
  private static Path data;
  private static PackagedSluice.Up up;
  private static String kafka;
  private static String connectUrl;
  private static String registryUrl;
  private static String metricsUrl;
  private static String alertsUrl;
  private static String exporterUrl;
  private static ConnectRestClient connect;
  private static Pipeline pipeline;
  private static String source;
  private static String sink;
  private static String dlq;
  private static TopicEnds topicEnds;

  @BeforeAll
  static void up() throws Exception {
    root = PackagedSluice.root();
    assertTrue(Files.isRegularFile(root.resolve("sluice-app/target/sluice/lib/sluice-app.jar")),
        "the build did not produce the distribution");
    data = dir.resolve("data");
    int kafkaPort = freePort();
    int connectPort = freePort();
    int registryPort = freePort();
    int metricsPort = freePort();
    int alertsPort = freePort();
    int exporterPort = freePort();
    kafka = "127.0.0.1:" + kafkaPort;
    connectUrl = "http://127.0.0.1:" + connectPort;
    registryUrl = "http://127.0.0.1:" + registryPort;
    metricsUrl = "http://127.0.0.1:" + metricsPort;
    alertsUrl = "http://127.0.0.1:" + alertsPort;
    exporterUrl = "http://127.0.0.1:" + exporterPort;
    // The console's roles come from its web configuration (sluice_roles); its users are the console's own.
    Path uiWeb = Files.writeString(dir.resolve("ui-web.yml"), "basic_auth_users:\n"
        + "  viewer: '" + io.sluice.http.web.BasicAuth.hash("viewer-console-pw") + "'\n"
        + "  operator: '" + io.sluice.http.web.BasicAuth.hash("operator-console-pw") + "'\n"
        + "sluice_roles:\n  viewer: read\n  operator: operate\n");
    Path config = Files.writeString(dir.resolve("sluice.yaml"), "ui.web.config.file: " + uiWeb + "\n");
    up = PackagedSluice.up(dir, List.of("--config", config.toString(), "--data-dir", data.toString(), "--kafka-port", "" + kafkaPort,
        "--connect-port", "" + connectPort, "--registry-port", "" + registryPort, "--metrics-port", "" + metricsPort,
        "--alerts-port", "" + alertsPort, "--exporter-port", "" + exporterPort));
    connect = new ConnectRestClient(connectUrl);
    pipeline = new Pipeline("dist_" + ProcessHandle.current().pid());
    source = pipeline.name + "-source";
    sink = pipeline.name + "-sink";
    dlq = pipeline.name + "-dlq";
    topicEnds = new TopicEnds(kafka);
  }

  @AfterAll
  static void down() throws Exception {
    if (topicEnds != null) {
      topicEnds.close();
    }
    if (up != null) {
      assertEquals(0, PackagedSluice.down(up), () -> "./sluice up exit on SIGTERM; stderr " + read(up.stderr()));
    }
  }

  /** Runs {@code ./sluice args} as a user does, in its own process. */
  static Run sluice(String... args) throws Exception {
    return PackagedSluice.run(dir, args);
  }

  private static String[] cluster(String... args) {
    return Stream.concat(Stream.of(args), Stream.of("--bootstrap", kafka, "--connect-url", connectUrl,
        "--registry", registryUrl, "--data-dir", data.toString())).toArray(String[]::new);
  }

  /**
   * Both freshness histograms of the running pipeline's sink, from the source's commit to the sink's write and to its
   * offset commit, in the exporter's scrape and in the metrics server (the commit one also under its old name).
   */
  private static void assertFreshnessExported() throws Exception {
    String scrape = HTTP.send(HttpRequest.newBuilder(URI.create(exporterUrl + "/metrics")).build(),
        HttpResponse.BodyHandlers.ofString()).body();
    for (String histogram : List.of("svc_cdc_freshness_write_seconds", "svc_cdc_freshness_commit_seconds",
        "svc_cdc_freshness_seconds")) {
      assertTrue(scrape.contains("# TYPE " + histogram + " histogram"), histogram);
      String count = scrape.lines().filter(l -> l.startsWith(histogram + "_count{") && l.contains(
          "connector=\"" + sink + "\"")).findFirst().orElseThrow(() -> new AssertionError("no " + histogram
          + "_count of " + sink + " in\n" + scrape));
      assertTrue(Double.parseDouble(count.substring(count.lastIndexOf(' ') + 1)) >= 20, count);
      assertTrue(scrape.lines().anyMatch(l -> l.startsWith(histogram + "_bucket{") && l.contains("connector=\""
          + sink + "\"") && l.contains("le=\"0.05\"")), histogram);
    }
    Eventually.await("the write freshness histogram in the metrics server", Duration.ofSeconds(60),
        () -> {
          try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(metricsUrl + "/api/v1/query?query="
                + java.net.URLEncoder.encode("svc_cdc_freshness_write_seconds_count{connector=\"" + sink + "\"}",
                    java.nio.charset.StandardCharsets.UTF_8))).build(), HttpResponse.BodyHandlers.ofString()).body();
          } catch (Exception e) {
            return e.toString();
          }
        },
        body -> body.contains("\"connector\":\"" + sink + "\""));
  }

  /** The metrics server's answer to an instant query, or what went wrong asking. */
  private static String query(String promql) {
    try {
      return HTTP.send(HttpRequest.newBuilder(URI.create(metricsUrl + "/api/v1/query?query="
          + java.net.URLEncoder.encode(promql, java.nio.charset.StandardCharsets.UTF_8))).build(),
          HttpResponse.BodyHandlers.ofString()).body();
    } catch (Exception e) {
      return e.toString();
    }
  }

  /** The connector's state, or {@code none} while Connect has no status of it. */
  private static String stateOrNone(String name) {
    try {
      return connect.state(name);
    } catch (io.sluice.connect.client.ConnectApiException e) {
      return "none (" + e.getMessage() + ")";
    }
  }

  private static int get(String url) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  @Test
  @Order(1)
  void upPrintsOneReadyLineAndEveryComponentAnswers() throws Exception {
    String line = up.readyLine();
    for (String url : List.of(connectUrl, registryUrl, metricsUrl, alertsUrl, "kafka=" + kafka)) {
      assertTrue(line.contains(url), line);
    }
    assertEquals(200, get(connectUrl + "/"));
    assertEquals(200, get(registryUrl + "/subjects"));
    assertEquals(200, get(metricsUrl + "/-/ready"));
    assertEquals(200, get(alertsUrl + "/-/ready"));
    assertEquals(200, get(exporterUrl + "/metrics"));
    // The bundled plugins are what the worker loaded from the distribution's plugin folders.
    String plugins = HTTP.send(HttpRequest.newBuilder(URI.create(connectUrl + "/connector-plugins")).build(),
        HttpResponse.BodyHandlers.ofString()).body();
    assertTrue(plugins.contains("io.debezium.connector.postgresql.PostgresConnector"), plugins);
    assertTrue(plugins.contains("io.debezium.connector.jdbc.JdbcSinkConnector"), plugins);
  }

  @Test
  @Order(2)
  void aPipelineRunsThroughTheDistribution() throws Exception {
    pipeline.insert(1, 20);
    connect.create(source, JSON.valueToTree(pipeline.sourceConfig(pipeline.name + "_slot", Map.of())));
    ObjectNode sinkConfig = JSON.valueToTree(pipeline.sinkConfig());
    // The bundled sink, as `sluice demo` runs it: Debezium's, measuring its writes for the freshness histogram.
    sinkConfig.put("connector.class", io.sluice.connect.defaults.ConnectorDefaults.SLUICE_JDBC_SINK);
    sinkConfig.put("errors.tolerance", "all");
    sinkConfig.put("errors.deadletterqueue.topic.name", dlq);
    sinkConfig.put("errors.deadletterqueue.topic.replication.factor", "1");
    sinkConfig.put("errors.deadletterqueue.context.headers.enable", "true");
    connect.create(sink, sinkConfig);
    pipeline.awaitSinkMatchesSource();
    // A record the sink cannot read goes to its dead-letter topic, with Connect's error headers.
    try (KafkaProducer<String, String> p = new KafkaProducer<>(Map.of("bootstrap.servers", kafka),
        new StringSerializer(), new StringSerializer())) {
      p.send(new ProducerRecord<>(pipeline.topic(), "{\"broken\":", "{\"not json")).get();
    }
  }

  @Test
  @Order(3)
  void theDashboardLogsInShowsEveryConnectorAndDrawsThePipelinesEightPanels() throws Exception {
    String ui = Arrays.stream(up.readyLine().split(" ")).filter(p -> p.startsWith("ui=")).findFirst()
        .orElseThrow(() -> new AssertionError(up.readyLine())).substring(3);
    HttpClient http = HttpClient.newHttpClient();
    // Without a session: pages go to the login, data answers 401.
    HttpResponse<String> page = http.send(HttpRequest.newBuilder(URI.create(ui + "/")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(303, page.statusCode());
    assertEquals("/login", page.headers().firstValue("Location").orElse(""));
    for (String api : List.of("/api/connectors", "/api/pipeline?name=x", "/api/query?query=up",
        "/api/query_range?query=up&start=0&end=1&step=1", "/api/alerts")) {
      assertEquals(401, http.send(HttpRequest.newBuilder(URI.create(ui + api)).build(),
          HttpResponse.BodyHandlers.ofString()).statusCode(), api);
    }
    // A login without the form's CSRF token is refused.
    HttpResponse<String> forged = http.send(HttpRequest.newBuilder(URI.create(ui + "/login"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString("user=admin&password=admin")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(403, forged.statusCode());

    try (Browser browser = Browser.open()) {
      var d = browser.driver;
      var wait = new WebDriverWait(d, Duration.ofSeconds(90));
      d.get(ui + "/");
      wait.until(ExpectedConditions.urlContains("/login"));
      browser.screenshot("dashboard-1-login");
      d.findElement(By.id("user")).sendKeys("admin");
      d.findElement(By.id("password")).sendKeys("admin");
      d.findElement(By.id("login")).click();
      // The default password must be changed before anything is shown, and cannot be kept.
      wait.until(ExpectedConditions.urlContains("/password"));
      d.get(ui + "/");
      wait.until(ExpectedConditions.urlContains("/password"));
      d.findElement(By.id("current")).sendKeys("admin");
      d.findElement(By.id("new-password")).sendKeys("admin");
      d.findElement(By.id("confirm")).sendKeys("admin");
      d.findElement(By.id("change")).click();
      wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("error"), "at least 8"));
      browser.screenshot("dashboard-2-password");
      d.findElement(By.id("current")).sendKeys("admin");
      d.findElement(By.id("new-password")).sendKeys("dashboard-pw-1");
      d.findElement(By.id("confirm")).sendKeys("dashboard-pw-1");
      d.findElement(By.id("change")).click();
      wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#connectors tr[data-connector='" + sink
          + "']")));
      assertTrue(d.findElement(By.cssSelector("tr[data-connector='" + source + "']")).getText().contains("RUNNING"));
      assertTrue(d.findElement(By.cssSelector("tr[data-connector='" + source + "']")).getText().contains("source"));
      browser.screenshot("dashboard-3-overview");

      // The pipeline's page: all eight panels drawn from data, none loading, empty or failed.
      d.findElement(By.cssSelector("tr[data-connector='" + source + "'] a[href^='/pipeline']")).click();
      wait.until(ExpectedConditions.urlContains("/pipeline?name="));
      wait.until(x -> x.findElements(By.cssSelector("#panels .panel")).size() == 8
          && x.findElements(By.cssSelector("#panels .panel .body .state")).isEmpty());
      for (WebElement panel : d.findElements(By.cssSelector("#panels .panel"))) {
        assertTrue(panel.findElement(By.cssSelector(".promql code")).getText().contains("svc_"),
            "every panel shows its PromQL: " + panel.getText());
      }
      assertEquals(List.of(), d.findElements(By.cssSelector(".state.error")).stream().map(e -> e.getText()).toList());
      assertTrue(d.findElements(By.cssSelector("#panel-throughput canvas")).size() > 0, "throughput is a chart");
      browser.screenshot("dashboard-4-pipeline-first");
      // Changes flowing now give the lag gauge and the throughput chart fresh data (updates that keep the rows as
      // they are: the later tests compare the tables with copies of these rows).
      pipeline.execute(pipeline.sourceDb, "UPDATE public.orders SET qty = qty");
      // The lag gauge needs two scrapes of the freshness histogram within its 5-minute window.
      untilAfterRefresh(d, y -> y.findElements(By.cssSelector("#panel-lag .value")).stream()
          .anyMatch(e -> List.of("green", "yellow", "red").contains(e.getAttribute("data-color"))));
      assertTrue(d.findElements(By.cssSelector("#panels .panel .body .state")).isEmpty());
      browser.screenshot("dashboard-4-pipeline");
      assertFreshnessExported();
      assertTrue(d.findElement(By.cssSelector("#panel-status li[data-connector='" + sink + "']")).getText()
          .contains("RUNNING"));

      // Pause the sink: the status panel turns PAUSED (at the next scrape and refresh).
      connect.pause(sink, Duration.ofSeconds(60));
      try {
        untilAfterRefresh(d, y -> y.findElements(By.cssSelector("#panel-status li[data-connector='" + sink + "']"))
            .stream().anyMatch(e -> e.getText().contains("PAUSED")));
        browser.screenshot("dashboard-5-paused");
      } finally {
        connect.resume(sink);
      }

      // The metrics server's expression browser: completion, a table, a graph, and Prometheus' own error words.
      d.get(metricsUrl + "/");
      wait.until(ExpectedConditions.urlContains("/graph"));
      WebElement box = d.findElement(By.id("expr"));
      wait.until(x -> {
        box.clear();
        box.sendKeys("svc_connect_connector_stat");
        return x.findElements(By.cssSelector("#completions li")).stream()
            .anyMatch(li -> li.getText().equals("svc_connect_connector_status"));
      });
      box.sendKeys(org.openqa.selenium.Keys.TAB);
      assertTrue(box.getAttribute("value").startsWith("svc_connect_connector_status"), box.getAttribute("value"));
      box.clear();
      box.sendKeys("svc_connect_connector_status", org.openqa.selenium.Keys.ESCAPE);
      d.findElement(By.id("execute")).click();
      wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("result-table"), source));
      browser.screenshot("metrics-1-table");
      d.findElement(By.id("tab-graph")).click();
      wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#graph-view canvas")));
      browser.screenshot("metrics-2-graph");
      box.clear();
      box.sendKeys("rate(svc_connect_connector_status[", org.openqa.selenium.Keys.ESCAPE);
      d.findElement(By.id("execute")).click();
      wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("error")));
      assertTrue(d.findElement(By.id("error")).getText().contains("bad_data"), d.findElement(By.id("error"))
          .getText());
      d.get(ui + "/");

      // Logout needs the CSRF token too; the real button has it.
      String cookie = d.manage().getCookieNamed("sluice_session").getValue();
      HttpResponse<String> noToken = http.send(HttpRequest.newBuilder(URI.create(ui + "/logout"))
          .header("Cookie", "sluice_session=" + cookie).header("Content-Type", "application/x-www-form-urlencoded")
          .POST(HttpRequest.BodyPublishers.ofString("")).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(403, noToken.statusCode());
      d.findElement(By.id("logout")).click();
      wait.until(ExpectedConditions.urlContains("/login"));
      assertEquals(401, http.send(HttpRequest.newBuilder(URI.create(ui + "/api/connectors"))
          .header("Cookie", "sluice_session=" + cookie).build(), HttpResponse.BodyHandlers.ofString()).statusCode(),
          "the session ended");
    }

    // Users from the CLI, in the data directory sluice up uses; a user added so may log in at once.
    Path pw = Files.writeString(dir.resolve("ops-ui.pw"), "ops-dashboard-pw\n");
    Run added = sluice("ui", "user", "add", "ops", "--password-file", pw.toString(), "--data-dir", data.toString());
    assertEquals(0, added.exit(), added::toString);
    Run users = sluice("ui", "user", "list", "--data-dir", data.toString());
    assertEquals(0, users.exit(), users::toString);
    assertEquals(List.of("admin", "ops"), users.out().lines().map(l -> l.split("\t")[0]).toList(), users::toString);
    HttpResponse<String> opsLogin = ConsoleLogin.login(http, ui, "ops", "ops-dashboard-pw");
    assertEquals(303, opsLogin.statusCode());
    String opsSession = ConsoleLogin.session(opsLogin);
    assertEquals(200, http.send(HttpRequest.newBuilder(URI.create(ui + "/api/connectors")).header("Cookie", opsSession)
        .build(), HttpResponse.BodyHandlers.ofString()).statusCode());
    // A password changed from the CLI ends the sessions opened with the old one.
    Path newPw = Files.writeString(dir.resolve("ops-ui-new.pw"), "ops-dashboard-pw-2\n");
    Run changed = sluice("ui", "user", "passwd", "ops", "--password-file", newPw.toString(), "--data-dir",
        data.toString());
    assertEquals(0, changed.exit(), changed::toString);
    assertEquals(401, http.send(HttpRequest.newBuilder(URI.create(ui + "/api/connectors")).header("Cookie", opsSession)
        .build(), HttpResponse.BodyHandlers.ofString()).statusCode(), "the session of the old password ended");
    assertEquals(401, ConsoleLogin.login(http, ui, "ops", "ops-dashboard-pw").statusCode());
    assertEquals(303, ConsoleLogin.login(http, ui, "ops", "ops-dashboard-pw-2").statusCode());
    // Guessing is slowed down: after three failures the next attempt must wait, whatever its password.
    for (int i = 0; i < 3; i++) {
      assertEquals(401, ConsoleLogin.login(http, ui, "ops", "guess-" + i).statusCode());
    }
    HttpResponse<String> slowed = ConsoleLogin.login(http, ui, "ops", "ops-dashboard-pw-2");
    assertEquals(429, slowed.statusCode());
    assertTrue(slowed.headers().firstValue("Retry-After").isPresent());
  }

  /**
   * The console's connector page and every action on it, as the web configuration's roles allow, each checked where it
   * happens: the config Connect holds, the state Connect reports, the silence on the router, the offsets backup the
   * worker wrote, the audit line. Then the shared look of the metrics server's and the router's pages, and /graph's y
   * axis with five-digit values.
   */
  @Test
  @Order(4)
  void theConsoleActsOnConnectorsAsTheRoleAllows() throws Exception {
    String ui = uiUrl();
    for (String[] user : new String[][] {{"viewer", "viewer-console-pw"}, {"operator", "operator-console-pw"}}) {
      Path pw = Files.writeString(dir.resolve(user[0] + ".pw"), user[1] + "\n");
      Run added = sluice("ui", "user", "add", user[0], "--password-file", pw.toString(), "--data-dir", data.toString());
      assertEquals(0, added.exit(), added::toString);
    }
    String name = pipeline.name + "-console";
    String failing = pipeline.name + "-console-failing";
    String password = pipeline.sinkConfig().get("connection.password");
    // A source of its own (its own slot, dropped when it stops, and topic prefix): a source's committed offsets are
    // what the worker backs up before a delete.
    Map<String, String> sourceConfig = pipeline.sourceConfig(pipeline.name + "_console_slot", Map.of(
        "topic.prefix", pipeline.name + "_console", "slot.drop.on.stop", "true"));
    // A sink that fails on the topic's broken record (no error tolerance): a FAILED task with a trace.
    ObjectNode failingConfig = JSON.valueToTree(pipeline.sinkConfig());
    failingConfig.put("collection.name.format", "orders_console_failing");
    failingConfig.put("errors.tolerance", "none"); // Sluice's default for a sink is all, into a dead-letter topic
    connect.create(failing, failingConfig);
    try (Browser browser = Browser.open()) {
      var d = browser.driver;
      var wait = new WebDriverWait(d, Duration.ofSeconds(90));
      consoleLogin(d, ui, "admin", "dashboard-pw-1");

      // Create: Connect's refusal shows beside its key; nothing is written until the change is shown and applied.
      wait.until(ExpectedConditions.elementToBeClickable(By.id("new-connector"))).click();
      wait.until(ExpectedConditions.urlContains("/connector/edit"));
      d.findElement(By.id("name")).sendKeys(name);
      WebElement classValue = wait.until(x -> x.findElement(By.cssSelector("#config-table tr[data-key='connector.class'] .v")));
      classValue.sendKeys(sourceConfig.get("connector.class"));
      WebElement tasksMax = d.findElement(By.cssSelector("#config-table tr[data-key='tasks.max'] .v"));
      tasksMax.clear();
      tasksMax.sendKeys("zero");
      d.findElement(By.id("validate")).click();
      wait.until(ExpectedConditions.textToBePresentInElementLocated(
          By.cssSelector("#config-table tr[data-key='tasks.max'] .err"), "Invalid value zero"));
      assertTrue(d.findElement(By.cssSelector("#config-table tr[data-key='tasks.max']")).getAttribute("class")
          .contains("bad"));
      assertFalse(d.findElement(By.id("change")).isDisplayed(), "no change is offered for a refused config");
      browser.screenshot("console-1-editor-refused");
      assertTrue(connect.config(name).isEmpty(), "a refused config writes nothing");
      tasksMax.clear();
      tasksMax.sendKeys("1");
      Map<String, String> rest = new java.util.LinkedHashMap<>(sourceConfig);
      rest.remove("connector.class");
      for (Map.Entry<String, String> e : rest.entrySet()) {
        d.findElement(By.id("add-key")).click();
        List<WebElement> rows = d.findElements(By.cssSelector("#config-table tbody tr"));
        WebElement row = rows.get(rows.size() - 1);
        row.findElement(By.className("k")).sendKeys(e.getKey());
        row.findElement(By.className("v")).sendKeys(e.getValue());
      }
      // A table whose columns the pipeline cannot carry: the form names each one, a line each, before data flows.
      pipeline.execute(pipeline.sourceDb, "CREATE TYPE public.console_price AS (amount numeric(12,2), currency text)");
      pipeline.execute(pipeline.sourceDb, "CREATE TABLE public.console_zoned (id int PRIMARY KEY, at_local timetz, "
          + "cost public.console_price)");
      WebElement tables = d.findElements(By.cssSelector("#config-table tbody tr")).stream()
          .filter(r -> r.findElement(By.className("k")).getAttribute("value").equals("table.include.list"))
          .findFirst().orElseThrow().findElement(By.className("v"));
      tables.clear();
      tables.sendKeys("public\\.console_zoned");
      d.findElement(By.id("validate")).click();
      wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "Column cost of table"));
      String refusedColumns = d.findElement(By.id("notice")).getText();
      assertTrue(refusedColumns.lines().anyMatch(l -> l.contains("Column at_local of table public.console_zoned "
          + "(time with time zone)")), refusedColumns);
      assertTrue(refusedColumns.lines().anyMatch(l -> l.startsWith("Column cost of table public.console_zoned "
          + "(console_price)")), refusedColumns);
      assertFalse(d.findElement(By.id("change")).isDisplayed(), "no change is offered for a refused config");
      browser.screenshot("console-1b-editor-columns-refused");
      tables.clear();
      tables.sendKeys(sourceConfig.get("table.include.list"));
      // A set-up the worker warns about without refusing it: accepted, the warning shown above the change.
      d.findElement(By.id("add-key")).click();
      List<WebElement> configRows = d.findElements(By.cssSelector("#config-table tbody tr"));
      WebElement filtered = configRows.get(configRows.size() - 1);
      filtered.findElement(By.className("k")).sendKeys("publication.autocreate.mode");
      filtered.findElement(By.className("v")).sendKeys("filtered");
      d.findElement(By.id("validate")).click();
      wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"),
          "Warning: publication.autocreate.mode=filtered"));
      assertTrue(d.findElement(By.id("notice")).getAttribute("class").contains("warn"));
      assertTrue(d.findElement(By.id("change")).isDisplayed(), "a warning refuses nothing");
      browser.screenshot("console-1c-editor-warning");
      filtered.findElement(By.tagName("button")).click();
      d.findElement(By.id("validate")).click();
      wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "accepts this config"));
      assertFalse(d.findElement(By.id("notice")).getText().contains("Warning"), d.findElement(By.id("notice"))::getText);
      wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("change")));
      assertTrue(d.findElements(By.cssSelector("#config-table tr.bad")).isEmpty());
      assertTrue(d.findElement(By.cssSelector("#diff tr[data-key='topic.prefix']")).getText()
          .contains(pipeline.name + "_console"));
      assertTrue(d.findElement(By.cssSelector("#diff tr[data-key='database.password']")).getText()
          .contains("********"));
      assertFalse(d.findElement(By.id("diff")).getText().contains(password), "the diff never shows a password");
      browser.screenshot("console-2-editor-diff");
      assertTrue(connect.config(name).isEmpty(), "validating writes nothing");
      d.findElement(By.id("apply")).click();
      wait.until(ExpectedConditions.urlContains("/connector?name="));
      assertEquals(pipeline.name + "_console", connect.config(name).orElseThrow().path("topic.prefix").asText());

      // The page: RUNNING, its tasks on a worker, the topic it reads, offsets once committed, the config masked.
      untilAfterRefresh(d, x -> x.findElement(By.id("connector-state")).getText().equals("RUNNING")
          && x.findElements(By.cssSelector("#offsets td")).size() > 0
          && x.findElements(By.cssSelector("#topic-list li")).size() > 0);
      assertTrue(d.findElement(By.cssSelector("#tasks tr[data-task='0']")).getText().contains("RUNNING"));
      assertTrue(d.findElement(By.id("topic-list")).getText().contains(pipeline.name + "_console.public.orders"),
          d.findElement(By.id("topic-list")).getText());
      assertFalse(d.findElement(By.id("config")).getText().contains(password), "the config never shows a password");
      // Its delivery: exactly once, with its tasks' transactions as the metrics server scraped them.
      assertEquals("exactly once", d.findElement(By.id("guarantee")).getText());
      untilAfterRefresh(d, x -> x.findElement(By.id("transactions")).getText().contains(" committed, "));
      assertTrue(d.findElement(By.id("transactions")).getText().matches("[0-9,]+ committed, [0-9,]+ failed \\(aborted\\)"
          + " since the tasks started; .*"), d.findElement(By.id("transactions")).getText());
      browser.screenshot("console-3-connector");

      // Pause with a silence: PAUSED in Connect, the silence on the router, named after the console user.
      d.findElement(By.id("act-pause")).click();
      d.findElement(By.id("silence")).sendKeys("1h");
      d.findElement(By.id("silence-comment")).sendKeys("console maintenance");
      d.findElement(By.id("pause-confirm")).click();
      wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "silenced for 1h"));
      wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("connector-state"), "PAUSED"));
      assertEquals("PAUSED", connect.state(name));
      JsonNode silence = null;
      for (JsonNode s : JSON.readTree(HTTP.send(HttpRequest.newBuilder(URI.create(alertsUrl + "/api/v2/silences"))
          .build(), HttpResponse.BodyHandlers.ofString()).body())) {
        silence = s.path("comment").asText().equals("console maintenance") ? s : silence;
      }
      assertTrue(silence != null, "the silence is on the router");
      assertEquals("active", silence.path("status").path("state").asText(), silence::toString);
      assertEquals("admin", silence.path("createdBy").asText(), silence::toString);
      assertEquals("connector", silence.path("matchers").get(0).path("name").asText(), silence::toString);
      assertEquals(name, silence.path("matchers").get(0).path("value").asText(), silence::toString);
      browser.screenshot("console-4-paused");

      d.findElement(By.id("act-resume")).click();
      wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "resumed"));
      assertEquals("RUNNING", connect.state(name));
      wait.until(ExpectedConditions.elementToBeClickable(By.id("act-restart"))).click();
      wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "restarted with its tasks"));
      wait.until(ExpectedConditions.elementToBeClickable(By.id("act-stop"))).click();
      wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "stopped"));
      assertEquals("STOPPED", connect.state(name));

      // Delete: only once the name is typed; the worker backs the offsets up first.
      wait.until(ExpectedConditions.elementToBeClickable(By.id("act-delete"))).click();
      WebElement confirm = d.findElement(By.id("delete-confirm"));
      assertFalse(confirm.isEnabled(), "nothing is deleted without the name typed");
      d.findElement(By.id("delete-typed")).sendKeys(name);
      browser.screenshot("console-5-delete-confirm");
      confirm.click();
      wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "deleted"));
      assertTrue(connect.config(name).isEmpty(), "deleted in Connect");
      try (Stream<Path> backups = Files.list(data.resolve("backups").resolve("offsets"))) {
        assertTrue(backups.anyMatch(p -> p.getFileName().toString().startsWith(name + "-")
            && p.getFileName().toString().endsWith(".tsv")), "the offsets were backed up before the delete");
      }
      String audit = Files.readString(data.resolve("audit.log"));
      for (String action : List.of("apply", "pause", "resume", "restart", "stop", "delete")) {
        assertTrue(audit.contains(" console connectors " + action + " " + name + " user=admin address="), audit);
      }
      d.findElement(By.id("logout")).click();
      wait.until(ExpectedConditions.urlContains("/login"));

      // operate: acts on connectors (restarts the failed task), changes no config and deletes nothing.
      consoleLogin(d, ui, "operator", "operator-console-pw");
      d.get(ui + "/connector?name=" + failing);
      untilAfterRefresh(d, x -> x.findElements(By.cssSelector("#tasks tr[data-task='0'] pre.trace")).size() > 0);
      String trace = d.findElement(By.cssSelector("#tasks tr[data-task='0'] pre.trace")).getText();
      assertTrue(trace.lines().count() <= 7, "the first lines of the trace only: " + trace);
      assertTrue(d.findElements(By.id("act-delete")).isEmpty() && d.findElements(By.id("act-edit")).isEmpty(),
          "no admin action for an operator");
      browser.screenshot("console-6-failed-task-operator");
      d.findElement(By.id("act-restart-failed")).click();
      wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "restarted its failed"));
      String operatorCookie = "sluice_session=" + d.manage().getCookieNamed("sluice_session").getValue();
      String operatorCsrf = d.findElement(By.cssSelector("meta[name='csrf']")).getAttribute("content");
      assertEquals(403, consolePost(ui, operatorCookie, operatorCsrf, "delete", failing).statusCode());
      assertTrue(connect.config(failing).isPresent(), "an operator deletes nothing");
      d.findElement(By.id("logout")).click();
      wait.until(ExpectedConditions.urlContains("/login"));

      // read: sees, has no action button, and is refused when it posts anyway.
      consoleLogin(d, ui, "viewer", "viewer-console-pw");
      assertFalse(d.findElement(By.id("new-connector")).isDisplayed());
      d.get(ui + "/connector?name=" + sink);
      wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#config tr[data-key='topics']")));
      assertTrue(d.findElements(By.id("actions")).isEmpty(), "no action buttons for a read user");
      assertEquals("at least once", d.findElement(By.id("guarantee")).getText(), "a sink");
      assertTrue(d.findElements(By.id("transactions")).isEmpty(), "a sink has no transactions to show");
      assertTrue(d.findElements(By.cssSelector("button[data-action]")).isEmpty(), "no action buttons for a read user");
      browser.screenshot("console-7-read-only");
      String viewerCookie = "sluice_session=" + d.manage().getCookieNamed("sluice_session").getValue();
      String viewerCsrf = d.findElement(By.cssSelector("meta[name='csrf']")).getAttribute("content");
      HttpResponse<String> refused = consolePost(ui, viewerCookie, viewerCsrf, "pause", sink);
      assertEquals(403, refused.statusCode());
      assertTrue(refused.body().contains("needs the role operate"), refused.body());
      assertEquals(403, consolePost(ui, viewerCookie, "forged", "pause", sink).statusCode(), "CSRF checked");
      assertEquals("RUNNING", connect.state(sink), "a refused pause changes nothing");
      assertTrue(Files.readString(data.resolve("audit.log")).contains(" console connectors pause " + sink
          + " user=viewer address=127.0.0.1 status=403"));

      // One look across the surfaces: the metrics server's pages and the router's share the console's header.
      d.get(metricsUrl + "/targets");
      assertEquals("Targets", d.findElement(By.cssSelector("header.top nav a.current")).getText());
      browser.screenshot("metrics-3-targets");
      d.get(metricsUrl + "/alerts");
      assertEquals("Alerts", d.findElement(By.cssSelector("header.top nav a.current")).getText());
      browser.screenshot("metrics-4-alerts");
      d.get(alertsUrl + "/#/silences");
      wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("view"), "console maintenance"));
      assertEquals("Silences", d.findElement(By.cssSelector("header.top nav a.current")).getText());
      browser.screenshot("router-1-silences");

      // Five-digit values: /graph's y axis is as wide as its widest label (45,000 used to read 5,000).
      d.get(metricsUrl + "/graph?g0.expr=vector(45000)&g0.tab=0");
      wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#graph-view canvas")));
      Object fits = d.executeScript("""
          const axis = document.querySelectorAll('#graph-view .u-axis')[1];
          const ctx = document.createElement('canvas').getContext('2d');
          ctx.font = '12px system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif';
          return axis.getBoundingClientRect().width >= ctx.measureText('45,000').width + 10 + 5;""");
      assertEquals(Boolean.TRUE, fits, "the y axis holds its five-digit labels");
      browser.screenshot("metrics-5-graph-five-digits");
    } finally {
      if (connect.config(failing).isPresent()) {
        connect.delete(failing);
      }
    }
  }

  private static String uiUrl() {
    return Arrays.stream(up.readyLine().split(" ")).filter(p -> p.startsWith("ui=")).findFirst()
        .orElseThrow(() -> new AssertionError(up.readyLine())).substring(3);
  }

  private static void consoleLogin(WebDriver d, String ui, String user, String password) {
    d.get(ui + "/login");
    d.findElement(By.id("user")).sendKeys(user);
    d.findElement(By.id("password")).sendKeys(password);
    d.findElement(By.id("login")).click();
    new WebDriverWait(d, Duration.ofSeconds(60)).until(ExpectedConditions.presenceOfElementLocated(
        By.cssSelector("#connectors, #overview .state")));
  }

  /** A connector action as the page posts it, with the session's cookie and the given CSRF token. */
  private static HttpResponse<String> consolePost(String ui, String cookie, String csrf, String action,
      String connector) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(ui + "/api/connector/" + action)).header("Cookie", cookie)
        .header("X-CSRF-Token", csrf).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(Map.of("name", connector)))).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** Reloads the page until {@code condition} holds after a reload (each given 20 s to draw), for up to 2 minutes. */
  private static void untilAfterRefresh(WebDriver d, java.util.function.Function<WebDriver, Boolean> condition) {
    new WebDriverWait(d, Duration.ofSeconds(120)).pollingEvery(Duration.ofSeconds(3))
        .ignoring(org.openqa.selenium.TimeoutException.class)
        .ignoring(org.openqa.selenium.StaleElementReferenceException.class).until(x -> {
          x.navigate().refresh();
          // The page redraws its panels as data arrives: an element found a moment ago may be replaced.
          return new WebDriverWait(x, Duration.ofSeconds(20))
              .ignoring(org.openqa.selenium.StaleElementReferenceException.class).until(condition);
        });
  }

  /**
   * The console's topic list and message browser on the pipeline's own topics and on a topic of Avro records produced
   * with Sluice's serializer: each record decoded through the registry (subject, version and id shown, as the
   * registry holds them), headers shown, a filter by key kept in the URL so that the link opens the same record, and
   * paging on from where a page ended.
   */
  @Test
  @Order(14)
  void theConsoleListsTopicsAndBrowsesTheirMessagesDecoded() throws Exception {
    String ui = uiUrl();
    String avroTopic = pipeline.name + "-avro";
    try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(
        Map.of("bootstrap.servers", kafka))) {
      admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic(avroTopic, 1, (short) 1))).all().get();
    }
    String schema = "{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"shop\",\"fields\":["
        + "{\"name\":\"id\",\"type\":\"int\"},{\"name\":\"item\",\"type\":\"string\"}]}";
    HttpResponse<String> registered = HTTP.send(HttpRequest.newBuilder(URI.create(registryUrl + "/subjects/"
            + avroTopic + "-value/versions")).header("Content-Type", "application/vnd.schemaregistry.v1+json")
        .POST(HttpRequest.BodyPublishers.ofString(JSON.createObjectNode().put("schema", schema).toString())).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, registered.statusCode(), registered.body());
    int schemaId = JSON.readTree(registered.body()).path("id").asInt();
    org.apache.avro.Schema avro = new org.apache.avro.Schema.Parser().parse(schema);
    io.sluice.serde.avro.AvroSerializer serializer = new io.sluice.serde.avro.AvroSerializer();
    serializer.configure(Map.of("schema.registry.url", registryUrl), false);
    try (KafkaProducer<String, byte[]> p = new KafkaProducer<>(Map.of("bootstrap.servers", kafka),
        new StringSerializer(), new org.apache.kafka.common.serialization.ByteArraySerializer())) {
      String[] items = {"tea", "coffee", "cocoa"};
      for (int i = 0; i < items.length; i++) {
        org.apache.avro.generic.GenericRecord r = new org.apache.avro.generic.GenericData.Record(avro);
        r.put("id", i + 1);
        r.put("item", items[i]);
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(avroTopic, "k" + (i + 1),
            serializer.serialize(avroTopic, r));
        record.headers().add("origin", ("console-it-" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        p.send(record).get();
      }
    }
    try (Browser browser = Browser.open()) {
      var d = browser.driver;
      var wait = new WebDriverWait(d, Duration.ofSeconds(90));
      loginToDashboard(d, wait, ui);

      // The list: the pipeline's topic with the connectors and the sink's group that use it.
      d.get(ui + "/topics");
      assertEquals("Topics", d.findElement(By.cssSelector("header.top nav a.current")).getText());
      WebElement row = wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#topics tr[data-topic='"
          + pipeline.topic() + "']")));
      assertTrue(row.getText().contains(source + " · writes"), row.getText());
      assertTrue(row.getText().contains(sink + " · reads"), row.getText());
      assertTrue(row.getText().contains("connect-" + sink), row.getText());
      WebElement avroRow = d.findElement(By.cssSelector("#topics tr[data-topic='" + avroTopic + "']"));
      assertEquals("3", avroRow.findElements(By.tagName("td")).get(2).getText(), avroRow.getText());
      assertTrue(d.findElements(By.cssSelector("#topics tr[data-topic='connect-configs']")).isEmpty(),
          "Connect's own topics are hidden until asked for");
      browser.screenshot("console-8-topics");

      // The browser, newest first: Avro decoded through the registry, with its subject, version and id.
      avroRow.findElement(By.tagName("a")).click();
      wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#messages tr.message"), 3));
      WebElement newest = d.findElements(By.cssSelector("#messages tr.message")).get(0);
      assertEquals("2", newest.getAttribute("data-offset"));
      assertTrue(newest.getText().contains("Avro · " + avroTopic + "-value v1 · id " + schemaId), newest.getText());
      assertTrue(newest.getText().contains("cocoa"), newest.getText());
      newest.click();
      WebElement detail = d.findElement(By.cssSelector("#messages tr.detail:not([hidden])"));
      assertEquals("cocoa", JSON.readTree(detail.findElement(By.className("value-text")).getText()).path("item")
          .asText());
      assertTrue(detail.getText().contains("origin") && detail.getText().contains("console-it-2"), detail.getText());
      browser.screenshot("console-9-browser-avro");

      // A filter by key, kept in the URL: the link opens the same record.
      d.findElement(By.id("key")).sendKeys("k2");
      d.findElement(By.id("read")).click();
      wait.until(x -> x.getCurrentUrl().contains("key=k2")
          && x.findElements(By.cssSelector("#messages tr.message")).size() == 1);
      String link = d.getCurrentUrl();
      d.get(ui + "/topics");
      d.get(link);
      wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#messages tr.message"), 1));
      assertEquals("1", d.findElement(By.cssSelector("#messages tr.message")).getAttribute("data-offset"));
      assertEquals("k2", d.findElement(By.id("key")).getAttribute("value"));

      // The pipeline's topic from the start, a page of 20: Kafka Connect's JSON, then the next page goes on after it.
      d.get(ui + "/topic?name=" + pipeline.topic() + "&from=start&limit=20");
      wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#messages tr.message"), 20));
      assertEquals("0", d.findElements(By.cssSelector("#messages tr.message")).get(0).getAttribute("data-offset"));
      assertTrue(d.findElements(By.cssSelector("#messages tr.message")).get(0).getText().contains("Connect JSON"));
      browser.screenshot("console-10-browser-connect-json");
      // Every source writes in transactions, whose markers take offsets: the first page's 20 records may end past
      // offset 19 (the snapshot's 20 rows in one transaction or in two), and the next page goes on after its last.
      List<WebElement> firstPage = d.findElements(By.cssSelector("#messages tr.message"));
      long last = Long.parseLong(firstPage.get(firstPage.size() - 1).getAttribute("data-offset"));
      wait.until(ExpectedConditions.elementToBeClickable(By.id("next-page"))).click();
      wait.until(x -> x.getCurrentUrl().contains("at=0%3A" + (last + 1)) || x.getCurrentUrl().contains("at=0:"
          + (last + 1)));
      wait.ignoring(org.openqa.selenium.StaleElementReferenceException.class).until(x -> x.findElements(
          By.cssSelector("#messages tr.message")).stream().findFirst()
          .map(e -> Long.parseLong(e.getAttribute("data-offset")) > last).orElse(false));
      // The record the sink could not read is text (it is not JSON): found by a text in its value.
      d.get(ui + "/topic?name=" + pipeline.topic() + "&from=start&text=not%20json");
      // One record, or two once the DLQ test has replayed it into the topic: each is that text, and nothing else.
      wait.until(ExpectedConditions.numberOfElementsToBeMoreThan(By.cssSelector("#messages tr.message"), 0));
      List<WebElement> notJson = d.findElements(By.cssSelector("#messages tr.message"));
      assertTrue(notJson.size() <= 2, notJson.size() + " records hold 'not json'");
      for (WebElement m : notJson) {
        assertTrue(m.getText().contains("text") && m.getText().contains("not json"), m.getText());
      }
      // From an offset of the one partition.
      d.get(ui + "/topic?name=" + pipeline.topic() + "&from=offset&offset=5&partition=0&limit=3");
      wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#messages tr.message"), 3));
      assertEquals("5", d.findElements(By.cssSelector("#messages tr.message")).get(0).getAttribute("data-offset"));
      assertEquals(List.of(), d.findElements(By.cssSelector(".state.error")).stream().map(WebElement::getText)
          .toList());
    }
  }

  /**
   * The consumer groups page: the sink's group with its committed and end offset and lag per partition, the task and
   * worker that hold each partition, as Kafka and Connect report them.
   */
  @Test
  @Order(15)
  void theConsoleShowsTheSinksGroupsLagAndWhoHoldsEachPartition() throws Exception {
    String ui = uiUrl();
    pipeline.awaitSinkMatchesSource();
    String group = "connect-" + sink;
    Map<org.apache.kafka.common.TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> committed;
    try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(
        Map.of("bootstrap.servers", kafka))) {
      committed = Eventually.await("the sink's group committed on " + pipeline.topic(), WAIT, () -> {
        try {
          return admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }, m -> m.containsKey(new org.apache.kafka.common.TopicPartition(pipeline.topic(), 0)));
    }
    long offset = committed.get(new org.apache.kafka.common.TopicPartition(pipeline.topic(), 0)).offset();
    try (Browser browser = Browser.open()) {
      var d = browser.driver;
      var wait = new WebDriverWait(d, Duration.ofSeconds(90));
      loginToDashboard(d, wait, ui);
      d.get(ui + "/groups");
      assertEquals("Consumer groups", d.findElement(By.cssSelector("header.top nav a.current")).getText());
      WebElement partition = wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector(
          "section[data-group='" + group + "'] tr[data-topic='" + pipeline.topic() + "'][data-partition='0']")));
      List<WebElement> cells = partition.findElements(By.tagName("td"));
      assertEquals(String.valueOf(offset), cells.get(2).getText(), "committed, as Kafka has it");
      assertEquals("task 0", cells.get(5).getText(), partition.getText());
      assertEquals(connect.status(sink).path("tasks").get(0).path("worker_id").asText(), cells.get(6).getText(),
          "the worker Connect says runs the task");
      assertTrue(d.findElement(By.cssSelector("section[data-group='" + group + "'] h2")).getText().contains("sink "
          + sink));
      assertTrue(d.findElements(By.cssSelector("section[data-group='" + group + "'] .uncommitted")).isEmpty(),
          "a sink's group reads committed records only");
      browser.screenshot("console-11-consumer-groups");
    }
  }

  /**
   * The schema pages: subjects with their format, versions and compatibility; two versions side by side; a candidate
   * checked as the registry words it with the rollout order {@code sluice schema check} advises; the compatibility
   * set by an admin (changed in the registry, an audit line), and refused to a read user.
   */
  @Test
  @Order(16)
  void theConsoleShowsSchemasComparesVersionsChecksACandidateAndSetsCompatibility() throws Exception {
    String ui = uiUrl();
    ensureConsoleUser("viewer", "viewer-console-pw");
    String subject = pipeline.name + "-console-value";
    String v1 = "{\"type\":\"record\",\"name\":\"Order\",\"fields\":[{\"name\":\"id\",\"type\":\"int\"}]}";
    String v2 = "{\"type\":\"record\",\"name\":\"Order\",\"fields\":[{\"name\":\"id\",\"type\":\"int\"},"
        + "{\"name\":\"note\",\"type\":\"string\",\"default\":\"\"}]}";
    for (String v : List.of(v1, v2)) {
      HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(registryUrl + "/subjects/" + subject
          + "/versions")).header("Content-Type", "application/vnd.schemaregistry.v1+json")
          .POST(HttpRequest.BodyPublishers.ofString(JSON.createObjectNode().put("schema", v).toString())).build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(200, r.statusCode(), r.body());
    }
    String breaking = "{\"type\":\"record\",\"name\":\"Order\",\"fields\":[{\"name\":\"id\",\"type\":\"int\"},"
        + "{\"name\":\"note\",\"type\":\"string\",\"default\":\"\"},{\"name\":\"qty\",\"type\":\"int\"}]}";
    JsonNode registryAnswer = JSON.readTree(HTTP.send(HttpRequest.newBuilder(URI.create(registryUrl
        + "/compatibility/subjects/" + subject + "/versions/latest?verbose=true"))
        .header("Content-Type", "application/vnd.schemaregistry.v1+json")
        .POST(HttpRequest.BodyPublishers.ofString(JSON.createObjectNode().put("schema", breaking).toString())).build(),
        HttpResponse.BodyHandlers.ofString()).body());
    assertFalse(registryAnswer.path("is_compatible").asBoolean(), registryAnswer::toString);
    try (Browser browser = Browser.open()) {
      var d = browser.driver;
      var wait = new WebDriverWait(d, Duration.ofSeconds(90));
      loginToDashboard(d, wait, ui);
      d.get(ui + "/schemas?q=" + subject);
      WebElement row = wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector(
          "#subjects tr[data-subject='" + subject + "']")));
      List<WebElement> cells = row.findElements(By.tagName("td"));
      assertEquals("AVRO", cells.get(1).getText());
      assertEquals("2", cells.get(2).getText());
      assertEquals("BACKWARD", cells.get(5).getText());
      assertEquals("Schemas", d.findElement(By.cssSelector("header.top nav a.current")).getText());
      browser.screenshot("console-12-schemas");

      // Version 1 against version 2: the added field shows as added.
      row.findElement(By.tagName("a")).click();
      wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#side-by-side tr.added")));
      assertTrue(d.findElements(By.cssSelector("#side-by-side tr.added")).stream()
          .anyMatch(e -> e.getText().contains("\"note\"")), d.findElement(By.id("side-by-side")).getText());
      assertTrue(d.findElements(By.cssSelector("#side-by-side tr.removed, #side-by-side tr.changed")).isEmpty(),
          "adding a field removes nothing");
      assertTrue(d.findElement(By.id("schema-text")).getText().contains("\"note\""), "the latest version shown");

      // A candidate that breaks BACKWARD: refused, in the registry's own words, with the rollout order.
      WebElement candidate = d.findElement(By.id("candidate"));
      candidate.clear();
      candidate.sendKeys(breaking);
      d.findElement(By.id("check")).click();
      wait.until(ExpectedConditions.presenceOfElementLocated(By.id("verdict")));
      assertTrue(d.findElement(By.id("verdict")).getText().startsWith("Incompatible"),
          d.findElement(By.id("verdict")).getText());
      List<String> shown = d.findElements(By.cssSelector("#registry-messages li")).stream().map(WebElement::getText)
          .toList();
      List<String> worded = new ArrayList<>();
      registryAnswer.path("messages").forEach(m -> worded.add(m.asText()));
      assertEquals(worded, shown, "each incompatibility as the registry words it");
      assertTrue(d.findElement(By.id("rollout")).getText().contains("upgrade producers first"),
          d.findElement(By.id("rollout")).getText());
      browser.screenshot("console-13-schema-check");

      // Admin sets the compatibility: changed in the registry, with an audit line.
      new org.openqa.selenium.support.ui.Select(d.findElement(By.id("compat-level"))).selectByValue("NONE");
      d.findElement(By.id("compat-set")).click();
      wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "compatibility NONE"));
      assertEquals("NONE", JSON.readTree(HTTP.send(HttpRequest.newBuilder(URI.create(registryUrl + "/config/"
          + subject)).build(), HttpResponse.BodyHandlers.ofString()).body()).path("compatibilityLevel").asText());
      assertTrue(Files.readString(data.resolve("audit.log")).contains(" console schema compatibility " + subject
          + " user=admin address="));
      browser.screenshot("console-14-schema-admin");
      d.findElement(By.id("logout")).click();
      wait.until(ExpectedConditions.urlContains("/login"));

      // read: the same page without the control, and 403 when it posts anyway.
      consoleLogin(d, ui, "viewer", "viewer-console-pw");
      d.get(ui + "/schema?name=" + subject);
      wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#side-by-side")));
      assertTrue(d.findElements(By.id("compat-form")).isEmpty(), "no compatibility control for a read user");
      browser.screenshot("console-15-schema-read-only");
      String cookie = "sluice_session=" + d.manage().getCookieNamed("sluice_session").getValue();
      String csrf = d.findElement(By.cssSelector("meta[name='csrf']")).getAttribute("content");
      HttpResponse<String> refused = HTTP.send(HttpRequest.newBuilder(URI.create(ui + "/api/subject/compatibility"))
          .header("Cookie", cookie).header("X-CSRF-Token", csrf).header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(Map.of("name", subject,
              "compatibility", "FULL")))).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(403, refused.statusCode(), refused.body());
      assertTrue(refused.body().contains("needs the role admin"), refused.body());
      assertEquals("NONE", JSON.readTree(HTTP.send(HttpRequest.newBuilder(URI.create(registryUrl + "/config/"
          + subject)).build(), HttpResponse.BodyHandlers.ofString()).body()).path("compatibilityLevel").asText(),
          "a refused change changes nothing");
      assertTrue(Files.readString(data.resolve("audit.log")).contains(" console schema compatibility " + subject
          + " user=viewer address=127.0.0.1 status=403"));
    }
  }

  /**
   * The dead-letter pages on a sink of its own whose records fail in two ways (a key and a value its converter cannot
   * read): the sink's DLQ with its count, the records by exception class and stage, a record's headers and unwrapped
   * original; an error group replayed by an operator (its percentage shown, the records back in the topic with the
   * replay headers), replayed again once they failed again (refused: they would loop), one picked record replayed
   * alone; paging through the records; a read user sees no action and is refused when it posts.
   */
  @Test
  @Order(40)
  void theConsoleShowsDeadLettersByErrorAndReplaysAGroupOrPickedRecords() throws Exception {
    String ui = uiUrl();
    ensureConsoleUser("viewer", "viewer-console-pw");
    ensureConsoleUser("operator", "operator-console-pw");
    String topic = pipeline.name + "_dlqc";
    String sinkName = pipeline.name + "-dlqc-sink";
    String dlqTopic = pipeline.name + "-dlqc-dlq";
    try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(
        Map.of("bootstrap.servers", kafka))) {
      admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic(topic, 2, (short) 1))).all().get();
    }
    ObjectNode config = JSON.valueToTree(pipeline.sinkConfig());
    config.put("topics", topic);
    config.put("collection.name.format", "orders_dlqc");
    config.put("errors.tolerance", "all");
    config.put("errors.deadletterqueue.topic.name", dlqTopic);
    config.put("errors.deadletterqueue.topic.replication.factor", "1");
    config.put("errors.deadletterqueue.context.headers.enable", "true");
    connect.create(sinkName, config);
    try {
      // Three values and three keys the sink's JSON converter cannot read: two error groups of three. One of the
      // latter has an Avro value framed for the registry, shown decoded with its schema id.
      ConsoleOperations.Framed avro = ConsoleOperations.avro(registryUrl, topic, "chai");
      try (KafkaProducer<String, byte[]> p = new KafkaProducer<>(Map.of("bootstrap.servers", kafka),
          new StringSerializer(), new org.apache.kafka.common.serialization.ByteArraySerializer())) {
        for (int i = 0; i < 3; i++) {
          p.send(new ProducerRecord<>(topic, i % 2, null, ("{\"value not json " + i).getBytes())).get();
        }
        for (int i = 0; i < 2; i++) {
          p.send(new ProducerRecord<>(topic, 0, "key not json " + i, ("{\"id\":" + i + "}").getBytes())).get();
        }
        p.send(new ProducerRecord<>(topic, 1, "key not json avro", avro.bytes())).get();
      }
      Eventually.await("6 records in " + dlqTopic, WAIT, () -> topicEnds.records(dlqTopic), n -> n == 6);
      long topicBefore = topicEnds.records(topic);
      assertEquals(6, topicBefore);

      try (Browser browser = Browser.open()) {
        var d = browser.driver;
        var wait = new WebDriverWait(d, Duration.ofSeconds(90));
        consoleLogin(d, ui, "operator", "operator-console-pw");
        d.findElement(By.linkText("Dead letters")).click();
        WebElement row = wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector(
            "#dlqs tr[data-topic='" + dlqTopic + "']")));
        assertEquals("Dead letters", d.findElement(By.cssSelector("header.top nav a.current")).getText());
        assertTrue(row.getText().contains(sinkName) && row.getText().contains("RUNNING"), row.getText());
        assertEquals("6", row.findElements(By.tagName("td")).get(2).getText());
        browser.screenshot("console-16-dlqs");

        // The records by error: the two converter failures, counted.
        row.findElement(By.linkText(dlqTopic)).click();
        WebElement values = wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector(
            "#error-groups tr[data-stage='VALUE_CONVERTER']")));
        assertEquals("org.apache.kafka.connect.errors.DataException", values.getAttribute("data-exception"));
        assertEquals("3", values.findElements(By.tagName("td")).get(2).getText());
        assertEquals("3", d.findElement(By.cssSelector("#error-groups tr[data-stage='KEY_CONVERTER']"))
            .findElements(By.tagName("td")).get(2).getText());
        wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#dlq-records tr.dlq-record"), 6));

        // A record: Connect's error headers, the original as it failed, where it failed.
        WebElement first = d.findElement(By.cssSelector("#dlq-records tr.dlq-record[data-partition='0']"
            + "[data-offset='0']"));
        first.click();
        WebElement detail = d.findElement(By.cssSelector("#dlq-records tr.detail:not([hidden])"));
        assertTrue(detail.findElement(By.className("original-text")).getText().startsWith("{\"value not json "),
            detail.getText());
        assertTrue(detail.getText().contains("__connect.errors.exception.class.name")
            && detail.getText().contains("__connect.errors.topic"), detail.getText());
        assertTrue(first.getText().contains(topic + "["), first.getText());
        browser.screenshot("console-17-dlq-record");
        first.click();

        // Replay the value group: the percentage runs to 100, three records back in the topic, marked.
        values.findElement(By.className("replay-group")).click();
        assertTrue(d.findElement(By.id("replay-what")).getText().contains("DataException in VALUE_CONVERTER"));
        browser.screenshot("console-18-dlq-replay-confirm");
        d.findElement(By.id("replay-confirm")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "done: 3 record(s) replayed"));
        // The list of replays is drawn again at each poll: read it whole within one drawing, retried when replaced.
        wait.ignoring(org.openqa.selenium.StaleElementReferenceException.class).until(x -> {
          WebElement job = x.findElement(By.cssSelector("#replays li.done"));
          return "100%".equals(job.findElement(By.className("percent")).getText())
              && "100".equals(job.findElement(By.tagName("progress")).getAttribute("value"));
        });
        browser.screenshot("console-19-dlq-replayed");
        List<ConsumerRecord<byte[], byte[]>> replayed = ConsoleOperations.records(kafka, topic).stream()
            .filter(r -> ConsoleOperations.header(r, "__sluice.replay.topic") != null).toList();
        assertEquals(3, replayed.size(), "the group's three records are back in " + topic);
        for (ConsumerRecord<byte[], byte[]> r : replayed) {
          assertEquals(dlqTopic, ConsoleOperations.header(r, "__sluice.replay.topic"));
          assertTrue(new String(r.value(), java.nio.charset.StandardCharsets.UTF_8).startsWith("{\"value not json"));
          assertTrue(ConsoleOperations.header(r, "__sluice.replay.group").startsWith("sluice-dlq-replay." + dlqTopic
              + ".console-"));
        }

        // They fail again and come back marked: replaying the group again refuses them (they would loop).
        Eventually.await("the replayed records back in " + dlqTopic, WAIT,
            () -> topicEnds.records(dlqTopic), n -> n == 9);
        d.navigate().refresh();
        values = wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector(
            "#error-groups tr[data-stage='VALUE_CONVERTER']")));
        assertEquals("6", values.findElements(By.tagName("td")).get(2).getText());
        assertEquals("3", values.findElements(By.tagName("td")).get(3).getText(), "three replayed before");
        values.findElement(By.className("replay-group")).click();
        d.findElement(By.id("replay-confirm")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"),
            "done: 0 record(s) replayed, 3 refused (would loop)"));
        wait.ignoring(org.openqa.selenium.StaleElementReferenceException.class).until(x -> x.findElement(
            By.cssSelector("#replays li.done .refused")).getText().contains("would loop"));
        browser.screenshot("console-20-dlq-replay-refused-loop");
        assertEquals(topicBefore + 3, topicEnds.records(topic), "nothing more produced");

        // One picked record of the key group, replayed alone: the Avro one, its value decoded through the registry.
        // The groups are drawn again as the replay ends: find the link in the page as it is when clicked.
        wait.ignoring(org.openqa.selenium.StaleElementReferenceException.class).until(x -> {
          x.findElement(By.cssSelector("#error-groups tr[data-stage='KEY_CONVERTER'] .show-group")).click();
          return true;
        });
        wait.until(x -> x.getCurrentUrl().contains("stage=KEY_CONVERTER")
            && x.findElements(By.cssSelector("#dlq-records tr.dlq-record")).size() == 3);
        WebElement keyRecord = d.findElement(By.cssSelector("#dlq-records tr.dlq-record[data-schema-id='"
            + avro.schemaId() + "']"));
        assertTrue(keyRecord.getText().contains("id " + avro.schemaId() + " · " + topic + "-value"),
            keyRecord.getText());
        keyRecord.click();
        WebElement avroDetail = d.findElement(By.cssSelector("#dlq-records tr.detail:not([hidden])"));
        assertEquals("chai", JSON.readTree(avroDetail.findElement(By.className("original-text")).getText())
            .path("item").asText());
        assertTrue(avroDetail.getText().contains("key not json avro"), avroDetail.getText());
        assertTrue(avroDetail.getText().contains("Avro · " + topic + "-value · id " + avro.schemaId()),
            avroDetail.getText());
        browser.screenshot("console-20b-dlq-avro-record");
        keyRecord.click();
        String pickedOffset = keyRecord.getAttribute("data-offset");
        keyRecord.findElement(By.className("pick")).click();
        assertEquals("Replay picked (1)…", d.findElement(By.id("replay-picked")).getText());
        d.findElement(By.id("replay-picked")).click();
        d.findElement(By.id("replay-confirm")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "done: 1 record(s) replayed"));
        List<ConsumerRecord<byte[], byte[]>> pickedBack = ConsoleOperations.records(kafka, topic).stream()
            .filter(r -> ConsoleOperations.header(r, "__sluice.replay.topic") != null
                && "0".equals(ConsoleOperations.header(r, "__sluice.replay.partition"))
                && pickedOffset.equals(ConsoleOperations.header(r, "__sluice.replay.offset"))).toList();
        assertEquals(1, pickedBack.size(), "the picked record is back in " + topic);
        assertTrue(java.util.Arrays.equals(avro.bytes(), pickedBack.get(0).value()), "its framed bytes unchanged");
        assertEquals(topicBefore + 4, topicEnds.records(topic), "only the picked record");
        String audit = Files.readString(data.resolve("audit.log"));
        assertEquals(3, audit.lines().filter(l -> l.contains(" console dlq replay " + dlqTopic + " user=operator ")
            && l.contains("status=202")).count(), audit);

        // Paging: three records, then the rest from where the page ended, none twice (once the picked record, which
        // fails again, is back: ten records).
        Eventually.await("the picked record back in " + dlqTopic, WAIT, () -> topicEnds.records(dlqTopic),
            n -> n == 10);
        String cookie = "sluice_session=" + d.manage().getCookieNamed("sluice_session").getValue();
        JsonNode page1 = ConsoleOperations.get(ui, cookie, "/api/dlq/records?topic=" + dlqTopic + "&limit=3");
        assertTrue(page1.path("more").asBoolean(), page1.toString());
        JsonNode page2 = ConsoleOperations.get(ui, cookie, "/api/dlq/records?topic=" + dlqTopic + "&limit=100&at="
            + java.net.URLEncoder.encode(page1.path("at").asText(), java.nio.charset.StandardCharsets.UTF_8));
        Set<String> seen = new java.util.HashSet<>();
        for (JsonNode r : List.of(page1.path("records"), page2.path("records"))) {
          r.forEach(x -> assertTrue(seen.add(x.path("partition") + ":" + x.path("offset")), "twice: " + x));
        }
        assertEquals(topicEnds.records(dlqTopic), seen.size());
        d.findElement(By.id("logout")).click();
        wait.until(ExpectedConditions.urlContains("/login"));

        // read: the same page without an action, and refused when it posts anyway.
        consoleLogin(d, ui, "viewer", "viewer-console-pw");
        d.get(ui + "/dlq?topic=" + dlqTopic);
        wait.until(ExpectedConditions.numberOfElementsToBeMoreThan(By.cssSelector("#dlq-records tr.dlq-record"), 0));
        assertTrue(d.findElements(By.cssSelector("button[data-action], .operate, input.pick")).isEmpty(),
            "no action for a read user");
        browser.screenshot("console-21-dlq-read-only");
        String viewerCookie = "sluice_session=" + d.manage().getCookieNamed("sluice_session").getValue();
        String viewerCsrf = d.findElement(By.cssSelector("meta[name='csrf']")).getAttribute("content");
        HttpResponse<String> refused = ConsoleOperations.post(ui, viewerCookie, viewerCsrf, "/api/dlq/replay",
            Map.of("name", dlqTopic, "records", List.of("0:0")));
        assertEquals(403, refused.statusCode(), refused.body());
        assertTrue(refused.body().contains("needs the role operate"), refused.body());
        assertEquals(403, ConsoleOperations.post(ui, viewerCookie, "forged", "/api/dlq/replay",
            Map.of("name", dlqTopic, "records", List.of("0:0"))).statusCode(), "CSRF checked");
        assertEquals(topicBefore + 4, topicEnds.records(topic), "a refused replay produces nothing");
        assertTrue(Files.readString(data.resolve("audit.log")).contains(" console dlq replay " + dlqTopic
            + " user=viewer address=127.0.0.1 status=403"));
      }
    } finally {
      connect.delete(sinkName);
    }
  }

  /**
   * The alerts page over the router's API v2: alerts grouped as the router groups them, a warning inhibited by its
   * connector's critical alert and saying so; a silence made from an alert (its labels as matchers, a comment
   * required as Alertmanager's form requires one), edited and expired once confirmed, each checked on the router; a
   * read user sees no action and is refused when it posts.
   */
  @Test
  @Order(41)
  void theConsoleShowsAlertsAsTheRouterGroupsThemAndSilencesEditsAndExpires() throws Exception {
    String ui = uiUrl();
    ensureConsoleUser("viewer", "viewer-console-pw");
    ensureConsoleUser("operator", "operator-console-pw");
    String connector = "console-it-" + ProcessHandle.current().pid();
    ConsoleOperations.fire(alertsUrl, List.of(
        Map.of("alertname", "ConnectConnectorDown", "severity", "critical", "connector", connector,
            "pipeline", connector),
        Map.of("alertname", "ConnectHighLag", "severity", "warning", "connector", connector, "pipeline", connector)));
    String comment = "console silence " + connector;
    try (Browser browser = Browser.open()) {
      var d = browser.driver;
      var wait = new WebDriverWait(d, Duration.ofSeconds(90));
      consoleLogin(d, ui, "operator", "operator-console-pw");
      d.findElement(By.linkText("Alerts")).click();
      assertEquals("Alerts", d.findElement(By.cssSelector("header.top nav a.current")).getText());
      // Grouped by alertname, severity and connector, as the bundled route does: the lag in a group of its own,
      // inhibited by the connector being down.
      WebElement lag = wait.until(ExpectedConditions.presenceOfElementLocated(By.xpath("//section[contains(@class,"
          + "'alert-group')][.//span[text()='connector=" + connector + "']]//tr[@data-alertname='ConnectHighLag']")));
      assertTrue(lag.getText().contains("inhibited"), lag.getText());
      assertTrue(lag.findElement(By.className("inhibited-by")).getText().contains("Inhibited by ConnectConnectorDown"),
          lag.getText());
      WebElement group = lag.findElement(By.xpath("ancestor::section"));
      assertTrue(group.findElement(By.tagName("h2")).getText().contains("alertname=ConnectHighLag"), group.getText());
      browser.screenshot("console-22-alerts-inhibited");

      // A silence from the down alert: its four labels as matchers; no comment, refused as Alertmanager's form does.
      WebElement down = d.findElement(By.xpath("//tr[@data-alertname='ConnectConnectorDown'][.//span[text()="
          + "'connector=" + connector + "']]"));
      down.findElement(By.className("silence-alert")).click();
      WebElement form = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("silence-form")));
      List<WebElement> matchers = form.findElements(By.cssSelector("#matchers tbody tr"));
      Map<String, String> filled = new java.util.TreeMap<>();
      for (WebElement m : matchers) {
        filled.put(m.findElement(By.className("m-name")).getAttribute("value"),
            m.findElement(By.className("m-value")).getAttribute("value"));
      }
      assertEquals(Map.of("alertname", "ConnectConnectorDown", "severity", "critical", "connector", connector,
          "pipeline", connector), filled);
      d.findElement(By.id("silence-save")).click();
      wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector(".err[data-field='comment']"),
          "Required"));
      browser.screenshot("console-23-silence-form-refused");
      assertTrue(ConsoleOperations.silenceCommented(alertsUrl, comment) == null, "nothing posted");
      d.findElement(By.id("silence-comment-text")).sendKeys(comment);
      d.findElement(By.id("silence-save")).click();
      wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "created"));
      JsonNode silence = ConsoleOperations.silenceCommented(alertsUrl, comment);
      assertTrue(silence != null, "the silence is on the router");
      assertEquals("active", silence.path("status").path("state").asText(), silence::toString);
      assertEquals("operator", silence.path("createdBy").asText());
      assertEquals(4, silence.path("matchers").size(), silence::toString);
      String id = silence.path("id").asText();
      // The down alert is silenced now, and says by which silence.
      wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#silences tr[data-silence='" + id
          + "']")));
      // (The page redraws as it loads: each look finds the row anew.)
      new WebDriverWait(d, Duration.ofSeconds(60)).ignoring(org.openqa.selenium.StaleElementReferenceException.class)
          .until(x -> x.findElement(By.xpath("//tr[@data-alertname='ConnectConnectorDown'][.//span[text()="
              + "'connector=" + connector + "']]")).getText().contains("Silenced by " + id.substring(0, 8)));
      browser.screenshot("console-24-silence-created");

      // Edit its comment: the router updates it.
      d.findElement(By.cssSelector("#silences tr[data-silence='" + id + "'] .edit-silence")).click();
      WebElement text = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("silence-comment-text")));
      assertEquals(comment, text.getAttribute("value"));
      text.sendKeys(" (edited)");
      d.findElement(By.id("silence-save")).click();
      wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "Silence "));
      JsonNode edited = ConsoleOperations.silenceCommented(alertsUrl, comment + " (edited)");
      assertTrue(edited != null && "active".equals(edited.path("status").path("state").asText()),
          String.valueOf(ConsoleOperations.silences(alertsUrl)));
      String editedId = edited.path("id").asText();

      // Expire, once confirmed: expired on the router.
      wait.until(ExpectedConditions.elementToBeClickable(By.cssSelector("#silences tr[data-silence='" + editedId
          + "'] .expire-silence"))).click();
      assertEquals(editedId, d.findElement(By.id("expire-id")).getText());
      browser.screenshot("console-25-silence-expire-confirm");
      d.findElement(By.id("expire-confirm")).click();
      wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "expired"));
      assertEquals("expired", ConsoleOperations.silenceCommented(alertsUrl, comment + " (edited)").path("status")
          .path("state").asText());
      wait.until(ExpectedConditions.attributeContains(By.cssSelector("#silences tr[data-silence='" + editedId + "']"),
          "class", "expired"));
      browser.screenshot("console-26-silences");
      String audit = Files.readString(data.resolve("audit.log"));
      assertTrue(audit.contains(" console silence add user=operator address=127.0.0.1 status=200"), audit);
      assertTrue(audit.contains(" console silence update " + id + " user=operator address=127.0.0.1 status=200"),
          audit);
      assertTrue(audit.contains(" console silence expire " + editedId + " user=operator address=127.0.0.1 status=200"),
          audit);
      d.findElement(By.id("logout")).click();
      wait.until(ExpectedConditions.urlContains("/login"));

      // read: sees the alerts and silences, no action, refused when it posts anyway.
      consoleLogin(d, ui, "viewer", "viewer-console-pw");
      d.get(ui + "/alerts");
      wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#silences tr[data-silence='" + editedId
          + "']")));
      wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-alertname='ConnectHighLag']")));
      assertTrue(d.findElements(By.cssSelector("button[data-action], .operate")).isEmpty(), "no action for a read user");
      browser.screenshot("console-27-alerts-read-only");
      String cookie = "sluice_session=" + d.manage().getCookieNamed("sluice_session").getValue();
      String csrf = d.findElement(By.cssSelector("meta[name='csrf']")).getAttribute("content");
      HttpResponse<String> refused = ConsoleOperations.post(ui, cookie, csrf, "/api/silence/add", Map.of("matchers",
          List.of(Map.of("name", "connector", "value", connector)), "comment", "viewer's"));
      assertEquals(403, refused.statusCode(), refused.body());
      assertTrue(refused.body().contains("needs the role operate"), refused.body());
      assertEquals(403, ConsoleOperations.post(ui, cookie, "forged", "/api/silence/expire", Map.of("name", id))
          .statusCode(), "CSRF checked");
      assertTrue(ConsoleOperations.silenceCommented(alertsUrl, "viewer's") == null, "a refused silence is not made");
    }
  }

  /** Adds a console user unless {@code sluice ui user list} has it (the connector test adds them when it runs). */
  private static void ensureConsoleUser(String user, String password) throws Exception {
    Run users = sluice("ui", "user", "list", "--data-dir", data.toString());
    if (users.out().lines().anyMatch(l -> l.split("\t")[0].equals(user))) {
      return;
    }
    Path pw = Files.writeString(dir.resolve(user + ".pw"), password + "\n");
    Run added = sluice("ui", "user", "add", user, "--password-file", pw.toString(), "--data-dir", data.toString());
    assertEquals(0, added.exit(), added::toString);
  }

  @Test
  @Order(5)
  void offsetsBackupShowSetSkipRestoreAndReset() throws Exception {
    Run backup = sluice(cluster("offsets", "backup", "--connector", source));
    assertEquals(0, backup.exit(), backup::toString);
    try (Stream<Path> files = Files.list(data.resolve("backups/offsets"))) {
      assertTrue(files.anyMatch(f -> f.getFileName().toString().endsWith(".tsv")), backup::toString);
    }
    Path file;
    try (Stream<Path> files = Files.list(data.resolve("backups/offsets"))) {
      // This source's backup: the console's test leaves one of the connector it deleted in the same folder.
      file = files.filter(f -> f.getFileName().toString().startsWith(source + "-") && f.toString().endsWith(".tsv"))
          .max(java.util.Comparator.comparing(Path::toString)).orElseThrow();
    }

    Run show = sluice(cluster("offsets", "show", source, "-o", "json"));
    assertEquals(0, show.exit(), show::toString);
    JsonNode positions = show.json();
    assertEquals(source, positions.path("connector").asText(), show.out());
    assertEquals("RUNNING", positions.path("state").asText(), show.out());
    String lsn = positions.toString().replaceAll(".*\"lsn\"\\s*:\\s*\"?([0-9A-F/]+)\"?.*", "$1");
    assertNotEquals(positions.toString(), lsn, "no lsn in " + show.out());

    Run set = sluice(cluster("offsets", "set", source, "--lsn", lsn, "--dry-run"));
    assertEquals(0, set.exit(), set::toString);
    assertTrue(set.out().toLowerCase().contains("dry run"), set::toString);

    Run skip = sluice(cluster("offsets", "skip", source, "--dry-run"));
    assertTrue(skip.exit() == 0 || skip.exit() == SKIP_REFUSED, skip::toString);

    Run restore = sluice(cluster("offsets", "restore", file.toString(), "--connector", source));
    assertEquals(0, restore.exit(), restore::toString);
    connect.awaitStatus(source, s -> "RUNNING".equals(s.path("connector").path("state").asText()), WAIT, "RUNNING");

    Run refused = sluice(cluster("offsets", "reset", source));
    assertEquals(3, refused.exit(), refused::toString);
    assertTrue(refused.err().contains("nothing was changed"), refused::toString);
    Run reset = sluice(cluster("offsets", "reset", source, "--snapshot", "never", "--dry-run"));
    assertEquals(0, reset.exit(), reset::toString);
    assertEquals("RUNNING", connect.state(source));
  }

  /** Skipping needs a change after the current position; with none, the command refuses and says so. */
  private static final int SKIP_REFUSED = 3;

  @Test
  @Order(6)
  void dlqInspectUnwrapStatsAndReplay() throws Exception {
    // Each command is a JVM of its own: wait for the record here first, so the command runs once it is there.
    Eventually.await("a record in " + dlq + " (read here)", WAIT, () -> topicEnds.records(dlq), n -> n >= 1);
    JsonNode inspected = Eventually.await("a record in " + dlq, WAIT, () -> {
      try {
        Run r = sluice(cluster("dlq", "inspect", dlq, "-o", "json", "--from-beginning"));
        return r.exit() == 0 ? r.json() : JSON.createArrayNode();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }, j -> j.size() > 0);
    assertTrue(inspected.toString().contains(sink), inspected.toString());

    Run unwrap = sluice(cluster("dlq", "unwrap", dlq, "--from-beginning"));
    assertEquals(0, unwrap.exit(), unwrap::toString);
    assertTrue(unwrap.out().contains("not json"), unwrap::toString);

    Run stats = sluice(cluster("dlq", "stats", dlq, "-o", "json"));
    assertEquals(0, stats.exit(), stats::toString);
    assertEquals(1, stats.json().path("records").asInt(), stats.out());
    assertEquals(sink, stats.json().path("sinks").get(0).path("connector").asText(), stats.out());

    // Back to the topic it came from (the default): the sink fails on it again, so it returns to the DLQ.
    Run dry = sluice(cluster("dlq", "replay", dlq, "--dry-run"));
    assertEquals(0, dry.exit(), dry::toString);
    Run replay = sluice(cluster("dlq", "replay", dlq));
    assertEquals(0, replay.exit(), replay::toString);
    assertTrue(replay.out().startsWith("replayed 1 record(s) from " + dlq), replay::toString);
    Eventually.await("the replayed record back in " + dlq + " (read here)", WAIT, () -> topicEnds.records(dlq),
        n -> n >= 2);
    Eventually.await("the replayed record back in " + dlq, WAIT, () -> {
      try {
        return sluice(cluster("dlq", "stats", dlq, "-o", "json")).json().path("records").asInt();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }, n -> n == 2);
  }

  @Test
  @Order(7)
  void reconcilePostgresToPostgres() throws Exception {
    pipeline.awaitSinkMatchesSource();
    String src = SharedPostgres.jdbcUrl(pipeline.sourceDb) + "?user=postgres&password=postgres";
    String dst = SharedPostgres.jdbcUrl(pipeline.sinkDb) + "?user=postgres&password=postgres";
    Run equal = sluice("reconcile", "--source", src, "--sink", dst, "--table", "public.orders", "-o", "json");
    assertEquals(0, equal.exit(), equal::toString);
    try (Connection c = SharedPostgres.connect(pipeline.sinkDb); Statement s = c.createStatement()) {
      s.execute("UPDATE orders SET qty = qty + 1000 WHERE id = 7");
    }
    Run differ = sluice("reconcile", "--source", src, "--sink", dst, "--table", "public.orders");
    assertEquals(1, differ.exit(), differ::toString);
    assertTrue(differ.out().contains("7"), differ::toString);

    // The repair: a dry run prints the SQL; applied, it backs up, changes, and proves the result.
    String[] repair = {"reconcile", "--source", src, "--sink", dst, "--table", "public.orders", "--repair"};
    Run dry = sluice(repair);
    assertEquals(1, dry.exit(), dry::toString);
    assertTrue(dry.out().contains("UPDATE \"public\".\"orders\" SET") && dry.out().contains("WHERE \"id\" = '7'"),
        dry::toString);
    Run unconfirmed = sluice(java.util.stream.Stream.concat(java.util.Arrays.stream(repair), java.util.stream.Stream.of(
        "--apply")).toArray(String[]::new));
    assertEquals(2, unconfirmed.exit(), "no terminal, no --yes: nothing is applied; " + unconfirmed);
    Path backup = data.resolve("orders-backup.jsonl");
    Run applied = sluice(java.util.stream.Stream.concat(java.util.Arrays.stream(repair), java.util.stream.Stream.of(
        "--apply", "--yes", "--backup", backup.toString())).toArray(String[]::new));
    assertEquals(0, applied.exit(), applied::toString);
    assertTrue(applied.out().contains("1 updated") && applied.out().contains("reconcile after the repair: equal"),
        applied::toString);
    Run restored = sluice("reconcile", "--restore", backup.toString(), "--sink", dst);
    assertEquals(0, restored.exit(), restored::toString);
    assertEquals(1, sluice("reconcile", "--source", src, "--sink", dst, "--table", "public.orders").exit(),
        "the backup brought the difference back");
    try (Connection c = SharedPostgres.connect(pipeline.sinkDb); Statement s = c.createStatement()) {
      s.execute("UPDATE orders SET qty = qty - 1000 WHERE id = 7");
    }
  }

  @Test
  @Order(8)
  void reconcilePostgresToMariaDb() throws Exception {
    String maria = MariaDbServer.createDatabase("dist_" + ProcessHandle.current().pid());
    try (Connection c = DriverManager.getConnection(maria); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE orders (id int PRIMARY KEY, item text NOT NULL, qty int NOT NULL)");
      StringBuilder rows = new StringBuilder();
      for (int i = 1; i <= 20; i++) {
        rows.append(i == 1 ? "" : ",").append("(").append(i).append(",'item-").append(i).append("',").append(i)
            .append(")");
      }
      s.execute("INSERT INTO orders VALUES " + rows);
    }
    String src = SharedPostgres.jdbcUrl(pipeline.sourceDb) + "?user=postgres&password=postgres";
    Run equal = sluice("reconcile", "--source", src, "--sink", maria, "--table", "public.orders:orders");
    assertEquals(0, equal.exit(), equal::toString);
  }

  @Test
  @Order(9)
  void schemaCheckAgainstTheRegistry() throws Exception {
    String subject = pipeline.name + "-value";
    String v1 = "{\"type\":\"record\",\"name\":\"Order\",\"fields\":[{\"name\":\"id\",\"type\":\"int\"}]}";
    HttpResponse<String> registered = HTTP.send(HttpRequest.newBuilder(URI.create(registryUrl + "/subjects/"
            + subject + "/versions")).header("Content-Type", "application/vnd.schemaregistry.v1+json")
        .POST(HttpRequest.BodyPublishers.ofString(JSON.createObjectNode().put("schema", v1).toString())).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, registered.statusCode(), registered.body());
    Path compatible = Files.writeString(dir.resolve("order.avsc"), "{\"type\":\"record\",\"name\":\"Order\","
        + "\"fields\":[{\"name\":\"id\",\"type\":\"int\"},{\"name\":\"note\",\"type\":\"string\",\"default\":\"\"}]}");
    Run ok = sluice("schema", "check", "--subject", subject, "--file", compatible.toString(), "--registry",
        registryUrl);
    assertEquals(0, ok.exit(), ok::toString);
    Path breaking = Files.writeString(dir.resolve("broken.avsc"), "{\"type\":\"record\",\"name\":\"Order\","
        + "\"fields\":[{\"name\":\"id\",\"type\":\"int\"},{\"name\":\"note\",\"type\":\"string\"}]}");
    Run refused = sluice("schema", "check", "--subject", subject, "--file", breaking.toString(), "--registry",
        registryUrl);
    assertEquals(1, refused.exit(), refused::toString);
  }

  @Test
  @Order(10)
  void alertsCheckConfig() throws Exception {
    Path good = Files.writeString(dir.resolve("alertmanager.yml"), """
        route:
          receiver: team
          group_by: [alertname]
        receivers:
          - name: team
            webhook_configs:
              - url: http://127.0.0.1:9/hook
        """);
    Run ok = sluice("alerts", "check-config", good.toString());
    assertEquals(0, ok.exit(), ok::toString);
    Path bad = Files.writeString(dir.resolve("bad.yml"), """
        route:
          receiver: nobody
        receivers:
          - name: team
        """);
    Run refused = sluice("alerts", "check-config", bad.toString());
    assertNotEquals(0, refused.exit(), refused::toString);
    assertFalse((refused.out() + refused.err()).isBlank(), refused::toString);
    assertTrue((refused.out() + refused.err()).contains("nobody"), refused::toString);

    // The exports, checked by the tools they are for (Debian's promtool and amtool, installed by .ci/run).
    Run grafana = sluice("export", "grafana-dashboard");
    assertEquals(0, grafana.exit(), grafana::toString);
    assertEquals(8, grafana.json().path("panels").size());
    Run rules = sluice("export", "prometheus-rules");
    assertEquals(0, rules.exit(), rules::toString);
    Run routing = sluice("export", "alertmanager-config");
    assertEquals(0, routing.exit(), routing::toString);
    Path promtool = RequiredTool.require("promtool", "Debian package prometheus");
    Path amtool = RequiredTool.require("amtool", "Debian package prometheus-alertmanager");
    Path rulesFile = Files.writeString(dir.resolve("exported.rules.yml"), rules.out());
    Path routingFile = Files.writeString(dir.resolve("exported-alertmanager.yml"), routing.out());
    for (List<String> check : List.of(List.of(promtool.toString(), "check", "rules", rulesFile.toString()),
        List.of(amtool.toString(), "check-config", routingFile.toString()))) {
      Process p = new ProcessBuilder(check).redirectErrorStream(true).start();
      String said = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      assertEquals(0, p.waitFor(), check + ": " + said);
      assertTrue(said.contains("SUCCESS"), said);
    }
  }

  /** The connectors command, every subcommand, on a JDBC sink of its own (an empty topic, so it idles RUNNING). */
  @Test
  @Order(11)
  void connectorsCommands() throws Exception {
    String name = pipeline.name + "-cli";
    Map<String, String> config = new java.util.LinkedHashMap<>(pipeline.sinkConfig());
    config.put("topics", pipeline.name + "-cli-empty");
    String password = config.get("connection.password");
    StringBuilder yaml = new StringBuilder("name: " + name + "\nconfig:\n");
    config.forEach((k, v) -> yaml.append("  ").append(k).append(": ")
        .append(k.equals("tasks.max") ? v : "'" + v + "'").append('\n'));
    Path file = Files.writeString(dir.resolve("cli-sink.yaml"), yaml.toString());
    String[] c = {"--connect-url", connectUrl, "--alerts-url", alertsUrl};

    Run dry = sluice(with(c, "connectors", "apply", "-f", file.toString(), "--dry-run"));
    assertEquals(0, dry.exit(), dry::toString);
    assertTrue(dry.out().contains("connector " + name + " would be created:"), dry::toString);
    assertTrue(dry.out().contains("  + connection.password: ********"), dry::toString);
    assertFalse(dry.out().contains(password), "the password is never printed: " + dry);
    assertTrue(connect.config(name).isEmpty(), "a dry run creates nothing");

    Run created = sluice(with(c, "connectors", "apply", "-f", file.toString()));
    assertEquals(0, created.exit(), created::toString);
    assertTrue(created.out().startsWith("connector " + name + " created:"), created::toString);
    Run running = sluice(with(c, "connectors", "watch", name, "--until", "RUNNING", "--timeout", "2m"));
    assertEquals(0, running.exit(), running::toString);
    assertTrue(running.out().contains(name + "  connector  RUNNING"), running::toString);

    Run again = sluice(with(c, "connectors", "apply", "-f", file.toString()));
    assertEquals(0, again.exit(), again::toString);
    assertTrue(again.out().startsWith("connector " + name + " unchanged"), again::toString);

    // batch.size was filled in by the worker (2000); the file now asks for 100.
    Files.writeString(file, yaml + "  batch.size: 100\n");
    Run updated = sluice(with(c, "connectors", "apply", "-f", file.toString()));
    assertEquals(0, updated.exit(), updated::toString);
    assertTrue(updated.out().contains("connector " + name + " updated:\n  ~ batch.size: 2000 -> 100"), updated::toString);
    Eventually.await("batch.size 100 applied", WAIT, () -> connect.config(name).orElseThrow().path("batch.size")
        .asText(), "100"::equals);

    Run list = sluice(with(c, "connectors", "list"));
    assertEquals(0, list.exit(), list::toString);
    assertTrue(list.out().startsWith("NAME"), list::toString);
    assertTrue(list.out().lines().anyMatch(l -> l.startsWith(name + " ") && l.contains("sink")), list::toString);
    JsonNode listed = sluice(with(c, "connectors", "list", "-o", "json")).json();
    JsonNode mine = null;
    for (JsonNode n : listed) {
      mine = n.path("name").asText().equals(name) ? n : mine;
    }
    assertEquals("sink", mine.path("type").asText(), listed::toString);
    assertEquals(1, mine.path("tasks").path("total").asInt(), listed::toString);

    Run described = sluice(with(c, "connectors", "describe", name));
    assertEquals(0, described.exit(), described::toString);
    assertTrue(described.out().contains("Class:   io.debezium.connector.jdbc.JdbcSinkConnector"), described::toString);
    assertTrue(described.out().contains("Topics:") && described.out().contains("Config:"), described::toString);
    assertFalse(described.out().contains(password), described::toString);
    JsonNode describedJson = sluice(with(c, "connectors", "describe", name, "-o", "json")).json();
    assertEquals(name, describedJson.path("name").asText());
    assertFalse(describedJson.path("config").path("connection.password").asText().equals(password));
    assertEquals("at least once", describedJson.path("delivery").path("guarantee").asText(), describedJson::toString);
    assertTrue(describedJson.path("delivery").path("transactions").isNull(), "a sink writes no transactions");

    // The pipeline's source delivers exactly once: listed so, and described with its transactions as the metrics
    // server scraped them (commits counted, none failed, the timeout its coordinator holds).
    assertTrue(list.out().lines().anyMatch(l -> l.startsWith(source + " ") && l.endsWith("exactly once")),
        list::toString);
    JsonNode sourceListed = null;
    for (JsonNode n : listed) {
      sourceListed = n.path("name").asText().equals(source) ? n : sourceListed;
    }
    assertEquals("exactly once", sourceListed.path("delivery").asText(), listed::toString);
    assertEquals("at least once", mine.path("delivery").asText(), listed::toString);
    // Read from the metrics server, once its scrape has them: wait for that here rather than a command a poll.
    Eventually.await("the source's committed transactions in the metrics server", WAIT, () -> query(
        "svc_connect_task_offset_commit_success_total{connector=\"" + source + "\"} > 0"),
        body -> body.contains("\"connector\":\"" + source + "\""));
    JsonNode transactions = Eventually.await("the source's transactions in describe", WAIT, () -> {
      try {
        return sluice(with(c, "connectors", "describe", source, "--metrics-url", metricsUrl, "-o", "json")).json()
            .path("delivery");
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }, d -> d.path("transactions").path("committed").asLong() > 0).path("transactions");
    assertEquals(0, transactions.path("failed").asLong(), transactions::toString);
    assertTrue(transactions.path("open").isArray(), transactions::toString);
    Run sourceDescribed = sluice(with(c, "connectors", "describe", source, "--metrics-url", metricsUrl));
    assertTrue(sourceDescribed.out().contains("Delivery: exactly once (a transaction per poll batch)")
        && sourceDescribed.out().contains("Transactions: ") && sourceDescribed.out().contains(" committed, 0 failed"
        + " (aborted) since the tasks started"), sourceDescribed::toString);

    Run paused = sluice(with(c, "connectors", "pause", name, "--silence", "1h", "--comment", "planned maintenance"));
    assertEquals(0, paused.exit(), paused::toString);
    assertTrue(paused.out().contains("connector " + name + " paused"), paused::toString);
    assertEquals("PAUSED", connect.state(name));
    JsonNode silences = JSON.readTree(HTTP.send(HttpRequest.newBuilder(URI.create(alertsUrl + "/api/v2/silences"))
        .build(), HttpResponse.BodyHandlers.ofString()).body());
    JsonNode silence = null;
    for (JsonNode s : silences) {
      silence = s.path("comment").asText().equals("planned maintenance") ? s : silence;
    }
    assertTrue(silence != null, silences::toString);
    assertEquals("active", silence.path("status").path("state").asText(), silence::toString);
    assertEquals(name, silence.path("matchers").get(0).path("value").asText(), silence::toString);
    assertEquals("connector", silence.path("matchers").get(0).path("name").asText(), silence::toString);

    Run resumed = sluice(with(c, "connectors", "resume", name));
    assertEquals(0, resumed.exit(), resumed::toString);
    assertEquals("RUNNING", connect.state(name));
    Run restarted = sluice(with(c, "connectors", "restart", name, "--include-tasks"));
    assertEquals(0, restarted.exit(), restarted::toString);
    Run stopped = sluice(with(c, "connectors", "stop", name));
    assertEquals(0, stopped.exit(), stopped::toString);
    Run watched = sluice(with(c, "connectors", "watch", name, "--until", "stopped", "--timeout", "30s", "-o", "json"));
    assertEquals(0, watched.exit(), watched::toString);
    assertTrue(watched.out().contains("\"state\":\"STOPPED\""), watched::toString);

    // A config Connect refuses changes nothing and says which key is wrong; applied as a folder beside a good one,
    // the good one is not created either: every connector is validated before the first is written.
    Path set = Files.createDirectories(dir.resolve("connector-set"));
    Files.writeString(set.resolve("a-good-sink.yaml"), yaml.toString().replace("name: " + name + "\n",
        "name: " + name + "-good\n"));
    Files.writeString(set.resolve("b-bad-sink.json"), JSON.writeValueAsString(Map.of("name", name + "-bad",
        "config", Map.of("connector.class", "io.debezium.connector.jdbc.JdbcSinkConnector", "topics", "t",
            "tasks.max", "many"))));
    Files.writeString(set.resolve("README.txt"), "not a connector: passed over");
    Run refused = sluice(with(c, "connectors", "apply", "-f", set.toString()));
    assertEquals(3, refused.exit(), refused::toString);
    assertTrue(refused.err().contains("error: Kafka Connect refused the config of " + name + "-bad")
        && refused.err().contains("tasks.max (2 errors):") && refused.err().contains("Invalid value many")
        && refused.err().contains("none of the 2 connectors was changed"), refused::toString);
    assertTrue(connect.config(name + "-bad").isEmpty(), "nothing created");
    assertTrue(connect.config(name + "-good").isEmpty(), "the good one held back with the refused one");

    Run deleted = sluice(with(c, "connectors", "delete", name));
    assertEquals(0, deleted.exit(), deleted::toString);
    // Each state-changing command is one audit line, refused ones too; read-only ones are not.
    String audit = Files.readString(dir.resolve("data").resolve("audit.log"));
    assertTrue(audit.contains(" cli connectors delete " + name + " user="), audit);
    assertTrue(audit.contains(" cli connectors apply user=") && audit.contains("status=exit 3"), audit);
    assertTrue(!audit.contains("connectors describe"), audit);
    Run gone = sluice(with(c, "connectors", "describe", name));
    assertEquals(3, gone.exit(), gone::toString);
    assertTrue(gone.err().contains("no connector " + name), gone::toString);
    Run unreachable = sluice("connectors", "list", "--connect-url", "http://127.0.0.1:" + freePort());
    assertEquals(4, unreachable.exit(), unreachable::toString);
  }

  /** The README's quickstart block, one command a line, comments dropped. */
  /**
   * Writes to a source table until stopped: new rows, increments of {@code qty} (so that, per key, every later
   * change carries a larger value) and deletes, each in its own transaction, as an application would.
   */
  private static final class SourceLoad implements AutoCloseable {
    private final Thread thread;
    private volatile boolean stop;
    private volatile Throwable failed;
    private final java.util.concurrent.atomic.AtomicLong changes = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();

    SourceLoad(java.util.concurrent.Callable<Connection> connect, String table, int firstNewId, int maxId) {
      next.set(firstNewId);
      thread = new Thread(() -> {
        java.util.Random random = new java.util.Random(42);
        try (Connection c = connect.call(); Statement s = c.createStatement()) {
          while (!stop) {
            int id = 1 + random.nextInt(maxId);
            switch (random.nextInt(10)) {
              case 0 -> s.executeUpdate("INSERT INTO " + table + " (id, item, qty) VALUES (" + next.getAndIncrement()
                  + ", 'new', 1)");
              case 1 -> s.executeUpdate("DELETE FROM " + table + " WHERE id = " + id);
              default -> s.executeUpdate("UPDATE " + table + " SET qty = qty + 1 WHERE id = " + id);
            }
            changes.incrementAndGet();
            Thread.sleep(2);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } catch (Throwable e) {
          failed = e;
        }
      }, "source-load");
      thread.start();
    }

    @Override
    public void close() throws Exception {
      stop = true;
      thread.join(30_000);
      if (failed != null) {
        throw new AssertionError("the load failed", failed);
      }
      assertTrue(changes.get() > 100, "the load made " + changes.get() + " changes");
    }

    /** The id the next inserted row would have had: where a later load starts so that its rows are new. */
    int nextId() {
      return next.get();
    }
  }

  /**
   * Per key, the {@code qty} of every change event in topic order never goes down: the load only increments it, so a
   * snapshot read that carried an older value after a newer streamed change would show here (and an event lost would
   * leave the sink unequal to the source). A streamed change sent again after the connector was resumed from its
   * offsets (the same source position: Connect's sources deliver at least once) is counted once.
   */
  private static void assertNoKeyGoesBack(String topic) {
    Map<Integer, Integer> last = new java.util.HashMap<>();
    Set<String> streamed = new java.util.HashSet<>();
    int checked = 0;
    for (JsonNode e : Pipeline.payloads(kafka, topic, 0)) {
      JsonNode at = e.path("source");
      if (!"r".equals(e.path("op").asText()) && !streamed.add(at.path("lsn").asText() + "/" + at.path("file").asText()
          + "/" + at.path("pos").asText() + "/" + at.path("row").asText() + "/" + e.path("before") + e.path("after"))) {
        continue;
      }
      JsonNode after = e.path("after");
      if (after.isMissingNode() || after.isNull()) {
        last.remove(e.path("before").path("id").asInt());
        continue;
      }
      int id = after.path("id").asInt();
      int qty = after.path("qty").asInt();
      Integer before = last.put(id, qty);
      if (before != null && qty < before && !"c".equals(e.path("op").asText())) {
        throw new AssertionError("key " + id + " went back from qty " + before + " to " + qty + " in " + topic
            + " (" + e.path("op").asText() + ", snapshot " + e.path("source").path("snapshot").asText() + ")");
      }
      checked++;
    }
    assertTrue(checked > 0, "no change events in " + topic);
  }

  /**
   * Logs in as admin with the password the dashboard test gave it, or, when that test has not run (this one run
   * alone), with the default one, changed first as the dashboard asks.
   */
  private static void loginToDashboard(WebDriver d, WebDriverWait wait, String ui) {
    for (String password : List.of("dashboard-pw-1", "admin")) {
      d.get(ui + "/login");
      d.findElement(By.id("user")).sendKeys("admin");
      d.findElement(By.id("password")).sendKeys(password);
      d.findElement(By.id("login")).click();
      wait.until(x -> !x.getCurrentUrl().endsWith("/login") || !x.findElements(By.cssSelector("#error")).isEmpty()
          && !x.findElement(By.id("error")).getText().isBlank());
      if (d.getCurrentUrl().contains("/password")) {
        d.findElement(By.id("current")).sendKeys("admin");
        d.findElement(By.id("new-password")).sendKeys("dashboard-pw-1");
        d.findElement(By.id("confirm")).sendKeys("dashboard-pw-1");
        d.findElement(By.id("change")).click();
        wait.until(x -> !x.getCurrentUrl().contains("/password"));
      }
      if (!d.getCurrentUrl().contains("/login")) {
        return;
      }
    }
    throw new AssertionError("cannot log in to the dashboard");
  }

  /**
   * Runs {@code sluice reconcile} until it exits 0 (the sink caught up), for up to two minutes. A reconcile is a
   * process of its own that reads every row on both sides, so each waits first, up to 30 s, for the sink to hold as
   * many rows as the source, counted here ({@code --source}, {@code --sink} and {@code --table SOURCE:SINK} of the
   * command).
   */
  private static void awaitEqual(String[] reconcile, String what) throws Exception {
    List<String> args = List.of(reconcile);
    String[] tables = args.get(args.indexOf("--table") + 1).split(":");
    String source = args.get(args.indexOf("--source") + 1);
    String sink = args.get(args.indexOf("--sink") + 1);
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    Run last;
    do {
      long gate = Math.min(deadline, System.nanoTime() + Duration.ofSeconds(30).toNanos());
      while (count(source, tables[0]) != count(sink, tables[tables.length - 1]) && System.nanoTime() < gate) {
        Thread.sleep(500);
      }
      last = sluice(reconcile);
      if (last.exit() == 0) {
        return;
      }
      Thread.sleep(2000);
    } while (System.nanoTime() < deadline);
    throw new AssertionError(what + ": " + last);
  }

  /** The rows of {@code table} at {@code jdbcUrl} (user and password in it), or -1 while it cannot be read. */
  private static long count(String jdbcUrl, String table) {
    try (Connection c = DriverManager.getConnection(jdbcUrl); Statement s = c.createStatement();
        var rs = s.executeQuery("SELECT count(*) FROM " + table)) {
      rs.next();
      return rs.getLong(1);
    } catch (java.sql.SQLException e) {
      return -1;
    }
  }

  private static JsonNode snapshotStatus(String connector) throws Exception {
    Run status = sluice(cluster("snapshot", "status", connector, "-o", "json", "--metrics-url", metricsUrl));
    assertEquals(0, status.exit(), status::toString);
    return status.json();
  }

  /**
   * Waits for one of {@code states} through {@code snapshot status --wait}, which polls in its one process until the
   * snapshot has completed or stopped (or is idle: its start not yet seen at work), instead of a process a poll.
   */
  private static JsonNode awaitSnapshotState(String connector, Set<String> states) throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
    JsonNode last = null;
    while (System.nanoTime() < deadline) {
      last = sluice(cluster("snapshot", "status", connector, "--wait", "--timeout", "2m", "-o", "json",
          "--metrics-url", metricsUrl)).json();
      if (states.contains(last.path("state").asText())) {
        return last;
      }
      Thread.sleep(1000);
    }
    throw new AssertionError("snapshot of " + connector + " never " + states + ": " + last);
  }

  /**
   * Runs {@code snapshot status} until {@code done} holds of it. Each run waits first, up to 30 s, for the exporter
   * (which the command reads) to show a row estimate of the connector's snapshot, read here: a command is a process of
   * its own, and the estimate comes from the exporter's slow readings, seconds apart.
   */
  private static JsonNode awaitSnapshot(String connector, java.util.function.Predicate<JsonNode> done, String what)
      throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
    JsonNode last = null;
    while (System.nanoTime() < deadline) {
      long gate = Math.min(deadline, System.nanoTime() + Duration.ofSeconds(30).toNanos());
      while (!estimated(connector) && System.nanoTime() < gate) {
        Thread.sleep(500);
      }
      last = snapshotStatus(connector);
      if (done.test(last)) {
        return last;
      }
      Thread.sleep(1000);
    }
    throw new AssertionError("snapshot of " + connector + " never " + what + ": " + last);
  }

  /** Whether the exporter shows a row estimate of {@code connector}'s snapshot. */
  private static boolean estimated(String connector) {
    String label = "connector=\"" + connector + "\"";
    try {
      return HTTP.send(HttpRequest.newBuilder(URI.create(exporterUrl + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString()).body().lines()
          .anyMatch(l -> l.startsWith("svc_debezium_snapshot_table_rows_estimate{") && l.contains(label));
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @Test
  @Order(20)
  void snapshotOfAPostgresTableUnderLoadPausedResumedAndFiltered() throws Exception {
    Pipeline p = new Pipeline("snap_" + ProcessHandle.current().pid());
    String src = p.name + "-source";
    String dst = p.name + "-sink";
    // 150 chunks: the pause must find the snapshot still running. The chunk's round trip (watermarks through the WAL),
    // not its rows, sets the pace: 9 to 37 chunks were read before the pause arrived on a busy machine (its command
    // took 5 to 17 s); 400 chunks of 100 rows took 84 s from the resume to the end.
    int rows = 30_000;
    p.insert(1, rows);
    connect.create(src, JSON.valueToTree(p.sourceConfig(p.name + "_slot", Map.of(
        "incremental.snapshot.chunk.size", "200", "signal.poll.interval.ms", "500"))));
    ObjectNode sinkConfig = JSON.valueToTree(p.sinkConfig());
    sinkConfig.put("connector.class", io.sluice.connect.defaults.ConnectorDefaults.SLUICE_JDBC_SINK);
    connect.create(dst, sinkConfig);
    p.awaitSinkMatchesSource();
    // Sluice gave the source its signal channel.
    assertEquals("source,kafka", connect.config(src).orElseThrow().path("signal.enabled.channels").asText());

    // No watermarks: refused, saying how to give it some; a blocking snapshot of part of a table: refused.
    Run refused = sluice(cluster("snapshot", "start", src, "public.orders"));
    assertEquals(3, refused.exit(), refused::toString);
    assertTrue(refused.err().contains("--read-only") && refused.err().contains("--create-signal-table"),
        refused::toString);
    Run blockingFiltered = sluice(cluster("snapshot", "start", src, "public.orders", "--type", "blocking",
        "--filter", "id < 10"));
    assertEquals(3, blockingFiltered.exit(), blockingFiltered::toString);

    // The sink drifted: rows lost there. The snapshot puts them back while the source keeps changing.
    p.execute(p.sinkDb, "DELETE FROM orders WHERE id BETWEEN 100 AND 120");
    String srcUrl = SharedPostgres.jdbcUrl(p.sourceDb) + "?user=postgres&password=postgres";
    String dstUrl = SharedPostgres.jdbcUrl(p.sinkDb) + "?user=postgres&password=postgres";
    SourceLoad load = new SourceLoad(() -> SharedPostgres.connect(p.sourceDb), "public.orders", rows + 1, rows);
    try (load) {
      Run start = sluice(cluster("snapshot", "start", src, "public.orders", "--create-signal-table", "-o", "json"));
      assertEquals(0, start.exit(), start::toString);
      assertEquals("execute-snapshot", start.json().path("signal").asText(), start::toString);
      assertTrue(start.json().path("changes").toString().contains("public.debezium_signal"), start::toString);
      Run pause = sluice(cluster("snapshot", "pause", src));
      assertEquals(0, pause.exit(), pause::toString);
      // The row estimate is read apart from the snapshot's state (the exporter's slow readings), so it may come a
      // scrape later.
      JsonNode paused = awaitSnapshot(src, s -> "completed".equals(s.path("state").asText())
          || "paused".equals(s.path("state").asText()) && s.path("tables").path(0).path("estimate").isNumber(),
          "paused with an estimate, or completed");
      assertEquals("paused", paused.path("state").asText(), "the pause came after the snapshot ended: " + paused);
      assertEquals("incremental", paused.path("requested").path("type").asText(), paused::toString);
      JsonNode table = paused.path("tables").path(0);
      assertEquals("public.orders", table.path("table").asText(), paused::toString);
      assertTrue(table.path("estimate").asLong() > rows / 2, paused::toString);
      double percent = paused.path("percent").asDouble(-1);
      assertTrue(percent >= 0 && percent < 100, paused::toString);
      Run text = sluice(cluster("snapshot", "status", src, "--metrics-url", metricsUrl));
      assertTrue(text.out().contains("snapshot paused") && text.out().contains("public.orders")
          && (text.out().contains("[#") || text.out().contains("[-")), text::toString);

      // The dashboard's pipeline page shows it.
      String ui = Arrays.stream(up.readyLine().split(" ")).filter(x -> x.startsWith("ui=")).findFirst()
          .orElseThrow().substring(3);
      try (Browser browser = Browser.open()) {
        var d = browser.driver;
        var wait = new WebDriverWait(d, Duration.ofSeconds(60));
        loginToDashboard(d, wait, ui);
        d.get(ui + "/pipeline?name=" + src);
        // The page reads the metrics server, which scrapes the estimate apart from the state (the exporter's slow
        // readings): the table fills in at a later refresh of the page.
        By snapshotLine = By.cssSelector("#snapshot li[data-connector='" + src + "']");
        wait.until(ExpectedConditions.textMatches(snapshotLine, java.util.regex.Pattern.compile("of about")));
        WebElement line = d.findElement(snapshotLine);
        assertEquals("paused", line.getAttribute("data-state"), line.getText());
        assertTrue(line.getText().contains("public.orders") && line.getText().contains("of about"), line.getText());
        assertEquals(1, line.findElements(By.tagName("progress")).size());
        browser.screenshot("snapshot-paused-on-pipeline-page");
      }

      assertEquals(0, sluice(cluster("snapshot", "resume", src)).exit());
      JsonNode done = awaitSnapshotState(src, Set.of("completed", "stopped"));
      assertEquals("completed", done.path("state").asText(), done::toString);
      assertEquals(100.0, done.path("percent").asDouble(), done::toString);
    }
    p.awaitSinkMatchesSource();
    Run equal = sluice("reconcile", "--source", srcUrl, "--sink", dstUrl, "--table", "public.orders");
    assertEquals(0, equal.exit(), equal::toString);
    // (No key goes back: checked once the filtered snapshot has run too, over the whole topic from its start.)

    // Part of the table, under load again: rows outside the filter stay in the sink (no removal window).
    // New rows after the first load's: a load that ran long must not meet its own ids again.
    try (SourceLoad again = new SourceLoad(() -> SharedPostgres.connect(p.sourceDb), "public.orders", load.nextId(),
        rows)) {
      Run filtered = sluice(cluster("snapshot", "start", src, "public.orders", "--filter", "id <= 2000"));
      assertEquals(0, filtered.exit(), filtered::toString);
      awaitSnapshotState(src, Set.of("completed", "stopped"));
    }
    p.awaitSinkMatchesSource();
    assertEquals(0, sluice("reconcile", "--source", srcUrl, "--sink", dstUrl, "--table", "public.orders").exit());
    assertTrue(p.rows(p.sinkDb).keySet().stream().anyMatch(id -> id > 2000), "rows outside the filter are kept");
    assertNoKeyGoesBack(p.topic());

    // Stop: a running incremental snapshot ends as stopped.
    Run again = sluice(cluster("snapshot", "start", src, "public.orders"));
    assertEquals(0, again.exit(), again::toString);
    Run stop = sluice(cluster("snapshot", "stop", src));
    assertEquals(0, stop.exit(), stop::toString);
    JsonNode stopped = awaitSnapshotState(src, Set.of("completed", "stopped"));
    assertTrue(Set.of("completed", "stopped").contains(stopped.path("state").asText()), stopped::toString);
    p.awaitSinkMatchesSource();
    assertEquals(0, sluice("reconcile", "--source", srcUrl, "--sink", dstUrl, "--table", "public.orders").exit());
    connect.delete(dst);
    connect.delete(src);
  }

  @Test
  @Order(21)
  void snapshotOfAMariaDbTableReadOnlyAndBlocking() throws Exception {
    Path mariaDir = Files.createDirectories(dir.resolve("snapshot-mariadb"));
    try (io.sluice.connect.testing.BinlogMariaDb maria = io.sluice.connect.testing.BinlogMariaDb.start(mariaDir,
        "sluice snapshot of a MariaDB source")) {
      int rows = 5_000;
      StringBuilder insert = new StringBuilder("INSERT INTO shop.orders VALUES ");
      for (int i = 1; i <= rows; i++) {
        insert.append(i == 1 ? "" : ",").append("(").append(i).append(",'item-").append(i).append("',").append(i)
            .append(")");
      }
      maria.execute("CREATE DATABASE shop", "CREATE TABLE shop.orders (id int PRIMARY KEY, item varchar(64) NOT NULL,"
          + " qty int NOT NULL)", insert.toString());
      String name = "snapmaria_" + ProcessHandle.current().pid();
      String sinkDb = name + "_sink";
      SharedPostgres.createDatabase(sinkDb);
      String src = name + "-source";
      String dst = name + "-sink";
      Map<String, String> source = new java.util.LinkedHashMap<>(maria.sourceConfig(name, "5801"));
      source.put("incremental.snapshot.chunk.size", "250");
      source.put("signal.poll.interval.ms", "500");
      connect.create(src, JSON.valueToTree(source));
      ObjectNode sinkConfig = JSON.createObjectNode();
      sinkConfig.put("connector.class", io.sluice.connect.defaults.ConnectorDefaults.SLUICE_JDBC_SINK);
      sinkConfig.put("connection.url", SharedPostgres.jdbcUrl(sinkDb));
      sinkConfig.put("connection.username", Pipeline.CDC_USER);
      sinkConfig.put("connection.password", Pipeline.CDC_PASSWORD);
      sinkConfig.put("insert.mode", "upsert");
      sinkConfig.put("delete.enabled", "true");
      sinkConfig.put("primary.key.mode", "record_key");
      sinkConfig.put("schema.evolution", "basic");
      sinkConfig.put("topics", name + ".shop.orders");
      sinkConfig.put("collection.name.format", "orders");
      sinkConfig.put("tasks.max", "1");
      connect.create(dst, sinkConfig);
      String srcUrl = "jdbc:mariadb://127.0.0.1:" + maria.port() + "/shop?user=root";
      String dstUrl = SharedPostgres.jdbcUrl(sinkDb) + "?user=postgres&password=postgres";
      String[] reconcile = {"reconcile", "--source", srcUrl, "--sink", dstUrl, "--table", "shop.orders:public.orders"};
      awaitEqual(reconcile, "the initial snapshot");

      try (SourceLoad load = new SourceLoad(maria::connect, "shop.orders", rows + 1, rows)) {
        // Read-only watermarks are refused for MariaDB (a chunk could carry a row older than a streamed change):
        // nothing is set on the connector, and the signal table is the way.
        Run readOnly = sluice(cluster("snapshot", "start", src, "shop.orders", "--read-only"));
        assertEquals(3, readOnly.exit(), readOnly::toString);
        assertTrue(readOnly.err().contains("gtid_binlog_pos") && readOnly.err().contains("--create-signal-table"),
            readOnly::toString);
        assertTrue(connect.config(src).orElseThrow().path("read.only").isMissingNode(), "read.only was set");
        Run start = sluice(cluster("snapshot", "start", src, "shop.orders", "--create-signal-table"));
        assertEquals(0, start.exit(), start::toString);
        assertTrue(start.out().contains("signal.data.collection=shop.debezium_signal"), start::toString);
        JsonNode done = awaitSnapshotState(src, Set.of("completed", "stopped"));
        assertEquals("completed", done.path("state").asText(), done::toString);
        // The incremental snapshot's reads never go behind a streamed change (its watermarks); checked here, before
        // the blocking one, which may: Debezium pauses streaming, reads each row as it is now, then streams what the
        // load changed meanwhile, so under writes a row's read can come before older changes of it (seen: qty 4605
        // read, then the streamed update to 4604). The sink ends equal all the same (below).
        assertNoKeyGoesBack(name + ".shop.orders");
        // Blocking: streaming waits while the table is read again.
        Run blocking = sluice(cluster("snapshot", "start", src, "shop.orders", "--type", "blocking"));
        assertEquals(0, blocking.exit(), blocking::toString);
        awaitSnapshotState(src, Set.of("completed", "stopped"));
      }
      awaitEqual(reconcile, "the sink equal to MariaDB after the snapshots");
      connect.delete(dst);
      connect.delete(src);
    }
  }

  private static List<String[]> quickstart() throws IOException {
    String readme = Files.readString(root.resolve("README.md"));
    int at = readme.indexOf("```", readme.indexOf("## Quickstart"));
    String block = readme.substring(readme.indexOf('\n', at) + 1, readme.indexOf("```", at + 3));
    List<String[]> commands = new ArrayList<>();
    for (String line : block.split("\n")) {
      String command = line.replaceAll("#.*", "").strip();
      if (!command.isEmpty()) {
        commands.add(command.split("\\s+"));
      }
    }
    return commands;
  }

  /**
   * The README's quickstart, command by command as written there (with this class's addresses added), on the class's
   * sluice up: the demo's shop flows into its copy, --check reconciles, stop removes it.
   */
  @Test
  @Order(12)
  void theQuickstartAsTheReadmeWritesIt() throws Exception {
    List<String[]> commands = quickstart();
    assertEquals(List.of("./sluice demo", "./sluice connectors list", "./sluice demo --check", "./sluice demo stop"),
        commands.stream().map(c -> String.join(" ", c)).toList(), "the test runs what the README says");
    String[] c = {"--data-dir", data.toString(), "--connect-url", connectUrl, "--alerts-url", alertsUrl,
        "--registry", registryUrl, "--metrics-url", metricsUrl};
    Run none = sluice(with(c, "demo", "--check"));
    assertEquals(3, none.exit(), none::toString);
    assertTrue(none.err().contains("no demo is running"), none::toString);

    int sourcePort = freePort();
    int sinkPort = freePort();
    List<String> command = new ArrayList<>(List.of(root.resolve("sluice").toString()));
    command.addAll(List.of(commands.get(0)).subList(1, commands.get(0).length));
    command.addAll(List.of("--rate", "100", "--source-port", "" + sourcePort, "--sink-port", "" + sinkPort));
    command.addAll(List.of(c));
    Process demo = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
        .redirectOutput(dir.resolve("demo.out").toFile()).start();
    PidFiles.record(demo);
    try {
      // Its last line: the block is whole once that is written.
      Eventually.await("the demo says where to look", WAIT, () -> read(dir.resolve("demo.out")),
          out -> out.contains("sluice demo: a shop under load") && out.contains("Ctrl-C, or ./sluice demo stop"));
      String shown = read(dir.resolve("demo.out"));
      assertTrue(shown.contains("jdbc:postgresql://127.0.0.1:" + sourcePort + "/shop"), shown);
      assertTrue(shown.contains(metricsUrl + "/graph"), shown);
      // A connector just created has no status until its worker writes one: Connect answers 404 meanwhile.
      Eventually.await("both demo connectors running", WAIT, () -> List.of(stateOrNone("demo-shop-source"),
          stateOrNone("demo-shop-sink")), states -> states.equals(List.of("RUNNING", "RUNNING")));
      Run listed = sluice(with(c, readmeArgs(commands.get(1))));
      assertEquals(0, listed.exit(), listed::toString);
      assertTrue(listed.out().lines().anyMatch(l -> l.startsWith("demo-shop-source") && l.contains("RUNNING")),
          listed::toString);

      Run check = sluice(with(c, with(new String[] {"--timeout", "150"}, readmeArgs(commands.get(2)))));
      assertEquals(0, check.exit(), check::toString);
      assertTrue(check.out().contains("public.orders (PostgreSQL) -> public.orders (PostgreSQL): EQUAL"), check::toString);
      assertTrue(check.out().contains("public.order_lines (PostgreSQL) -> public.order_lines (PostgreSQL): EQUAL"),
          check::toString);
      assertTrue(check.out().contains("demo check: source and sink are equal"), check::toString);

      Run again = sluice(with(c, "demo"));
      assertEquals(5, again.exit(), again::toString);
      assertTrue(again.err().contains("already running"), again::toString);

      Run stop = sluice(with(c, readmeArgs(commands.get(3))));
      assertEquals(0, stop.exit(), stop::toString);
      assertTrue(demo.waitFor(60, TimeUnit.SECONDS), "the demo process ends on stop");
      assertTrue(read(dir.resolve("demo.out")).contains("demo stopped; its databases stay"), read(dir.resolve("demo.out")));
      assertTrue(connect.config("demo-shop-source").isEmpty() && connect.config("demo-shop-sink").isEmpty(),
          "stop removes the demo's connectors");
      assertTrue(Files.isDirectory(data.resolve("demo/source-pg")), "the shop stays for the next run");
    } finally {
      demo.destroy();
      demo.waitFor(60, TimeUnit.SECONDS);
    }
  }

  /** The README's "your own PostgreSQL" file, with this test's database put in, is one Connect accepts. */
  @Test
  @Order(13)
  void theQuickstartsOwnSourceFileValidates() throws Exception {
    String readme = Files.readString(root.resolve("README.md"));
    int at = readme.indexOf("```yaml", readme.indexOf("## Quickstart"));
    String yaml = readme.substring(readme.indexOf('\n', at) + 1, readme.indexOf("```", at + 7));
    assertTrue(yaml.contains("name: orders-source"), yaml);
    String ours = yaml.replace("database.port: 5432", "database.port: " + SharedPostgres.port())
        .replace("database.user: cdc", "database.user: " + Pipeline.CDC_USER)
        .replace("database.password: secret", "database.password: '" + Pipeline.CDC_PASSWORD + "'")
        .replace("database.dbname: shop", "database.dbname: " + pipeline.sourceDb);
    Path file = Files.writeString(dir.resolve("orders-source.yaml"), ours);
    Run dry = sluice("connectors", "apply", "-f", file.toString(), "--dry-run", "--connect-url", connectUrl);
    assertEquals(0, dry.exit(), dry::toString);
    assertTrue(dry.out().contains("connector orders-source would be created:"), dry::toString);
    assertTrue(dry.out().contains("  + database.password: ********"), dry::toString);
  }

  /** A README command line without its leading {@code ./sluice}. */
  private static String[] readmeArgs(String[] line) {
    assertEquals("./sluice", line[0]);
    return java.util.Arrays.copyOfRange(line, 1, line.length);
  }

  private static String[] with(String[] flags, String... args) {
    return Stream.concat(Stream.of(args), Stream.of(flags)).toArray(String[]::new);
  }

  /**
   * Reconcile from the pipeline's page: the connections come from the connectors' configs (the passwords from the
   * secret topic the worker moved them to), the report is what {@code ./sluice reconcile} says of the same tables,
   * a drift made in the sink is found with its keys, each run is audited; a read user has no button and gets 403.
   */
  @Test
  @Order(50)
  void theConsoleReconcilesAPipelineFromItsPage() throws Exception {
    pipeline.awaitSinkMatchesSource();
    assertTrue(connect.config(source).orElseThrow().path("database.password").asText().startsWith("${sluice:"),
        "the worker keeps the source's password in its secret topic; the console must resolve it from there");
    assertTrue(connect.config(sink).orElseThrow().path("connection.password").asText().startsWith("${sluice:"));
    ensureConsoleUser("viewer", "viewer-console-pw");
    String ui = uiUrl();
    String src = SharedPostgres.jdbcUrl(pipeline.sourceDb) + "?user=postgres&password=postgres";
    String dst = SharedPostgres.jdbcUrl(pipeline.sinkDb) + "?user=postgres&password=postgres";
    String[] cli = {"reconcile", "--source", src, "--sink", dst, "--table", "public.orders:orders", "-o", "json"};
    // The CLI by the pipeline's name, as the page does it: connections from the connectors, passwords from the secrets.
    String[] byPipeline = cluster("reconcile", "--pipeline", source, "-o", "json");
    try (Browser browser = Browser.open()) {
      var d = browser.driver;
      var wait = new WebDriverWait(d, Duration.ofSeconds(90));
      loginToDashboard(d, wait, ui);
      ReconcilePage page = new ReconcilePage(d, ui).open(source);
      assertTrue(page.hasButton(), "admin (and operate) may reconcile");
      page.run(Duration.ofSeconds(120));
      assertEquals("equal", page.status(), () -> d.findElement(By.id("reconcile-report")).getText());
      Run equal = sluice(byPipeline);
      assertEquals(0, equal.exit(), equal::toString);
      assertEquals(0, sluice(cli).exit(), "the same tables named by hand");
      JsonNode cliEqual = equal.json().path("tables").get(0);
      Map<String, String> row = page.row("public.orders");
      assertEquals("orders", row.get("Sink table"), row::toString);
      assertEquals(String.format("%,d", cliEqual.path("sourceRows").asLong()), row.get("Source rows"), row::toString);
      assertEquals(String.format("%,d", cliEqual.path("sinkRows").asLong()), row.get("Sink rows"), row::toString);
      browser.screenshot("console-reconcile-1-equal");

      // A drift in the sink: one row changed, one gone. The page names both keys, with the CLI's counts.
      try (Connection c = SharedPostgres.connect(pipeline.sinkDb); Statement s = c.createStatement()) {
        s.execute("UPDATE orders SET qty = qty + 1000 WHERE id = 7");
        s.execute("DELETE FROM orders WHERE id = 5");
      }
      try {
        List<String> percentages = page.run(Duration.ofSeconds(120));
        assertEquals("different", page.status());
        Run different = sluice(byPipeline);
        assertEquals(1, different.exit(), different::toString);
        JsonNode cliDifferent = different.json().path("tables").get(0);
        Run byHand = sluice(cli);
        assertEquals(1, byHand.exit(), byHand::toString);
        assertEquals(cliDifferent.path("missing"), byHand.json().path("tables").get(0).path("missing"));
        assertEquals(cliDifferent.path("changed"), byHand.json().path("tables").get(0).path("changed"));
        row = page.row("public.orders");
        assertEquals(String.valueOf(cliDifferent.path("missing").asLong()), row.get("Missing"), row::toString);
        assertEquals(String.valueOf(cliDifferent.path("changed").asLong()), row.get("Changed"), row::toString);
        assertEquals(String.valueOf(cliDifferent.path("extra").asLong()), row.get("Extra"), row::toString);
        assertEquals("1", row.get("Missing"));
        assertEquals("1", row.get("Changed"));
        assertTrue(row.get("Sample keys").contains("missing id=5"), row::toString);
        assertTrue(row.get("Sample keys").contains("changed id=7: qty 7 → 1007"), row::toString);
        browser.screenshot("console-reconcile-2-different");
        JsonNode api = page.state(source);
        assertFalse(api.path("running").asBoolean());
        assertEquals("different", api.path("last").path("status").asText(), api::toString);
        assertEquals(cliDifferent.path("sourceChecksum"), api.path("last").path("tables").get(0)
            .path("sourceChecksum"), "the same engine, the same checksums");
        assertEquals(cliDifferent.path("sinkChecksum"), api.path("last").path("tables").get(0).path("sinkChecksum"));
        System.out.println("reconcile percentages seen on the page: " + percentages);
      } finally {
        try (Connection c = SharedPostgres.connect(pipeline.sinkDb); Statement s = c.createStatement()) {
          s.execute("UPDATE orders SET qty = qty - 1000 WHERE id = 7");
          s.execute("INSERT INTO orders (id, item, qty) SELECT id, item, qty FROM (VALUES (5, 'item-5', 5)) v(id, "
              + "item, qty) WHERE NOT EXISTS (SELECT 1 FROM orders WHERE id = 5)");
        }
      }
      String audit = Files.readString(data.resolve("audit.log"));
      assertTrue(audit.contains(" console reconcile " + source + " user=admin address=127.0.0.1 status=202"), audit);
      assertTrue(audit.contains(" console reconcile " + source + " finished user=admin address=127.0.0.1"
          + " status=different"), audit);
      d.findElement(By.id("logout")).click();
      wait.until(ExpectedConditions.urlContains("/login"));

      // read: the section and its last report, no button; a post anyway is refused and audited.
      consoleLogin(d, ui, "viewer", "viewer-console-pw");
      page.open(source);
      wait.until(ExpectedConditions.presenceOfElementLocated(By.id("reconcile-status")));
      assertFalse(page.hasButton(), "no reconcile button for a read user");
      browser.screenshot("console-reconcile-3-read-only");
      HttpResponse<String> refused = page.post(source);
      assertEquals(403, refused.statusCode(), refused::body);
      assertTrue(refused.body().contains("needs the role operate"), refused.body());
      assertTrue(Files.readString(data.resolve("audit.log")).contains(" console reconcile " + source
          + " user=viewer address=127.0.0.1 status=403"));
    }
  }
}
