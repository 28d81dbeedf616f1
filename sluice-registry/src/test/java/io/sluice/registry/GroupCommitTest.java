package io.sluice.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.kafka.testing.SharedKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;

/**
 * 64 clients registering at once on one node: their writes share appends (group commit), and every rule a write
 * decided alone keeps: a subject's versions in the order its client sent them, compatibility checked against the
 * latest version when the write lands, one id per schema however many subjects register it at once, and a node
 * replaying the log to the same state.
 */
class GroupCommitTest {
  private static final int CLIENTS = 64;
  private static final int VERSIONS = 8;
  private static final String SHARED = "{\"type\":\"record\",\"name\":\"Shared\",\"fields\":[{\"name\":\"s\",\"type\":\"int\"}]}";

  /** Version {@code v} of client {@code c}'s record: each adds an optional field, so BACKWARD accepts it. */
  static String version(int c, int v) {
    StringBuilder fields = new StringBuilder("{\"name\":\"id\",\"type\":\"long\"}");
    for (int i = 2; i <= v; i++) {
      fields.append(",{\"name\":\"f").append(i).append("\",\"type\":[\"null\",\"int\"],\"default\":null}");
    }
    return "{\"type\":\"record\",\"name\":\"C" + c + "\",\"fields\":[" + fields + "]}";
  }

  /** A field without a default added to version {@code v}: BACKWARD refuses it against v. */
  static String breaking(int c, int v) {
    return version(c, v).replace("]}", ",{\"name\":\"required\",\"type\":\"int\"}]}");
  }

  @Test
  void clientsAtOnceShareAppendsAndKeepEveryRule() throws Exception {
    String topic = SharedKafka.unique("_schemas");
    Map<String, Object> before;
    try (SchemaRegistry node = ClusterTest.start(topic)) {
      Http h = new Http(node.url());
      assertEquals(200, h.put("/config", Map.of("compatibility", "BACKWARD")).status());
      Set<Integer> sharedIds = ConcurrentHashMap.newKeySet();
      Map<Integer, List<Integer>> idsOfClient = new ConcurrentHashMap<>();
      CountDownLatch ready = new CountDownLatch(CLIENTS);
      ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
      List<Future<?>> futures = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        int client = c;
        futures.add(pool.submit(() -> {
          ready.countDown();
          ready.await();
          List<Integer> ids = new ArrayList<>();
          for (int v = 1; v <= VERSIONS; v++) {
            ids.add(h.registerOk("g-" + client, version(client, v)));
            if (v == VERSIONS / 2) {
              // Checked against the version just written, the latest when this write lands.
              Http.Answer refused = h.register("g-" + client, breaking(client, v));
              assertEquals(409, refused.status(), refused.body());
              sharedIds.add(h.registerOk("shared-" + client, SHARED));
            }
          }
          idsOfClient.put(client, ids);
          return null;
        }));
      }
      for (Future<?> f : futures) {
        f.get(170, TimeUnit.SECONDS);
      }
      pool.shutdown();

      assertEquals(1, sharedIds.size(), "one id for the schema 64 subjects registered at once: " + sharedIds);
      Set<Integer> all = new HashSet<>(sharedIds);
      for (int c = 0; c < CLIENTS; c++) {
        List<Integer> ids = idsOfClient.get(c);
        assertEquals(VERSIONS, new HashSet<>(ids).size());
        for (int v = 1; v <= VERSIONS; v++) {
          assertTrue(all.add(ids.get(v - 1)), "id " + ids.get(v - 1) + " given twice");
          JsonNode got = h.get("/subjects/g-" + c + "/versions/" + v).json();
          assertEquals((int) ids.get(v - 1), got.get("id").asInt());
          assertEquals(version(c, v), got.get("schema").asText(), "version " + v + " of client " + c);
        }
      }
      assertEquals(CLIENTS * VERSIONS + 1, all.size());
      assertTrue(recordsWrittenInGroups(topic) > 0, "no record was written as part of a group");
      before = ClusterTest.dump(h);
    }
    try (SchemaRegistry again = ClusterTest.start(topic)) {
      assertEquals(before, ClusterTest.dump(new Http(again.url())));
    }
  }

  /**
   * Three nodes, 24 clients each, all at once over 300 schemas and two subjects per schema: the nodes' groups collide
   * on the log, lose races as whole prefixes, and still agree on one id per schema and on everything else.
   */
  @Test
  void threeNodesWritingInGroupsAgreeOnEveryId() throws Exception {
    String topic = SharedKafka.unique("_schemas");
    try (SchemaRegistry a = ClusterTest.start(topic); SchemaRegistry b = ClusterTest.start(topic);
        SchemaRegistry c = ClusterTest.start(topic)) {
      List<Http> nodes = List.of(new Http(a.url()), new Http(b.url()), new Http(c.url()));
      assertEquals(200, nodes.get(0).put("/config", Map.of("compatibility", "NONE")).status());
      Map<Integer, Set<Integer>> idsBySchema = new ConcurrentHashMap<>();
      ExecutorService pool = Executors.newFixedThreadPool(72);
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 72; t++) {
        Http node = nodes.get(t % 3);
        java.util.Random random = new java.util.Random(t);
        futures.add(pool.submit(() -> {
          for (int i = 0; i < 60; i++) {
            int k = random.nextInt(300);
            Http.Answer r = node.register(ClusterTest.subjectFor(k, random.nextInt(2)), ClusterTest.schema(k));
            assertEquals(200, r.status(), r.body());
            idsBySchema.computeIfAbsent(k, x -> ConcurrentHashMap.newKeySet()).add(r.json().get("id").asInt());
          }
          return null;
        }));
      }
      for (Future<?> f : futures) {
        f.get(170, TimeUnit.SECONDS);
      }
      pool.shutdown();
      Set<Integer> all = new HashSet<>();
      for (Map.Entry<Integer, Set<Integer>> e : idsBySchema.entrySet()) {
        assertEquals(1, e.getValue().size(), "schema " + e.getKey() + " got ids " + e.getValue());
        assertTrue(all.add(e.getValue().iterator().next()), "id shared by two schemas: " + e.getValue());
      }
      assertTrue(recordsWrittenInGroups(topic) > 0, "no record was written as part of a group");
      // The nodes read the last records in their own time; then everything a client can see is the same on all.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      Map<String, Object> first = ClusterTest.dump(nodes.get(0));
      for (Http node : nodes.subList(1, 3)) {
        Map<String, Object> other = ClusterTest.dump(node);
        while (!other.equals(first) && System.nanoTime() < deadline) {
          Thread.sleep(200);
          first = ClusterTest.dump(nodes.get(0));
          other = ClusterTest.dump(node);
        }
        assertEquals(first, other);
      }
    }
  }

  /** Records of the log that name a group of writes. */
  private static int recordsWrittenInGroups(String topic) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafka.bootstrapServers());
    TopicPartition tp = new TopicPartition(topic, 0);
    int grouped = 0;
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
        new ByteArrayDeserializer())) {
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      long end = c.endOffsets(List.of(tp)).get(tp);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (c.position(tp) < end && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          if (new String(r.value(), StandardCharsets.UTF_8).contains("\"batch\"")) {
            grouped++;
          }
        }
      }
    }
    return grouped;
  }
}
