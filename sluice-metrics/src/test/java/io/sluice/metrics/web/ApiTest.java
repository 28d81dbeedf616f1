package io.sluice.metrics.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.http.Json;
import io.sluice.metrics.MetricsServer;
import io.sluice.metrics.model.Labels;
import io.sluice.metrics.storage.Appender;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The API over real HTTP on loopback, against a server with a fixed clock and known data. */
class ApiTest {
  static MetricsServer server;
  static final HttpClient client = HttpClient.newHttpClient();
  static final long NOW = 1_700_000_000_000L;

  @BeforeAll
  static void start() {
    server = MetricsServer.builder().port(0).configYaml("scrape_configs: []\n")
        .clock(Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC)).start();
    Appender app = server.storage().appender();
    for (int i = 0; i <= 60; i++) {
      long t = NOW - 15 * 60_000 + i * 15_000L;
      app.append(Labels.of("__name__", "http_requests_total", "job", "api", "code", "200"), t, i * 10);
      app.append(Labels.of("__name__", "http_requests_total", "job", "api", "code", "500"), t, i);
      app.append(Labels.of("__name__", "up", "job", "api"), t, 1);
    }
    app.commit();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  record Reply(int status, String contentType, String body) {
    JsonNode json() {
      return Json.read(body.getBytes(StandardCharsets.UTF_8));
    }
  }

