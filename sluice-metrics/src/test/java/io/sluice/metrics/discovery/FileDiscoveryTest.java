package io.sluice.metrics.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.metrics.MetricsServer;
import io.sluice.metrics.config.Config;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** file_sd_configs as Prometheus reads them: targets and routers that come and go with the files, bad files kept. */
class FileDiscoveryTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  @TempDir Path dir;

  @Test
  void targetsAndRoutersFollowTheFiles() throws Exception {
    String yaml = """
        global: {scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 1s}
        alerting:
          alertmanagers:
            - file_sd_configs: [{files: ['routers/*.yml']}]
        scrape_configs:
          - job_name: nodes
            file_sd_configs: [{files: ['nodes/*.json'], refresh_interval: 30s}]
        """;
    Files.createDirectories(dir.resolve("nodes"));
    Files.createDirectories(dir.resolve("routers"));
    Path config = Files.writeString(dir.resolve("prometheus.yml"), yaml);
    try (MetricsServer server = MetricsServer.builder().port(0).configFile(config).start()) {
      assertEquals(0, targets(server).size());
      Files.writeString(dir.resolve("nodes/a.json"), """
          [{"targets": ["127.0.0.1:%d"], "labels": {"node": "a"}}]""".formatted(server.port()));
      Files.writeString(dir.resolve("routers/r.yml"), "- targets: ['127.0.0.1:1']\n");
      JsonNode t = await(server, "/api/v1/targets", j -> j.at("/data/activeTargets").size() == 1);
      assertEquals("a", t.at("/data/activeTargets/0/labels/node").asText());
      assertEquals("nodes", t.at("/data/activeTargets/0/labels/job").asText());
      await(server, "/api/v1/alertmanagers",
          j -> j.at("/data/activeAlertmanagers/0/url").asText().equals("http://127.0.0.1:1/api/v2/alerts"));
      // The discovered target is scraped: the server reads its own /metrics.
      await(server, "/api/v1/query?query=up%7Bjob%3D%22nodes%22%7D",
          j -> j.at("/data/result/0/value/1").asText().equals("1"));

      // A file that breaks keeps its last targets, as in Prometheus.
      Files.writeString(dir.resolve("nodes/a.json"), "[{\"targets\": ");
      Thread.sleep(3000);
      assertEquals(1, targets(server).size());

      // A second file adds its targets; a file removed takes its own away.
      Files.writeString(dir.resolve("nodes/b.json"), "[{\"targets\": [\"127.0.0.1:2\"]}]");
      await(server, "/api/v1/targets", j -> j.at("/data/activeTargets").size() == 2);
      Files.delete(dir.resolve("nodes/a.json"));
      JsonNode left = await(server, "/api/v1/targets", j -> j.at("/data/activeTargets").size() == 1);
      assertEquals("127.0.0.1:2", left.at("/data/activeTargets/0/labels/instance").asText());
    }
  }

  @Test
  void filesMustBeJsonOrYamlWithTheGlobInTheFileName() {
    var e = assertThrows(Config.ConfigException.class, () -> Config.parse("""
        scrape_configs:
          - job_name: x
            file_sd_configs: [{files: ['targets.txt']}]
        """));
    assertTrue(e.getMessage().contains("path name \"targets.txt\" is not valid for file discovery"), e.getMessage());
    assertThrows(Config.ConfigException.class, () -> Config.parse("""
        scrape_configs:
          - job_name: x
            file_sd_configs: [{files: ['*/targets.json']}]
        """));
  }

  private static JsonNode targets(MetricsServer server) throws Exception {
    return get(server, "/api/v1/targets").at("/data/activeTargets");
  }

  private static JsonNode get(MetricsServer server, String path) throws Exception {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(server.url() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
    return JSON.readTree(r.body());
  }

  private static JsonNode await(MetricsServer server, String path, Predicate<JsonNode> done) throws Exception {
    long deadline = System.currentTimeMillis() + 20_000;
    JsonNode last = null;
    while (System.currentTimeMillis() < deadline) {
      last = get(server, path);
      if (done.test(last)) {
        return last;
      }
      Thread.sleep(200);
    }
    throw new AssertionError(path + " never matched; last: " + last);
  }
}
