package io.sluice.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.kafka.testing.SharedKafka;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Several registry nodes on one log: they agree on every id and version, and a restart loses nothing. */
class ClusterTest {
  private static final int SCHEMAS = 200;

  static String schema(int k) {
    return "{\"type\":\"record\",\"name\":\"S" + k + "\",\"namespace\":\"c\",\"fields\":[{\"name\":\"f\",\"type\":\"int\"}]}";
  }

  /** Two subjects per schema, so one schema is registered under several subjects and must keep one id. */
  static String subjectFor(int k, int pick) {
    return pick == 0 ? "alpha-" + (k % 10) : "beta-" + (k % 7);
  }

  @Test
  void twoNodesEightThreadsEachAgreeOnIds() throws Exception {
    String topic = SharedKafka.unique("_schemas");
    try (SchemaRegistry a = start(topic); SchemaRegistry b = start(topic)) {
      Http ha = new Http(a.url());
      Http hb = new Http(b.url());
      assertEquals(200, ha.put("/config", Map.of("compatibility", "NONE")).status());

      Map<Integer, Set<Integer>> idsBySchema = new ConcurrentHashMap<>();
      Map<String, Integer> registered = new ConcurrentHashMap<>();
      ExecutorService pool = Executors.newFixedThreadPool(16);
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 16; t++) {
        Http node = t % 2 == 0 ? ha : hb;
        long seed = t;
        futures.add(pool.submit(() -> {
          Random random = new Random(seed);
          for (int i = 0; i < 500; i++) {
            int k = random.nextInt(SCHEMAS);
            String subject = subjectFor(k, random.nextInt(2));
            Http.Answer r = node.register(subject, schema(k));
            assertEquals(200, r.status(), r.body());
            int id = r.json().get("id").asInt();
            idsBySchema.computeIfAbsent(k, x -> ConcurrentHashMap.newKeySet()).add(id);
            registered.put(subject + "/" + k, id);
          }
          return null;
        }));
      }
      for (Future<?> f : futures) {
        f.get(170, TimeUnit.SECONDS);
      }
      pool.shutdown();

      Set<Integer> allIds = new HashSet<>();
      for (Map.Entry<Integer, Set<Integer>> e : idsBySchema.entrySet()) {
        assertEquals(1, e.getValue().size(), "schema " + e.getKey() + " got ids " + e.getValue());
        assertTrue(allIds.add(e.getValue().iterator().next()), "id shared by two schemas: " + e.getValue());
      }

      // Reads are served from memory; give the other node time to read the last records, then compare.
      for (Http node : List.of(ha, hb)) {
        for (Map.Entry<String, Integer> e : registered.entrySet()) {
          String subject = e.getKey().substring(0, e.getKey().indexOf('/'));
          int k = Integer.parseInt(e.getKey().substring(e.getKey().indexOf('/') + 1));
          JsonNode found = eventually(node, "/subjects/" + subject, Map.of("schema", schema(k)));
          assertEquals((int) e.getValue(), found.get("id").asInt(), e.getKey());
        }
      }
      assertEquals(dump(ha), dump(hb));
    }
  }

  @Test
  void concurrentDeletesOnTwoNodesSucceedOnce() throws Exception {
    String topic = SharedKafka.unique("_schemas");
    try (SchemaRegistry a = start(topic); SchemaRegistry b = start(topic)) {
      Http ha = new Http(a.url());
      Http hb = new Http(b.url());
      ha.put("/config", Map.of("compatibility", "NONE"));
      int rounds = 20;
      for (int i = 0; i < rounds; i++) {
        ha.registerOk("del-" + i, schema(1000 + i));
      }
      ExecutorService pool = Executors.newFixedThreadPool(2);
      for (int i = 0; i < rounds; i++) {
        String path = "/subjects/del-" + i + "/versions/1";
        eventually(hb, "/subjects/del-" + i, Map.of("schema", schema(1000 + i)));
        Future<Http.Answer> fa = pool.submit(() -> ha.delete(path));
        Future<Http.Answer> fb = pool.submit(() -> hb.delete(path));
        List<Integer> statuses = new ArrayList<>(List.of(fa.get().status(), fb.get().status()));
        statuses.sort(null);
        // Exactly one node soft-deletes; the other sees that delete and answers 40406, never a second delete.
        assertEquals(List.of(200, 404), statuses, path);
        int code = fa.get().status() == 404 ? fa.get().errorCode() : fb.get().errorCode();
        assertEquals(40406, code);
      }
      pool.shutdown();
    }
  }

  @Test
  void restartRebuildsIdenticalState() {
    String topic = SharedKafka.unique("_schemas");
    Map<String, Object> before;
    try (SchemaRegistry a = start(topic)) {
      Http h = new Http(a.url());
      h.put("/config", Map.of("compatibility", "FULL"));
      h.registerOk("orders", schema(1));
      h.put("/config/orders", Map.of("compatibility", "NONE"));
      h.registerOk("orders", schema(2));
      h.registerOk("orders", schema(3));
      h.registerOk("payments", schema(2));
      h.delete("/subjects/orders/versions/2");
      h.registerOk("gone", schema(4));
      h.delete("/subjects/gone");
      h.delete("/subjects/gone?permanent=true");
      h.put("/mode/payments", Map.of("mode", "READONLY"));
      before = dump(h);
    }
    try (SchemaRegistry again = start(topic)) {
      Http h = new Http(again.url());
      assertEquals(before, dump(h));
      // Ids continue after the highest ever used, including the one of the hard-deleted subject.
      assertEquals(5, h.registerOk("fresh", schema(5)));
    }
  }

  static SchemaRegistry start(String topic) {
    return SchemaRegistry.builder().bootstrapServers(SharedKafka.bootstrapServers()).topic(topic).port(0).start();
  }

  private static JsonNode eventually(Http node, String path, Object body) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      Http.Answer a = node.post(path, body);
      if (a.status() == 200 || System.nanoTime() > deadline) {
        assertEquals(200, a.status(), a.body());
        return a.json();
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /** Everything a client can see: subjects, versions (deleted too), ids, schemas, configs, modes. */
  static Map<String, Object> dump(Http h) {
    Map<String, Object> out = new HashMap<>();
    out.put("config", h.get("/config").body());
    out.put("mode", h.get("/mode").body());
    for (JsonNode s : h.get("/subjects?deleted=true").json()) {
      String subject = s.asText();
      out.put(subject + "/versions", h.get("/subjects/" + subject + "/versions?deleted=true").body());
      for (JsonNode v : h.get("/subjects/" + subject + "/versions?deleted=true").json()) {
        out.put(subject + "/" + v.asInt(), h.get("/subjects/" + subject + "/versions/" + v.asInt() + "?deleted=true").body());
      }
      out.put(subject + "/config", h.get("/config/" + subject).body());
      out.put(subject + "/mode", h.get("/mode/" + subject).body());
    }
    out.put("subjects", h.get("/subjects").body());
    for (int id = 1; id <= 300; id++) {
      Http.Answer a = h.get("/schemas/ids/" + id);
      if (a.status() == 200) {
        out.put("id/" + id, a.body() + h.get("/schemas/ids/" + id + "/versions?deleted=true").body());
      }
    }
    return out;
  }
}
