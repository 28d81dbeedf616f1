package io.sluice.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.connect.testing.ConnectClient;
import io.sluice.connect.testing.Pipeline;
import io.sluice.connect.testing.TestWorkers;
import io.sluice.kafka.testing.SharedKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two workers given the same cluster form one Connect cluster: work is spread, and moves when a worker stops. */
class ConnectClusterTest {

  @Test
  void tasksSpreadOverBothWorkersAndMoveWhenOneStops(@TempDir Path dirA, @TempDir Path dirB) throws Exception {
    String cluster = SharedKafka.unique("cluster");
    Pipeline pipeline = new Pipeline(SharedKafka.unique("cl"));
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", SharedKafka.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(pipeline.topic(), 4, (short) 1))).all().get();
    }
    ConnectRuntime a = TestWorkers.worker(cluster, dirA).start();
    ConnectRuntime b = TestWorkers.worker(cluster, dirB).start();
    try {
      ConnectClient viaA = new ConnectClient(a.restUrl());
      ConnectClient viaB = new ConnectClient(b.restUrl());
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
    return w.restUrl().replace("http://", "");
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
