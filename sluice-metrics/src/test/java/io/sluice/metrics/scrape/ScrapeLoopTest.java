package io.sluice.metrics.scrape;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.http.HttpResponse;
import io.sluice.http.HttpServer;
import io.sluice.metrics.config.Config;
import io.sluice.metrics.model.Labels;
import io.sluice.metrics.model.Matcher;
import io.sluice.metrics.model.StaleNaN;
import io.sluice.metrics.storage.Querier;
import io.sluice.metrics.storage.SeriesData;
import io.sluice.metrics.tsdb.Db;
import io.sluice.testing.TestClock;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class ScrapeLoopTest {

  private static Target target() {
    Config c = Config.parse("""
        scrape_configs:
          - job_name: app
            scrape_interval: 15s
            static_configs:
              - targets: ['app:1234']
                labels: {env: test}
        """);
    return ScrapeManager.targetsOf(c).get(0);
  }

  private static SeriesData one(Db db, String selector) {
    try (Querier q = db.querier(0, Long.MAX_VALUE)) {
      List<SeriesData> s = q.select(io.sluice.metrics.promql.parser.Parser.parseSelector(selector));
      assertEquals(1, s.size(), selector + ": " + s);
      return s.get(0);
    }
  }

  @Test
  void recordsSamplesReportSeriesAndStaleness() {
    Db db = Db.inMemory();
    TestClock clock = new TestClock(Instant.ofEpochMilli(1_000_000));
    AtomicReference<String> body = new AtomicReference<>("a{x=\"1\"} 1\nb 2\n");
    ScrapeLoop loop = new ScrapeLoop(target(), db,
        (url, timeout) -> {
          if (body.get() == null) {
            throw new java.io.IOException("connection refused");
          }
          return new Scraper.Response(body.get().getBytes(StandardCharsets.UTF_8), "text/plain; version=0.0.4");
        }, clock, false, true);
    assertEquals("http://app:1234/metrics", loop.target().url());

    loop.scrapeOnce();
    SeriesData a = one(db, "a");
    assertEquals(Labels.of("__name__", "a", "x", "1", "job", "app", "instance", "app:1234", "env", "test"),
        a.labels());
    assertEquals(1, one(db, "up").values()[0]);
    assertEquals(2, one(db, "scrape_samples_scraped").values()[0]);
    assertEquals(Target.Health.UP, loop.target().health());

    // b disappears: it gets a stale marker at the next scrape.
    clock.advance(Duration.ofMillis(15_001));
    body.set("a{x=\"1\"} 3\n");
    loop.scrapeOnce();
    SeriesData b = one(db, "b");
    assertEquals(2, b.size());
    assertTrue(StaleNaN.is(b.values()[1]));
    // Within the 2 ms tolerance the timestamp snaps to the schedule.
    assertEquals(1_015_000, b.timestamps()[1]);

    // The target goes down: up is 0 and every series it had is marked stale.
    clock.advance(Duration.ofMillis(15_000));
    body.set(null);
    loop.scrapeOnce();
    SeriesData up = one(db, "up");
    assertEquals(0, up.values()[2]);
    assertTrue(StaleNaN.is(one(db, "a").values()[2]));
    assertEquals(Target.Health.DOWN, loop.target().health());
    assertTrue(loop.target().lastError().contains("connection refused"), loop.target().lastError());
  }

  @Test
  void malformedExpositionFailsTheWholeScrape() {
    Db db = Db.inMemory();
    ScrapeLoop loop = new ScrapeLoop(target(), db,
        (url, timeout) -> new Scraper.Response("ok 1\nbroken{\n".getBytes(StandardCharsets.UTF_8), "text/plain"),
        new TestClock(Instant.ofEpochMilli(1000)), false, true);
    loop.scrapeOnce();
    assertEquals(0, one(db, "up").values()[0]);
    try (Querier q = db.querier(0, Long.MAX_VALUE)) {
      assertEquals(0, q.select(List.of(Matcher.eq("__name__", "ok"))).size());
    }
  }

  @Test
  void conflictingLabelsAreKeptAsExported() {
    ScrapeLoop loop = new ScrapeLoop(target(), Db.inMemory(), (u, t) -> null, new TestClock(Instant.EPOCH), false, true);
    Labels l = loop.withTargetLabels(Labels.of("__name__", "m", "job", "inner"));
    assertEquals("app", l.get("job"));
    assertEquals("inner", l.get("exported_job"));
    ScrapeLoop honoring = new ScrapeLoop(target(), Db.inMemory(), (u, t) -> null, new TestClock(Instant.EPOCH), true, true);
    assertEquals("inner", honoring.withTargetLabels(Labels.of("__name__", "m", "job", "inner")).get("job"));
  }

  @Test
  void scrapesOverHttpWithOpenMetrics() {
    try (HttpServer exporter = HttpServer.builder("exporter").port(0)
        .get("/metrics", r -> HttpResponse.text(200, "application/openmetrics-text; version=1.0.0; charset=utf-8",
            "# TYPE c counter\nc_total 5\n# EOF\n"))
        .start()) {
      Db db = Db.inMemory();
      Config c = Config.parse("""
          scrape_configs:
            - job_name: exp
              scrape_interval: 1s
              static_configs:
                - targets: ['127.0.0.1:%d']
          """.formatted(exporter.port()));
      Target t = ScrapeManager.targetsOf(c).get(0);
      ScrapeLoop loop = new ScrapeLoop(t, db, new HttpScraper(), Clock.systemUTC(), false, true);
      loop.scrapeOnce();
      assertEquals(Target.Health.UP, t.health(), t.lastError());
      assertEquals(5, one(db, "c_total").values()[0]);
    }
  }

  /** A target behind a web configuration is scraped with the job's basic_auth, as Prometheus does; a wrong one is down. */
  @Test
  void aTargetBehindBasicAuthIsScrapedWithTheJobsCredentials() throws Exception {
    java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("scrape-auth");
    java.nio.file.Path web = java.nio.file.Files.writeString(dir.resolve("web.yml"), "basic_auth_users:\n  scraper: "
        + io.sluice.http.web.BasicAuth.hash("scrape-pw") + "\nsluice_roles:\n  scraper: read\n");
    java.nio.file.Files.writeString(dir.resolve("password"), "scrape-pw\n");
    try (HttpServer exporter = HttpServer.builder("exporter").port(0)
        .webConfig(io.sluice.http.web.WebConfig.load(web))
        .get("/metrics", r -> HttpResponse.text(200, "text/plain", "g 7\n")).start()) {
      Db db = Db.inMemory();
      for (String password : new String[] {"password_file: password", "password: wrong"}) {
        Config c = Config.parse("""
            scrape_configs:
              - job_name: secured
                basic_auth: {username: scraper, %s}
                static_configs:
                  - targets: ['127.0.0.1:%d']
            """.formatted(password, exporter.port()), dir);
        Target t = ScrapeManager.targetsOf(c).get(0);
        new ScrapeLoop(t, db, new HttpScraper(), Clock.systemUTC(), false, true).scrapeOnce();
        if (password.startsWith("password_file")) {
          assertEquals(Target.Health.UP, t.health(), t.lastError());
          assertEquals(7, one(db, "g").values()[0]);
        } else {
          assertEquals(Target.Health.DOWN, t.health());
          assertTrue(t.lastError().endsWith("server returned HTTP status 401 Unauthorized"), t.lastError());
        }
      }
    }
  }

  @Test
  void managerRunsConfiguredTargetsAndStopsThemWithStaleMarkers() throws Exception {
    try (HttpServer exporter = HttpServer.builder("exporter").port(0)
        .get("/metrics", r -> HttpResponse.text(200, "text/plain", "g 1\n")).start()) {
      Db db = Db.inMemory();
      ScrapeManager m = new ScrapeManager(db, Clock.systemUTC());
      m.apply(Config.parse("""
          scrape_configs:
            - job_name: exp
              scrape_interval: 100ms
              static_configs:
                - targets: ['127.0.0.1:%d']
          """.formatted(exporter.port())));
      for (int i = 0; i < 200 && m.activeTargets().get(0).health() == Target.Health.UNKNOWN; i++) {
        Thread.sleep(20);
      }
      assertEquals(Target.Health.UP, m.activeTargets().get(0).health());
      m.close();
      SeriesData g = one(db, "g");
      assertTrue(StaleNaN.is(g.values()[g.size() - 1]), "stale marker after stop");
    }
  }

  @Test
  void configDefaultsAndValidation() {
    Config d = Config.defaults(9090);
    assertEquals(Duration.ofSeconds(15), d.global().scrapeInterval());
    assertEquals(List.of("http://127.0.0.1:9093"), d.alertmanagers());
    assertEquals(List.of("127.0.0.1:5556"), d.scrapeConfigs().get(0).staticConfigs().get(0).targets());
    Config c = Config.parse("""
        global: {scrape_interval: 30s, scrape_timeout: 20s}
        rule_files: [rules/*.yml]
        scrape_configs:
          - job_name: a
            scrape_interval: 10s
            metrics_path: /m
            static_configs: [{targets: ['h:1']}]
        """);
    // A job's timeout defaults to the global one, capped at the job's interval.
    assertEquals(Duration.ofSeconds(10), c.scrapeConfigs().get(0).scrapeTimeout());
    assertEquals(List.of("rules/*.yml"), c.ruleFiles());
    assertEquals("/m", c.scrapeConfigs().get(0).metricsPath());
    org.junit.jupiter.api.Assertions.assertThrows(Config.ConfigException.class,
        () -> Config.parse("scrape_configs: [{job_name: a}, {job_name: a}]"));
    org.junit.jupiter.api.Assertions.assertThrows(Config.ConfigException.class,
        () -> Config.parse("global: {scrape_interval: fast}"));
    org.junit.jupiter.api.Assertions.assertThrows(Config.ConfigException.class,
        () -> Config.parse("scrape_configs: [{job_name: a, scrape_interval: 5s, scrape_timeout: 10s}]"));
  }
}
