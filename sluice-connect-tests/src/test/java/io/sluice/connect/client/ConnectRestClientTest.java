package io.sluice.connect.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.connect.ConnectRuntime;
import io.sluice.connect.testing.Pipeline;
import io.sluice.connect.testing.TestWorkers;
import io.sluice.kafka.testing.SharedKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one Connect REST client against a real worker: answers read, refusals typed with Connect's own error body. */
class ConnectRestClientTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(60);
  @TempDir static Path dataDir;
  private static ConnectRuntime worker;
  private static ConnectRestClient connect;
  private static Pipeline pipeline;

  @BeforeAll
  static void start() {
    worker = TestWorkers.worker(SharedKafka.unique("client"), dataDir).start();
    connect = new ConnectRestClient(worker.restUrl());
    pipeline = new Pipeline(SharedKafka.unique("cl"));
  }

  @AfterAll
  static void stop() {
    if (worker != null) {
      worker.close();
    }
  }

  private static ObjectNode sinkConfig() {
    return JSON.valueToTree(pipeline.sinkConfig());
  }

  @Test
  void aConnectorThroughItsLife() {
    // A space must be escaped in the path; Connect's Jetty refuses an escaped slash whatever the client does.
    String name = pipeline.name + " sink 1";
    connect.create(name, sinkConfig());
    assertTrue(connect.connectorNames().contains(name), connect.connectorNames().toString());
    assertEquals(pipeline.topic(), connect.config(name).orElseThrow().path("topics").asText());
    connect.awaitStatus(name, s -> "RUNNING".equals(s.path("connector").path("state").asText()), WAIT, "RUNNING");
    assertTrue(connect.connectorsExpanded().path(name).path("info").path("config").has("connector.class"));

    connect.pause(name, WAIT);
    assertEquals("PAUSED", connect.state(name));
    connect.resume(name);
    connect.awaitStatus(name, s -> "RUNNING".equals(s.path("connector").path("state").asText()), WAIT, "RUNNING");
    connect.restart(name, true);
    assertTrue(connect.stop(name, WAIT));
    assertEquals("STOPPED", connect.state(name));
    assertTrue(connect.offsets(name).orElseThrow().has("offsets"));

    ObjectNode changed = sinkConfig().put("batch.size", "17");
    connect.putConfig(name, changed);
    assertEquals("17", connect.config(name).orElseThrow().path("batch.size").asText());

    connect.delete(name);
    assertEquals(Set.of(), Set.copyOf(connect.connectorNames().stream().filter(name::equals).toList()));
  }

  @Test
  void refusalsCarryConnectsErrorCodeAndMessage() {
    String name = pipeline.name + "-twice";
    connect.create(name, sinkConfig());
    ConnectApiException exists = assertThrows(ConnectApiException.class, () -> connect.create(name, sinkConfig()));
    assertEquals(409, exists.status());
    assertEquals(409, exists.errorCode());
    assertTrue(exists.connectMessage().contains("already exists"), exists.connectMessage());
    assertTrue(exists.getMessage().startsWith("cannot create connector " + name + ": Kafka Connect answered HTTP 409"),
        exists.getMessage());

    assertTrue(connect.config("no-such-connector").isEmpty());
    ConnectApiException missing = assertThrows(ConnectApiException.class, () -> connect.status("no-such-connector"));
    assertEquals(404, missing.status());
    assertTrue(missing.connectMessage().contains("no-such-connector"), missing.connectMessage());

    ConnectApiException invalid = assertThrows(ConnectApiException.class,
        () -> connect.create(pipeline.name + "-bad", JSON.createObjectNode().put("connector.class", "no.Such")));
    assertEquals(400, invalid.status());
    connect.delete(name);
  }

  /**
   * The herder's answers that refuse before anything changed and pass once it has caught up, each as Connect's
   * DistributedHerder words it, are the ones the client asks again; a refusal of the request itself is not one.
   */
  @Test
  void theHerdersPassingRefusalsAreToldFromRealOnes() {
    for (String passing : List.of("Request cannot be completed because a rebalance is expected",
        "Cannot complete request because of a conflicting operation (e.g. worker rebalance)",
        "Failed to read to end of config topic before modifying connector offsets",
        "Failed to read to end of config topic before performing zombie fencing")) {
      assertTrue(ConnectRestClient.rebalancing("{\"error_code\":500,\"message\":\"" + passing + "\"}"), passing);
    }
    assertFalse(ConnectRestClient.rebalancing("{\"error_code\":500,\"message\":\"Connector configuration is "
        + "invalid\"}"));
  }
}
