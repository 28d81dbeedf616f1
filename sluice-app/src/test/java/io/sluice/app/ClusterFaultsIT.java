package io.sluice.app;

import static io.sluice.app.SluiceNodes.get;
import static io.sluice.app.SluiceNodes.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.app.SluiceNodes.Node;
import io.sluice.connect.testing.Eventually;
import io.sluice.kafka.EmbeddedKafka;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The 3-node fault matrix, in the {@code cluster-faults} profile ({@code bench/cluster-faults}), not the default run:
 * three packaged {@code ./sluice up} nodes on one Kafka (in the test JVM). Alerts: one notification per group from
 * three nodes' rules and routers, a silence in force on every node before a notification it mutes is due, a router
 * killed mid-group losing nothing.
 * Registry: 3 nodes × 8 writers × 500 registrations in all three formats, a node killed mid-way, one id per schema
 * everywhere, also after a full restart. Connect: a rolling restart of every node. All of it under one PostgreSQL →
 * JDBC sink load, proven equal with {@code sluice reconcile} at the end of each scenario.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
// Each scenario's own bounded waits (node starts of up to 240 s, stops of up to 120 s, the sink's wait of up to five
// minutes) add up to more than the default five minutes: the default would end a scenario before its own waits can
// say what went wrong.
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class ClusterFaultsIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(180);
  @TempDir static Path dir;
  @RegisterExtension static final FailedRunLogs LOGS = new FailedRunLogs(() -> ClusterFaultsIT.cluster);
  private static EmbeddedKafka kafka;
  private static SluiceNodes cluster;
  private static Webhook hook;
  private static List<JsonNode> notifications;
  private static final List<Node> nodes = new ArrayList<>();
  /** Every scenario runs under this load, which goes on through its faults, and ends with the sink proven equal. */
  private static PipelineLoad load;

  @BeforeAll
  static void start() throws Exception {
    kafka = EmbeddedKafka.builder().dataDir(dir.resolve("broker")).port(0).start();
    cluster = new SluiceNodes(dir, kafka.bootstrapServers());
    hook = Webhook.start();
    notifications = hook.notifications();
    Path rules = Files.writeString(dir.resolve("rules.yml"), """
        groups:
          - name: probe
            interval: 1s
            rules:
              - alert: ClusterProbe
                expr: vector(1)
                labels: {severity: warning}
        """);
    Path alertmanager = Files.writeString(dir.resolve("alertmanager.yml"), """
        route:
          receiver: hook
          group_by: [alertname]
          group_wait: 2s
          group_interval: 5s
          repeat_interval: 1h
        receivers:
          - name: hook
            webhook_configs: [{url: 'http://127.0.0.1:%d/hook'}]
        """.formatted(hook.port()));
    for (String name : List.of("a", "b", "c")) {
      // Each node's own prometheus.yml: the rule; its own router and exporter, and the other nodes' from the
      // membership's file_sd lists, as the README says to write it.
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
      nodes.add(cluster.start(name, "--alerts-port", "" + alerts, "--exporter-port", "" + exporter,
          "--metrics-config", prometheus.toString(), "--alerts-config", alertmanager.toString()));
    }
    load = PipelineLoad.create("faults", nodes.get(0).url("connect"), 300);
    load.diagnoseOn(() -> {
      Map<String, String> urls = new LinkedHashMap<>();
      nodes.forEach(n -> urls.put(n.name(), n.url("connect")));
      return urls;
    }, kafka.bootstrapServers());
    load.start();
  }

  /** Holds the load, waits for the sink and proves it equal with {@code sluice reconcile}; the load goes on. */
  private static void sinkEqualsSource() throws Exception {
    load.assertSinkEqualsSource(dir);
  }

  @AfterAll
  static void stop() throws Exception {
    if (load != null) {
      load.close();
    }
    if (cluster != null) {
      cluster.close();
    }
    if (hook != null) {
      hook.close();
    }
    if (kafka != null) {
      kafka.close();
    }
  }

  private static long notified(String alertname) {
    return notifications.stream().filter(n -> n.at("/groupLabels/alertname").asText().equals(alertname)).count();
  }

  private static List<Node> live() {
    return nodes.stream().filter(n -> n.up().process().isAlive()).toList();
  }

  @Test
  @Order(1)
  void threeNodesRulesAndRoutersNotifyOncePerGroupAndShareSilences() throws Exception {
    // Every node's rule fires and every node alerts every router; the shared log lets one notification out.
    Eventually.await("three router peers on every node", WAIT, () -> nodes.stream().allMatch(n -> {
      try {
        return get(n.url("alerts") + "/api/v2/status").at("/cluster/peers").size() == 3
            && get(n.url("metrics") + "/api/v1/alertmanagers").at("/data/activeAlertmanagers").size() == 3;
      } catch (Exception e) {
        return false;
      }
    }), ok -> ok);
    Eventually.await("ClusterProbe notified", WAIT, () -> notified("ClusterProbe"), n -> n > 0);
    // Past the last node's turn (position 2 waits 2 × 15 s) and several group intervals.
    Thread.sleep(40_000);
    assertEquals(1, notified("ClusterProbe"), "one notification per group per interval: " + notifications);

    // A silence made on one node is in force on the others before a notification it mutes is due there: an alert it
    // matches, sent to every router as the silence is made, notifies no one. The first router in line would notify
    // group_wait (2 s) after the alert, the others at their turn; how soon the silence got there is the log's to say
    // (and a benchmark's), not this test's.
    Instant now = Instant.now();
    HttpResponse<String> created = send("POST", nodes.get(0).url("alerts") + "/api/v2/silences", Map.of(
        "matchers", List.of(Map.of("name", "alertname", "value", "Muted", "isRegex", false)),
        "startsAt", now.toString(), "endsAt", now.plus(Duration.ofHours(1)).toString(), "createdBy", "test",
        "comment", "shared"));
    assertEquals(200, created.statusCode(), created.body());
    long t0 = System.nanoTime();
    String muted = JSON.writeValueAsString(List.of(Map.of("labels", Map.of("alertname", "Muted"),
        "startsAt", Instant.now().toString())));
    for (Node n : nodes) {
      assertEquals(200, send("POST", n.url("alerts") + "/api/v2/alerts", muted).statusCode());
    }
    String id = JSON.readTree(created.body()).path("silenceID").asText();
    for (Node other : nodes.subList(1, 3)) {
      Eventually.await("silence on " + other.name(), WAIT,
          () -> {
            try {
              return get(other.url("alerts") + "/api/v2/silence/" + id).path("status").path("state").asText();
            } catch (Exception e) {
              return "";
            }
          }, "active"::equals);
    }
    long ms = (System.nanoTime() - t0) / 1_000_000;
    System.out.println("ClusterFaultsIT: silence seen active on every node " + ms + " ms after it was made");
    // Past the last router's turn (position 2 waits 2 × 15 s after group_wait).
    Thread.sleep(35_000);
    assertEquals(0, notified("Muted"), "the silenced alert notified: " + notifications);

    // A group whose first node in line dies during group_wait still gets its one notification.
    JsonNode peers = get(nodes.get(0).url("alerts") + "/api/v2/status").at("/cluster/peers");
    List<JsonNode> inLine = new ArrayList<>();
    peers.forEach(inLine::add);
    inLine.sort(Comparator.comparing(p -> p.path("name").asText()));
    String firstAddress = inLine.get(0).path("address").asText();
    Node first = nodes.stream().filter(n -> n.authority("alerts").equals(firstAddress)).findFirst().orElseThrow();
    String alert = JSON.writeValueAsString(List.of(Map.of("labels", Map.of("alertname", "KillGroup"),
        "startsAt", Instant.now().toString())));
    for (Node n : nodes) {
      assertEquals(200, send("POST", n.url("alerts") + "/api/v2/alerts", alert).statusCode());
    }
    SluiceNodes.kill(first);
    Eventually.await("KillGroup notified by a survivor", WAIT, () -> notified("KillGroup"), n -> n > 0);
    Thread.sleep(40_000);
    assertEquals(1, notified("KillGroup"), "exactly once after the first router in line died: " + notifications);
    nodes.set(nodes.indexOf(first), cluster.restart(first));
    sinkEqualsSource();
  }

  @Test
  @Order(2)
  void registryNodesAgreeOnEveryIdThroughAKillAndAFullRestart() throws Exception {
    assertEquals(200, send("PUT", nodes.get(0).url("registry") + "/config", Map.of("compatibility", "NONE"))
        .statusCode());
    int writersPerNode = 8;
    int each = 500;
    int distinct = 600;
    Map<Integer, Set<Integer>> idsOfSchema = new ConcurrentHashMap<>();
    AtomicInteger done = new AtomicInteger();
    AtomicInteger failures = new AtomicInteger();
    List<String> errors = new CopyOnWriteArrayList<>();
    Node victim = nodes.get(1);
    AtomicBoolean killed = new AtomicBoolean();
    ExecutorService pool = Executors.newFixedThreadPool(3 * writersPerNode);
    List<Future<?>> writers = new ArrayList<>();
    for (int w = 0; w < 3 * writersPerNode; w++) {
      int writer = w;
      writers.add(pool.submit(() -> {
        for (int i = 0; i < each; i++) {
          int key = (writer * each + i * 7) % distinct;
          int tries = 0;
          while (true) {
            // Clients with several registry URLs move to the next when one stops answering, as Confluent's do.
            Node target = nodes.get((writer + tries) % 3);
            try {
              HttpResponse<String> r = send("POST", target.url("registry") + "/subjects/" + subject(key)
                  + "/versions", registration(key));
              if (r.statusCode() != 200) {
                errors.add(r.statusCode() + " " + r.body());
                failures.incrementAndGet();
                break;
              }
              idsOfSchema.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet())
                  .add(JSON.readTree(r.body()).path("id").asInt());
              break;
            } catch (Exception e) {
              if (++tries > 6) {
                errors.add(e.toString());
                failures.incrementAndGet();
                break;
              }
            }
          }
          if (done.incrementAndGet() == 3 * writersPerNode * each / 3 && killed.compareAndSet(false, true)) {
            try {
              SluiceNodes.kill(victim);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        }
        return null;
      }));
    }
    for (Future<?> f : writers) {
      f.get();
    }
    pool.shutdown();
    assertEquals(0, failures.get(), "every registration answered: " + errors.subList(0, Math.min(5, errors.size())));
    assertTrue(killed.get());
    assertEquals(distinct, idsOfSchema.size());
    Map<Integer, Integer> schemaOfId = new HashMap<>();
    for (Map.Entry<Integer, Set<Integer>> e : idsOfSchema.entrySet()) {
      assertEquals(1, e.getValue().size(), "schema " + e.getKey() + " got ids " + e.getValue());
      Integer before = schemaOfId.put(e.getValue().iterator().next(), e.getKey());
      assertEquals(null, before, "id " + e.getValue() + " given to two schemas: " + before + " and " + e.getKey());
    }
    nodes.set(1, cluster.restart(victim));
    Map<String, String> answers = answers(nodes.get(0), schemaOfId.keySet());
    for (Node n : nodes.subList(1, 3)) {
      assertEquals(answers, answers(n, schemaOfId.keySet()), "node " + n.name() + " answers as node a does");
    }

    // A full restart: every node stopped, every node started again, the same answers.
    for (Node n : nodes) {
      assertEquals(0, PackagedSluice.down(n.up()));
    }
    for (int i = 0; i < nodes.size(); i++) {
      nodes.set(i, cluster.restart(nodes.get(i)));
    }
    for (Node n : nodes) {
      assertEquals(answers, answers(n, schemaOfId.keySet()), "after the restart, node " + n.name());
    }
    sinkEqualsSource();
  }

  private static String subject(int key) {
    return "faults-" + (key % 40) + "-" + List.of("avro", "json", "proto").get(key % 3) + "-value";
  }

  private static Map<String, String> registration(int key) {
    return switch (key % 3) {
      case 0 -> Map.of("schema", "{\"type\":\"record\",\"name\":\"R" + key + "\",\"fields\":[{\"name\":\"f" + key
          + "\",\"type\":\"int\"}]}");
      case 1 -> Map.of("schemaType", "JSON", "schema", "{\"type\":\"object\",\"properties\":{\"f" + key
          + "\":{\"type\":\"integer\"}}}");
      default -> Map.of("schemaType", "PROTOBUF", "schema", "syntax = \"proto3\";\nmessage M" + key + " {\n  int32 f"
          + key + " = 1;\n}\n");
    };
  }

  /** What a node says about every id and every subject: the bodies, as the client sees them. */
  private static Map<String, String> answers(Node n, Set<Integer> ids) throws Exception {
    Map<String, String> out = new LinkedHashMap<>();
    for (int id : new java.util.TreeSet<>(ids)) {
      out.put("id " + id, get(n.url("registry") + "/schemas/ids/" + id).toString());
    }
    JsonNode subjects = get(n.url("registry") + "/subjects");
    Set<String> sorted = new java.util.TreeSet<>();
    subjects.forEach(s -> sorted.add(s.asText()));
    out.put("subjects", sorted.toString());
    for (String s : sorted) {
      out.put(s, get(n.url("registry") + "/subjects/" + s + "/versions").toString());
    }
    return out;
  }

  @Test
  @Order(3)
  void aRollingRestartOfEveryNodeUnderLoadLosesNothing() throws Exception {
    for (int i = 0; i < nodes.size(); i++) {
      Node n = nodes.get(i);
      assertEquals(0, PackagedSluice.down(n.up()), "node " + n.name() + " stops cleanly under load");
      nodes.set(i, cluster.restart(n));
    }
    sinkEqualsSource();
    assertEquals(3, live().size());
  }
}
