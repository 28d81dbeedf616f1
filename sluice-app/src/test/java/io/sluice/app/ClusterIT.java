package io.sluice.app;

import static io.sluice.app.SluiceNodes.get;
import static io.sluice.app.PackagedSluice.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.app.PackagedSluice.Run;
import io.sluice.app.SluiceNodes.Node;
import io.sluice.connect.testing.Eventually;
import io.sluice.kafka.EmbeddedKafka;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two {@code ./sluice up} processes of the packaged distribution on one Kafka cluster (a broker in the test JVM), as
 * an operator runs them: one cluster status, one router cluster, one metrics view; then the node running the source
 * task is killed with SIGKILL under load, its tasks move to the survivor, and the sink ends equal to the source. The
 * killed node comes back and takes a task from the survivor, which is then stopped (SIGTERM) and hands on the other:
 * through all three moves the pipeline's records behind, as the metrics servers compute it from both nodes' counters,
 * stays what the load explains, and the lag alert stays silent.
 */
class ClusterIT {
  private static final Duration WAIT = Duration.ofSeconds(120);
  /**
   * What one counts interval of the exporter (5 s, and its 1 s pass) of this test's load (about 410 changes a second)
   * may take from a counter when its node is killed -9, with room: a counter that started again at 0 after a move
   * would lose all it had counted, 20,000 rows of snapshot at least.
   */
  private static final long INTERVAL_OF_LOAD = 5_000;
  /** The test copy of ConnectHighLag fires at this many records behind, held 10 s (bundled: 300,000, for 5 m). */
  private static final long LAG_THRESHOLD = 10_000;
  @TempDir static Path dir;
  private static EmbeddedKafka kafka;
  private static SluiceNodes nodes;
  @RegisterExtension static final FailedRunLogs LOGS = new FailedRunLogs(() -> ClusterIT.nodes);