  static Reply get(String pathAndQuery) throws Exception {
    HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(server.url() + pathAndQuery)).build(),
        HttpResponse.BodyHandlers.ofString());
    return new Reply(r.statusCode(), r.headers().firstValue("content-type").orElse(""), r.body());
  }

  static Reply post(String path, String form) throws Exception {
    HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(server.url() + path))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
    return new Reply(r.statusCode(), r.headers().firstValue("content-type").orElse(""), r.body());
  }

  static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  @Test
  void instantQueryVector() throws Exception {
    Reply r = get("/api/v1/query?query=" + enc("sum by (code) (rate(http_requests_total[5m]))") + "&time=1700000000");
    assertEquals(200, r.status());
    assertTrue(r.contentType().startsWith("application/json"));
    JsonNode j = r.json();
    assertEquals("success", j.get("status").asText());
    assertEquals("vector", j.at("/data/resultType").asText());
    assertEquals(2, j.at("/data/result").size());
    for (JsonNode s : j.at("/data/result")) {
      assertEquals(1700000000, s.at("/value/0").asLong());
      double v = Double.parseDouble(s.at("/value/1").asText());
      assertEquals(s.at("/metric/code").asText().equals("200") ? 10 / 15.0 : 1 / 15.0, v, 1e-12);
    }
  }

  @Test
  void instantQueryDefaultsToNowAndFormatsLikePrometheus() throws Exception {
    Reply r = get("/api/v1/query?query=" + enc("up"));
    assertEquals("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":"
        + "{\"__name__\":\"up\",\"job\":\"api\"},\"value\":[1700000000,\"1\"]}]}}", r.body());
    Reply s = get("/api/v1/query?query=" + enc("1/3") + "&time=1700000000.5");
    assertEquals("{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\",\"result\":"
        + "[1700000000.500,\"0.3333333333333333\"]}}", s.body());
    Reply str = get("/api/v1/query?query=" + enc("\"hi\"") + "&time=1");
    assertEquals("{\"status\":\"success\",\"data\":{\"resultType\":\"string\",\"result\":[1,\"hi\"]}}", str.body());
  }

  @Test
  void instantQueryMatrixAndPost() throws Exception {
    Reply r = post("/api/v1/query", "query=" + enc("up[1m]") + "&time=2023-11-14T22:13:20Z");
    JsonNode j = r.json();
    assertEquals("matrix", j.at("/data/resultType").asText());
    assertEquals(5, j.at("/data/result/0/values").size());
  }

  @Test
  void rangeQuery() throws Exception {
    long start = NOW / 1000 - 600;
    Reply r = get("/api/v1/query_range?query=" + enc("http_requests_total{code=\"500\"}") + "&start=" + start
        + "&end=" + (NOW / 1000) + "&step=60");
    assertEquals(200, r.status(), r.body());
    JsonNode j = r.json();
    assertEquals("matrix", j.at("/data/resultType").asText());
    JsonNode values = j.at("/data/result/0/values");
    assertEquals(11, values.size());
    assertEquals(start, values.get(0).get(0).asLong());
    assertEquals("20", values.get(0).get(1).asText());
    assertEquals("60", values.get(10).get(1).asText());
  }

  @Test
  void errorsHavePrometheusShape() throws Exception {
    Reply bad = get("/api/v1/query?query=" + enc("sum(") + "&time=1");
    assertEquals(400, bad.status());
    JsonNode j = bad.json();
    assertEquals("error", j.get("status").asText());
    assertEquals("bad_data", j.get("errorType").asText());
    assertTrue(j.get("error").asText().startsWith("invalid parameter \"query\": 1:5: parse error:"), bad.body());

    Reply exec = get("/api/v1/query?query=" + enc("http_requests_total / on(job) http_requests_total") + "&time="
        + NOW / 1000);
    assertEquals(422, exec.status());
    assertEquals("execution", exec.json().get("errorType").asText());

    Reply step = get("/api/v1/query_range?query=up&start=10&end=20&step=0");
    assertEquals(400, step.status());
    assertEquals("invalid parameter \"step\": zero or negative query resolution step widths are not accepted. "
        + "Try a positive integer", step.json().get("error").asText());

    Reply order = get("/api/v1/query_range?query=up&start=20&end=10&step=1");
    assertEquals("invalid parameter \"end\": end timestamp must not be before start time",
        order.json().get("error").asText());

    Reply points = get("/api/v1/query_range?query=up&start=0&end=100000&step=1");
    assertEquals(400, points.status());
    assertTrue(points.json().get("error").asText().startsWith("exceeded maximum resolution of 11,000 points"));

    Reply time = get("/api/v1/query?query=up&time=yesterday");
    assertEquals("invalid parameter \"time\": cannot parse \"yesterday\" to a valid timestamp",
        time.json().get("error").asText());

    Reply range = get("/api/v1/query_range?query=" + enc("up[5m]") + "&start=1&end=2&step=1");
    assertEquals(400, range.status());
    assertTrue(range.json().get("error").asText().contains("invalid expression type \"range vector\""));

    Reply notFound = get("/api/v1/nope");
    assertEquals(404, notFound.status());
  }

  @Test
  void queryLimitsProtectTheServer() throws Exception {
    Reply timeout = get("/api/v1/query?query=" + enc("sum_over_time(up[10m:1ms])") + "&time=" + NOW / 1000
        + "&timeout=1ms");
    assertEquals(503, timeout.status(), timeout.body());
    assertEquals("timeout", timeout.json().get("errorType").asText());
  }

  @Test
  void seriesLabelsAndValues() throws Exception {
    Reply s = get("/api/v1/series?match[]=" + enc("http_requests_total"));
    assertEquals("{\"status\":\"success\",\"data\":[{\"__name__\":\"http_requests_total\",\"code\":\"200\","
        + "\"job\":\"api\"},{\"__name__\":\"http_requests_total\",\"code\":\"500\",\"job\":\"api\"}]}", s.body());
    Reply none = get("/api/v1/series");
    assertEquals(400, none.status());
    assertEquals("no match[] parameter provided", none.json().get("error").asText());

    assertEquals("{\"status\":\"success\",\"data\":[\"__name__\",\"code\",\"job\"]}", get("/api/v1/labels").body());
    assertEquals("{\"status\":\"success\",\"data\":[\"__name__\",\"job\"]}",
        get("/api/v1/labels?match[]=up").body());
    assertEquals("{\"status\":\"success\",\"data\":[\"http_requests_total\",\"up\"]}",
        get("/api/v1/label/__name__/values").body());
    assertEquals("{\"status\":\"success\",\"data\":[\"200\",\"500\"]}",
        get("/api/v1/label/code/values?match[]=" + enc("{job=\"api\"}")).body());
    assertEquals(400, get("/api/v1/label/" + enc("bad-name") + "/values").status());
  }

  @Test
  void buildInfoHealthAndReadiness() throws Exception {
    JsonNode b = get("/api/v1/status/buildinfo").json();
    assertEquals("success", b.get("status").asText());
    assertTrue(b.at("/data/version").asText().startsWith("2."));
    Reply healthy = get("/-/healthy");
    assertEquals(200, healthy.status());
    assertEquals("Prometheus Server is Healthy.\n", healthy.body());
    assertEquals(200, get("/-/ready").status());
    Reply targets = get("/api/v1/targets");
    assertEquals(0, targets.json().at("/data/activeTargets").size());
    Reply page = get("/targets");
    assertEquals(200, page.status());
    assertTrue(page.contentType().startsWith("text/html"));
    Reply metrics = get("/metrics");
    assertTrue(metrics.body().contains("prometheus_tsdb_head_series 3"));
    assertTrue(metrics.body().contains("\nprometheus_notifications_sent_total "), metrics.body());
    assertTrue(metrics.body().contains("# HELP prometheus_ready Whether the server is ready."), metrics.body());
  }

  static String raw(String url, String target) throws Exception {
    URI u = URI.create(url);
    try (java.net.Socket socket = new java.net.Socket(u.getHost(), u.getPort())) {
      socket.getOutputStream().write(("GET " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void anUndecodableQueryPairIsLeftOutAsGoDoesExceptWhereParseFormIsChecked() throws Exception {
    String query = raw(server.url(), "/api/v1/query?query=up&time=1700000000&junk=%zz");
    assertTrue(query.startsWith("HTTP/1.1 200"), query);
    assertTrue(query.contains("\"status\":\"success\""), query);
    String series = raw(server.url(), "/api/v1/series?match%5B%5D=up&junk=%zz");
    assertTrue(series.startsWith("HTTP/1.1 400"), series);
    assertTrue(series.contains("{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"error parsing form values: "
        + "invalid URL escape \\\"%zz\\\"\"}"), series);
  }

  @Test
  void aBodyOverTheLimitIs413InPrometheusShape() throws Exception {
    try (MetricsServer small = MetricsServer.builder().port(0).configYaml("scrape_configs: []\n")
        .maxRequestBytes(1024).start()) {
      HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(small.url() + "/api/v1/query"))
          .header("Content-Type", "application/x-www-form-urlencoded")
          .POST(HttpRequest.BodyPublishers.ofString("query=" + "1%2B".repeat(1000) + "1")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(413, r.statusCode(), r.body());
      assertEquals("{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"request body is larger than the "
          + "limit of 1024 bytes\"}", r.body());
    }
  }

  @Test
  void regexMatchersRunInLinearTimeWithRe2Syntax() throws Exception {
    String hostile = "a".repeat(5_000) + "b";
    Appender app = server.storage().appender();
    app.append(Labels.of("__name__", "hostile_total", "job", hostile), NOW - 60_000, 1);
    app.commit();
    org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(10), () -> {
      Reply r = get("/api/v1/query?query=" + enc("count(hostile_total{job=~\"(a+)+$\"}) or vector(0)")
          + "&time=1700000000");
      assertEquals(200, r.status(), r.body());
      assertEquals("0", r.json().at("/data/result/0/value/1").asText(), r.body());
    });
    Reply backref = get("/api/v1/query?query=" + enc("up{job=~\"(a)\\\\1\"}"));
    assertEquals(400, backref.status(), backref.body());
    assertTrue(backref.body().contains("invalid escape sequence"), backref.body());
  }
}
