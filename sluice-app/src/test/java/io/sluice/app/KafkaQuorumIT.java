package io.sluice.app;

import static io.sluice.app.PackagedSluice.freePort;
import static io.sluice.app.PackagedSluice.read;
import static io.sluice.app.SluiceNodes.get;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.app.PackagedSluice.Run;
import io.sluice.app.PackagedSluice.Up;
import io.sluice.connect.testing.Eventually;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three {@code ./sluice kafka} processes of the packaged distribution make one replicated KRaft cluster; a
 * {@code ./sluice up} joins it. Sluice's state topics get three replicas with two in sync, a state topic created by
 * hand with fewer is reported, and a PostgreSQL → JDBC load goes on through the kill -9 of a broker and its return.
 */
class KafkaQuorumIT {
  private static final Duration WAIT = Duration.ofSeconds(120);
  @TempDir static Path dir;
  private static final List<Process> brokers = new ArrayList<>(List.of());
  private static Up up;

  @AfterAll
  static void stop() throws Exception {
    if (up != null && up.process().isAlive()) {
      PackagedSluice.down(up);
    }
    // All at once: a broker stopped after the others would wait for a quorum that is gone.
    brokers.forEach(Process::destroy);
    for (Process p : brokers) {
      p.waitFor(90, TimeUnit.SECONDS);
    }
  }

  private static Process broker(int id, int port, String voters) throws Exception {
    return SluiceNodes.broker(dir, id, port, voters);
  }

  private static void awaitReady(int id, Process p) {
    SluiceNodes.awaitBroker(dir, id, p);
  }

  @Test
  void threeBrokersReplicateSluicesStateAndALoadOutlivesABrokerKilledAndBack() throws Exception {
    int[] ports = {freePort(), freePort(), freePort()};
    String voters = "1@127.0.0.1:" + freePort() + ",2@127.0.0.1:" + freePort() + ",3@127.0.0.1:" + freePort();
    for (int i = 0; i < 3; i++) {
      brokers.add(broker(i + 1, ports[i], voters));
    }
    for (int i = 0; i < 3; i++) {
      awaitReady(i + 1, brokers.get(i));
    }
    String bootstrap = "127.0.0.1:" + ports[0] + ",127.0.0.1:" + ports[1] + ",127.0.0.1:" + ports[2];

    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      assertEquals(3, admin.describeCluster().nodes().get(60, TimeUnit.SECONDS).size());
      // A state topic made by hand before Sluice starts, with one replica: reported, not silently used.
      admin.createTopics(List.of(new NewTopic("_schemas", 1, (short) 1)
          .configs(Map.of("cleanup.policy", "compact")))).all().get(60, TimeUnit.SECONDS);
    }

    Path home = Files.createDirectories(dir.resolve("node"));
    up = PackagedSluice.up(home, List.of("--kafka-bootstrap", bootstrap, "--data-dir", home.resolve("data").toString(),
        "--connect-port", "" + freePort(), "--registry-port", "" + freePort(), "--metrics-port", "" + freePort(),
        "--alerts-port", "" + freePort(), "--exporter-port", "" + freePort()));
    Map<String, String> urls = new LinkedHashMap<>();
    for (String part : up.readyLine().substring("sluice ready ".length()).split(" ")) {
      urls.put(part.substring(0, part.indexOf('=')), part.substring(part.indexOf('=') + 1));
    }
    // Said once the plane has checked, which it does beside its start rather than before its ready line.
    Eventually.await("the warning about _schemas", WAIT, () -> read(up.stderr()),
        err -> err.contains("warning: _schemas has 1 replica(s)"));

    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      for (String topic : List.of("connect-offsets", "connect-configs", "connect-status", "sluice-alerts-state",
          "sluice-cluster")) {
        TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(60, TimeUnit.SECONDS).get(topic);
        assertEquals(3, d.partitions().get(0).replicas().size(), topic);
        Config c = admin.describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC, topic))).all()
            .get(60, TimeUnit.SECONDS).values().iterator().next();
        assertEquals("2", c.get("min.insync.replicas").value(), topic);
      }
    }
    Run status = PackagedSluice.run(dir, "cluster", "status", "--bootstrap", bootstrap, "-o", "json");
    assertEquals(1, status.exit(), "the weak topic makes the cluster not whole: " + status);
    assertEquals(3, status.json().path("brokers").size(), status::toString);
    assertEquals("_schemas", status.json().at("/weakTopics/0/topic").asText(), status::toString);

    // A pipeline under load while broker 2 is killed and started again.
    PipelineLoad load = PipelineLoad.create("q", urls.get("connect"), 300);
    load.start();
    Thread.sleep(2000);
    brokers.get(1).destroyForcibly().waitFor();
    Thread.sleep(8000);
    brokers.set(1, broker(2, ports[1], voters));
    awaitReady(2, brokers.get(1));
    Thread.sleep(2000);
    load.close();
    load.assertSinkEqualsSource(dir);
    JsonNode source = get(urls.get("connect") + "/connectors/" + load.source + "/status");
    assertEquals("RUNNING", source.at("/tasks/0/state").asText(), source.toString());
    // Exactly once on the three-broker quorum: the source required it and Connect, whose worker has the support on,
    // accepted it; its transactions went on through the broker's loss (the sink equals the source above).
    JsonNode config = get(urls.get("connect") + "/connectors/" + load.source + "/config");
    assertEquals("required", config.path("exactly.once.support").asText(), config.toString());

    // Once broker 2 has caught up, nothing is under-replicated.
    Eventually.await("no under-replicated partitions", WAIT, () -> {
      try {
        return PackagedSluice.run(dir, "cluster", "status", "--bootstrap", bootstrap, "-o", "json").json()
            .path("underReplicatedPartitions").asInt();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }, n -> n == 0);
    assertEquals(0, PackagedSluice.down(up), () -> "exit; stderr " + read(up.stderr()));
  }
}