  @BeforeAll
  static void broker() throws Exception {
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
  private static String taskWorker(Node node, String connector) {
    try {
      JsonNode s = get(node.url("connect") + "/connectors/" + connector + "/status");
      return "RUNNING".equals(s.at("/tasks/0/state").asText()) ? s.at("/tasks/0/worker_id").asText() : "";
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** The workers running the connectors' tasks 0 ("" for one not running), as {@code node}'s Connect reports them. */
  private static Set<String> workers(Node node, String... connectors) {
    return Arrays.stream(connectors).map(c -> taskWorker(node, c)).collect(Collectors.toSet());
  }

  /**
   * Starts node {@code name} with its own prometheus.yml, as docs/cluster.md says to write it (its own exporter and
   * router, the others' from the membership), every 2 s, with the test copy of the bundled rules; and the exporter's
   * move hold at that scrape interval.
   */
  private static Node start(String name, Path rules) throws Exception {
    Path data = dir.resolve(name).resolve("data");
    int alerts = PackagedSluice.freePort();
    int exporter = PackagedSluice.freePort();
    Path prometheus = Files.writeString(Files.createDirectories(dir.resolve(name)).resolve("prometheus.yml"), """
        global: {scrape_interval: 2s, scrape_timeout: 2s, evaluation_interval: 1s}
        rule_files: ['%s']
        alerting:
          alertmanagers:
            - static_configs: [{targets: ['127.0.0.1:%d']}]
              file_sd_configs: [{files: ['%s']}]
        scrape_configs:
          - job_name: sluice
            static_configs: [{targets: ['127.0.0.1:%d']}]
            file_sd_configs: [{files: ['%s']}]
        """.formatted(rules, alerts, data.resolve("cluster/alertmanagers.json"), exporter,
        data.resolve("cluster/exporters.json")));
    return nodes.start(name, "--alerts-port", "" + alerts, "--exporter-port", "" + exporter, "--metrics-config",
        prometheus.toString(), "--set", "exporter.move.hold=2s");
  }

  @Test
  // Three node starts, a snapshot and two graceful moves: 2 to 3 minutes alone, more beside other tests on 2 cores.
  @Timeout(value = 10, unit = TimeUnit.MINUTES)
  void twoNodesShowOneClusterAndThePipelineOutlivesAKillAndTwoMovesWithoutALagJump() throws Exception {
    String bundled = Files.readString(PackagedSluice.root().resolve(
        "sluice-metrics/src/main/resources/io/sluice/metrics/rules/cdc-alerts.rules.yml"));
    assertTrue(bundled.contains(") > 300000\n"), "the bundled ConnectHighLag threshold");
    Path rules = Files.writeString(dir.resolve("rules.yml"), bundled.replaceAll("for: \\S+", "for: 10s")
        .replace(") > 300000\n", ") > " + LAG_THRESHOLD + "\n"));
    Node a = start("a", rules);
    Node b = start("b", rules);

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
    PipelineLoad load = PipelineLoad.create("cl", a.url("connect"), 20_000);
    long created = System.currentTimeMillis();
    String owner = Eventually.await("the source task running", WAIT, () -> taskWorker(a, load.source),
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
    SinkBacklog backlog = new SinkBacklog(kafka.bootstrapServers(), load.pipeline.topic(), "connect-cl-sink");
    // The snapshot's 20,000 rows counted on both sides before the load, and the lag alert of the test's rules, which
    // the snapshot may well raise (it is 20,000 records behind for a moment), over: while records flow by thousands a
    // second, the two sums, scraped from two nodes up to a scrape apart, differ by what one side counted in between.
    Eventually.await("the snapshot counted on both sides", WAIT, () -> {
      try {
        return Math.abs(get(query(a, behind(load.source))).at("/data/result/0/value/1").asDouble(Double.NaN)) < 500
            && get(query(a, "ALERTS{alertname=\"ConnectHighLag\"}")).at("/data/result").isEmpty()
            && get(query(b, "ALERTS{alertname=\"ConnectHighLag\"}")).at("/data/result").isEmpty();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }, settled -> settled);
    // From the next whole second on, the range queries below see samples no older than the ones just read.
    long loadFrom = System.currentTimeMillis() / 1000 + 1;
    load.start();
    Thread.sleep(3000);
    long killedAt = System.nanoTime();
    SluiceNodes.kill(victim);
    String moved = Eventually.await("the source task running on the survivor", WAIT,
        () -> taskWorker(survivor, load.source), w -> w.equals(survivor.authority("connect")));
    long recoveredMs = (System.nanoTime() - killedAt) / 1_000_000;
    System.out.println("ClusterIT: source task moved to " + moved + " " + recoveredMs + " ms after kill -9 of its node");
    Thread.sleep(3000);
    load.assertSinkEqualsSource(dir);

    // The dead node is reported as gone until its card ages out; status says the cluster is not whole.
    Run after = sluice("cluster", "status", "--bootstrap", kafka.bootstrapServers(), "-o", "json");
    assertEquals(1, after.exit(), after::toString);
    assertEquals(1, countLive(after.json()), after::toString);

    // The killed node comes back: the rebalance hands it one of the two tasks, which the survivor stops first.
    Node back = nodes.restart(victim);
    Set<String> both = Set.of(survivor.authority("connect"), back.authority("connect"));
    Eventually.await("a task on each node", WAIT, () -> workers(survivor, load.source, "cl-sink"), both::equals);
    System.out.println("ClusterIT: " + (taskWorker(survivor, load.source).equals(back.authority("connect"))
        ? "the source" : "the sink") + " task moved back to the restarted node");
    Thread.sleep(8000);
    long stoppedAt = System.currentTimeMillis() / 1000;
    assertNoLagJump(survivor, load.source, backlog, created, loadFrom, stoppedAt);

    // The survivor stops (SIGTERM): its task moves to the node that came back, with its exact count.
    assertEquals(0, PackagedSluice.down(survivor.up()), () -> "survivor exit; stderr " + read(survivor.up().stderr()));
    String home = back.authority("connect");
    Eventually.await("both tasks on the node that came back", WAIT, () -> workers(back, load.source, "cl-sink"),
        Set.of(home)::equals);
    Thread.sleep(8000);
    load.close();
    load.assertSinkEqualsSource(dir);
    assertNoLagJump(back, load.source, backlog, created, stoppedAt - 10, System.currentTimeMillis() / 1000);
    backlog.close();
    assertEquals(0, PackagedSluice.down(back.up()), () -> "exit; stderr " + read(back.up().stderr()));
  }

  /**
   * Records behind, as the system description defines it (sum polled − sum sent by pipeline), on {@code n}'s metrics
   * server at every second from {@code from} to {@code to}: polled and sent never fall by more than
   * {@link #INTERVAL_OF_LOAD} (a node killed -9 loses at most its last counts interval), records behind stays between
   * minus that and the backlog Kafka held plus that (and plus Debezium's heartbeats, polled once a second since
   * {@code created} but never sent), and ConnectHighLag is never pending or firing. A count that started again at 0
   * on the node a task moved to would fall by everything it had counted; a task counted on both nodes at once would
   * add it twice.
   */
  private static void assertNoLagJump(Node n, String pipeline, SinkBacklog backlog, long created, long from, long to)
      throws Exception {
    TreeMap<Long, Double> polled = range(n, polled(pipeline), from, to);
    TreeMap<Long, Double> sent = range(n, sent(pipeline), from, to);
    TreeMap<Long, Double> behind = range(n, behind(pipeline), from, to);
    assertNeverFalls("polled", polled);
    assertNeverFalls("sent", sent);
    // Unknown while a task moves (until it shows on the node it went to), never for good.
    assertFalse(behind.isEmpty(), "records behind never known");
    assertTrue(behind.lastKey() >= to - 5, "records behind unknown since " + behind.lastKey() + ": " + behind);
    double least = Double.MAX_VALUE;
    double most = -Double.MAX_VALUE;
    long gap = 0;
    Long last = null;
    for (Map.Entry<Long, Double> e : behind.entrySet()) {
      long t = e.getKey();
      double v = e.getValue();
      least = Math.min(least, v);
      most = Math.max(most, v);
      gap = last == null ? 0 : Math.max(gap, t - last - 1);
      last = t;
      String seen = " (polled " + polled.get(t) + ", sent " + sent.get(t) + "): " + behind;
      assertTrue(v >= -INTERVAL_OF_LOAD, "records behind at " + t + " is " + v + seen);
      long outstanding = backlog.largestAround(t * 1000, 5000, 1000);
      long heartbeats = t - created / 1000;
      if (outstanding >= 0) {
        assertTrue(v <= outstanding + INTERVAL_OF_LOAD + heartbeats, "records behind at " + t + " is " + v
            + " while Kafka held " + outstanding + " for the sink" + seen);
      }
    }
    List<TreeMap<Long, Double>> alerts = ranges(n, "ALERTS{alertname=\"ConnectHighLag\"}", from, to);
    assertEquals(List.of(), alerts, "ConnectHighLag pending or firing; records behind " + behind);
    System.out.println("ClusterIT: records behind on " + n.name() + " from " + from + " to " + to + ": " + behind.size()
        + " samples, " + least + " to " + most + ", longest gap " + gap + " s");
  }

  private static String polled(String pipeline) {
    return "sum by (pipeline) (svc_connect_source_connector_metrics_source_record_poll_total{pipeline=\"" + pipeline
        + "\"})";
  }

  private static String sent(String pipeline) {
    return "sum by (pipeline) (svc_connect_sink_connector_metrics_sink_record_send_total{pipeline=\"" + pipeline
        + "\"})";
  }

  /** Records behind, as the system description defines lag. */
  private static String behind(String pipeline) {
    return polled(pipeline) + " - " + sent(pipeline);
  }

  private static void assertNeverFalls(String what, TreeMap<Long, Double> counts) {
    assertFalse(counts.isEmpty(), what);
    Double before = null;
    for (Map.Entry<Long, Double> e : counts.entrySet()) {
      if (before != null) {
        assertTrue(e.getValue() >= before - INTERVAL_OF_LOAD, what + " fell from " + before + " to " + e.getValue()
            + " at " + e.getKey() + ": " + counts);
      }
      before = e.getValue();
    }
  }

  /** The one series of a range query at 1 s steps: its value by unix second, where it had one. */
  private static TreeMap<Long, Double> range(Node n, String promql, long from, long to) throws Exception {
    List<TreeMap<Long, Double>> all = ranges(n, promql, from, to);
    assertTrue(all.size() <= 1, promql + " gave " + all.size() + " series");
    return all.isEmpty() ? new TreeMap<>() : all.get(0);
  }

  private static List<TreeMap<Long, Double>> ranges(Node n, String promql, long from, long to) throws Exception {
    JsonNode r = get(n.url("metrics") + "/api/v1/query_range?query=" + URLEncoder.encode(promql,
        StandardCharsets.UTF_8) + "&start=" + from + "&end=" + to + "&step=1");
    assertEquals("success", r.path("status").asText(), r.toString());
    List<TreeMap<Long, Double>> out = new ArrayList<>();
    for (JsonNode series : r.at("/data/result")) {
      TreeMap<Long, Double> values = new TreeMap<>();
      series.path("values").forEach(p -> values.put(p.get(0).asLong(), Double.parseDouble(p.get(1).asText())));
      out.add(values);
    }
    return out;
  }

  private static long countLive(JsonNode status) {
    long n = 0;
    for (JsonNode node : status.path("nodes")) {
      n += node.path("live").asBoolean() ? 1 : 0;
    }
    return n;
  }
}
