package io.sluice.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.connect.testing.ConnectClient;
import io.sluice.connect.testing.Eventually;
import io.sluice.connect.testing.Pipeline;
import io.sluice.connect.testing.TestWorkers;
import io.sluice.http.web.BasicAuth;
import io.sluice.http.web.WebConfig;
import io.sluice.kafka.testing.SharedKafka;
import io.sluice.testing.TestCertificate;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two workers given the same cluster form one Connect cluster: work is spread, and moves when a worker stops. The
 * cluster is secured (TLS and basic auth from one web configuration), so the requests workers forward to each other,
 * the user's and their own, are shown to pass through Sluice's access filter.
 */
class ConnectClusterTest {

  @Test
  void tasksSpreadOverBothWorkersAndMoveWhenOneStops(@TempDir Path dirA, @TempDir Path dirB) throws Exception {
    String cluster = SharedKafka.unique("cluster");
    Pipeline pipeline = new Pipeline(SharedKafka.unique("cl"));
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", SharedKafka.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(pipeline.topic(), 4, (short) 1))).all().get();
    }
    TestCertificate cert = TestCertificate.write(dirA);
    WebConfig web = WebConfig.load(Files.writeString(dirA.resolve("web.yml"), String.join("\n",
        "tls_server_config:", "  cert_file: tls.crt", "  key_file: tls.key",
        "basic_auth_users:", "  ops: " + BasicAuth.hash("ops-pw"), "")));
    ConnectRuntime a = TestWorkers.worker(cluster, dirA).webConfig(web).start();
    ConnectRuntime b = TestWorkers.worker(cluster, dirB).webConfig(web).start();
    try {
      HttpClient https = HttpClient.newBuilder().sslContext(cert.trustingContext()).build();
      String ops = "Basic " + Base64.getEncoder().encodeToString("ops:ops-pw".getBytes(StandardCharsets.UTF_8));
      ConnectClient viaA = new ConnectClient(a.restUrl(), https, ops);
      ConnectClient viaB = new ConnectClient(b.restUrl(), https, ops);
      assertEquals(401, new ConnectClient(b.restUrl(), https, null).call("GET", "/connectors", null).status());
      Map<String, String> sink = new java.util.HashMap<>(pipeline.sinkConfig());
      sink.put("tasks.max", "3");
      // Created through B, the request may be forwarded to the leader: it must be applied exactly once.
      assertEquals(201, viaB.create("spread-sink", sink).status());
      JsonNode status = viaA.awaitStatus("spread-sink", s -> s.path("tasks").size() == 3
          && allRunning(s) && workers(s).size() == 2, Duration.ofSeconds(90));
      assertEquals(Set.of(workerId(a), workerId(b)), workers(status));
      String secret = viaA.call("GET", "/connectors/spread-sink/config", null).json()
          .path("connection.password").asText();
      assertTrue(secret.startsWith("${sluice:"), secret);

      // A renewed certificate is served without a restart, and the workers' calls to each other and to themselves
      // trust it: a create through B (forwarded when B is not the leader) and a delete (which stops the connector and
      // backs up its offsets through the worker's own API first) both work afterwards.
      TestCertificate renewed = TestCertificate.write(dirA);
      HttpClient renewedHttps = HttpClient.newBuilder().sslContext(renewed.trustingContext()).build();
      for (ConnectRuntime w : List.of(a, b)) {
        ConnectClient c = new ConnectClient(w.restUrl(), renewedHttps, ops);
        Eventually.await(w.restUrl() + " serves the renewed certificate", Duration.ofSeconds(30), () -> {
          try {
            return c.call("GET", "/connectors", null).status();
          } catch (IllegalStateException handshake) {
            return -1;
          }
        }, answered -> answered == 200);
      }
      viaA = new ConnectClient(a.restUrl(), renewedHttps, ops);
      viaB = new ConnectClient(b.restUrl(), renewedHttps, ops);
      assertEquals(201, viaB.create("renewed-sink", new java.util.HashMap<>(pipeline.sinkConfig())).status());
      viaA.awaitStatus("renewed-sink", ConnectClusterTest::allRunning, Duration.ofSeconds(90));
      assertEquals(204, viaA.call("DELETE", "/connectors/renewed-sink", null).status());
      ConnectClient bAfter = viaB;
      Eventually.await("B no longer lists the deleted connector", Duration.ofSeconds(30),
          () -> bAfter.call("GET", "/connectors", null).body(), body -> !body.contains("renewed-sink"));

      a.close();
      JsonNode moved = viaB.awaitStatus("spread-sink", s -> s.path("tasks").size() == 3 && allRunning(s)
          && workers(s).equals(Set.of(workerId(b))), Duration.ofSeconds(90));
      assertEquals("RUNNING", moved.path("connector").path("state").asText());
    } finally {
      a.close();
      b.close();
    }
  }

  private static String workerId(ConnectRuntime w) {
    return w.restUrl().replace("https://", "").replace("http://", "");
  }

  private static boolean allRunning(JsonNode s) {
    if (!"RUNNING".equals(s.path("connector").path("state").asText())) {
      return false;
    }
    for (JsonNode t : s.path("tasks")) {
      if (!"RUNNING".equals(t.path("state").asText())) {
        return false;
      }
    }
    return true;
  }

  /** The workers running the connector or any of its tasks. */
  private static Set<String> workers(JsonNode s) {
    Set<String> ids = new HashSet<>();
    ids.add(s.path("connector").path("worker_id").asText());
    for (JsonNode t : s.path("tasks")) {
      ids.add(t.path("worker_id").asText());
    }
    return ids;
  }
}
