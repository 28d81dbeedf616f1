package io.sluice.app;

import static io.sluice.app.SluiceNodes.get;
import static io.sluice.app.PackagedSluice.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.app.PackagedSluice.Run;
import io.sluice.app.SluiceNodes.Node;
import io.sluice.connect.testing.Eventually;
import io.sluice.kafka.EmbeddedKafka;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two {@code ./sluice up} processes of the packaged distribution on one Kafka cluster (a broker in the test JVM), as
 * an operator runs them: one cluster status, one router cluster, one metrics view; then the node running the source
 * task is killed with SIGKILL under load, its tasks move to the survivor, and the sink ends equal to the source.
 */
class ClusterIT {
  private static final Duration WAIT = Duration.ofSeconds(120);
  @TempDir static Path dir;
  private static EmbeddedKafka kafka;
  private static SluiceNodes nodes;

  @BeforeAll
  static void broker() {
    kafka = EmbeddedKafka.builder().dataDir(dir.resolve("broker")).port(0).start();
    nodes = new SluiceNodes(dir, kafka.bootstrapServers());
  }

  @AfterAll
  static void stop() throws Exception {
    if (nodes != null) {
      nodes.close();
    }
    if (kafka != null) {
      kafka.close();
    }
  }

  private static Run sluice(String... args) throws Exception {
    return PackagedSluice.run(dir, args);
  }

  private static String query(Node n, String promql) {
    return n.url("metrics") + "/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8);
  }

  /** The worker running the connector's task 0, as {@code node}'s Connect reports it; empty until it runs. */
  private static String sourceWorker(Node node, String connector) {
    try {
      JsonNode s = get(node.url("connect") + "/connectors/" + connector + "/status");
      return "RUNNING".equals(s.at("/tasks/0/state").asText()) ? s.at("/tasks/0/worker_id").asText() : "";
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void twoNodesShowOneClusterAndTheSourceTaskOutlivesAKillOfItsNode() throws Exception {
    Node a = nodes.start("a");
    Node b = nodes.start("b");

    // One cluster status: both nodes live with their components; one broker, nothing under-replicated.
    JsonNode status = Eventually.await("both nodes in sluice cluster status", WAIT, () -> {
      try {
        return sluice("cluster", "status", "--bootstrap", kafka.bootstrapServers(), "-o", "json").json();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }, s -> s.path("nodes").size() == 2);
    for (JsonNode n : status.path("nodes")) {
      assertTrue(n.path("live").asBoolean(), status.toString());
      assertTrue(List.of(a.url("connect"), b.url("connect")).contains(n.path("components").path("connect").asText()),
          status.toString());
    }
    assertEquals(1, status.path("brokers").size(), status.toString());
    assertEquals(0, status.path("underReplicatedPartitions").asInt(), status.toString());
    Run table = sluice("cluster", "status", "--bootstrap", kafka.bootstrapServers());
    assertEquals(0, table.exit(), table::toString);
    assertTrue(table.out().startsWith("Nodes: 2 live"), table::toString);

    // The routers see each other, as Alertmanager's /api/v2/status shows a cluster.
    JsonNode cluster = Eventually.await("two router peers", WAIT, () -> {
      try {
        return get(a.url("alerts") + "/api/v2/status").path("cluster");
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }, c -> c.path("peers").size() == 2);
    assertEquals("ready", cluster.path("status").asText(), cluster.toString());
    assertTrue(cluster.toString().contains(URI.create(b.url("alerts")).getAuthority()), cluster.toString());

    // One view: each node's metrics server scrapes both exporters and alerts both routers.
    for (Node n : List.of(a, b)) {
      Eventually.await("both exporters up in " + n.url("metrics"), WAIT, () -> {
        try {
          return get(query(n, "count(up{job=\"sluice\"} == 1)")).at("/data/result/0/value/1").asText();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }, "2"::equals);
      assertEquals(2, get(n.url("metrics") + "/api/v1/alertmanagers").at("/data/activeAlertmanagers").size());
    }
    Run targets = sluice("cluster", "targets", "exporter", "--bootstrap", kafka.bootstrapServers());
    assertEquals(0, targets.exit(), targets::toString);
    assertEquals(2, targets.json().size(), targets::toString);
    assertTrue(targets.out().contains(URI.create(a.url("exporter")).getAuthority()), targets::toString);

    // A pipeline under load; the node running its source task dies without a word.
    PipelineLoad load = PipelineLoad.create("cl", a.url("connect"), 500);
    String owner = Eventually.await("the source task running", WAIT, () -> sourceWorker(a, load.source),
        w -> !w.isEmpty());
    // Both nodes export every connector's status alike, so the one view holds two copies of it; the bundled rules and
    // panels take such series with max over the nodes (ClusterWideSeriesTest), and see one running connector.
    String copies = "count(svc_connect_connector_status{connector=\"" + load.source + "\"})";
    Eventually.await("the source's status from both nodes", WAIT, () -> {
      try {
        return get(query(a, copies)).at("/data/result/0/value/1").asText();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }, "2"::equals);
    assertEquals(1, get(query(a, "max by (connector, pipeline) (svc_connect_connector_status{connector=\""
        + load.source + "\"}) == 1")).at("/data/result").size());
    Node victim = URI.create(a.url("connect")).getAuthority().equals(owner) ? a : b;
    Node survivor = victim == a ? b : a;
    load.start();
    Thread.sleep(3000);
    long killedAt = System.nanoTime();
    SluiceNodes.kill(victim);
    String moved = Eventually.await("the source task running on the survivor", WAIT,
        () -> sourceWorker(survivor, load.source), w -> w.equals(survivor.authority("connect")));
    long recoveredMs = (System.nanoTime() - killedAt) / 1_000_000;
    System.out.println("ClusterIT: source task moved to " + moved + " " + recoveredMs + " ms after kill -9 of its node");
    Thread.sleep(3000);
    load.close();
    load.assertSinkEqualsSource(dir);

    // The dead node is reported as gone until its card ages out; status says the cluster is not whole.
    Run after = sluice("cluster", "status", "--bootstrap", kafka.bootstrapServers(), "-o", "json");
    assertEquals(1, after.exit(), after::toString);
    assertEquals(1, countLive(after.json()), after::toString);
    assertEquals(0, PackagedSluice.down(survivor.up()), () -> "survivor exit; stderr " + read(survivor.up().stderr()));
  }

  private static long countLive(JsonNode status) {
    long n = 0;
    for (JsonNode node : status.path("nodes")) {
      n += node.path("live").asBoolean() ? 1 : 0;
    }
    return n;
  }
}
