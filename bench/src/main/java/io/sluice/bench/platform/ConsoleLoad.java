package io.sluice.bench.platform;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.console.auth.Accounts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The console's data endpoints against the packaged {@code ./sluice up} holding a large inventory: 200 connectors
 * (stopped JDBC sinks, created with Connect's {@code initial_state}, so they cost config and status but no task),
 * 1,000 topics on the embedded broker (five read by each sink) and 5,000 registry subjects. Each endpoint a page calls
 * is timed from a client on the same machine over loopback (the server's time plus one local round trip): the first
 * call (nothing cached), then the median, 95th percentile and maximum of the next ones, at one call per
 * {@code interval} ms (a page refreshes every 15 s; the interval is shorter so that a cache of a few seconds is hit and
 * missed alike).
 *
 * <p>{@code bench/run ConsoleLoad [connectors] [topics] [subjects] [runs] [interval-ms]}
 */
public final class ConsoleLoad {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  public static void main(String[] args) throws Exception {
    int connectors = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    int topics = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
    int subjects = args.length > 2 ? Integer.parseInt(args[2]) : 5000;
    int runs = args.length > 3 ? Integer.parseInt(args[3]) : 30;
    long interval = args.length > 4 ? Long.parseLong(args[4]) : 700;
    Path root = Path.of(System.getProperty("sluice.root", "."));
    Path data = Files.createTempDirectory("console-load");
    Accounts.in(data.resolve("ui")).setPassword("admin", "bench-password");
    PackagedUp up = PackagedUp.start(root, data);
    try {
      long t0 = System.nanoTime();
      String kafka = "127.0.0.1:" + up.ports().get("kafka");
      try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka))) {
        for (int from = 0; from < topics; from += 250) {
          List<NewTopic> batch = new ArrayList<>();
          for (int i = from; i < Math.min(topics, from + 250); i++) {
            batch.add(new NewTopic(topic(i), 1, (short) 1));
          }
          admin.createTopics(batch).all().get();
        }
      }
      try (KafkaProducer<String, String> p = new KafkaProducer<>(Map.of("bootstrap.servers", kafka, "linger.ms", "20"),
          new StringSerializer(), new StringSerializer())) {
        for (int i = 0; i < 10_000; i++) {
          p.send(new ProducerRecord<>(topic(0), "k" + i, "{\"id\":" + i + ",\"item\":\"item-" + i + "\"}"));
        }
      }
      System.out.printf("%,d topics in %.1f s%n", topics, (System.nanoTime() - t0) / 1e9);
      t0 = System.nanoTime();
      ExecutorService pool = Executors.newFixedThreadPool(8);
      List<Future<?>> work = new ArrayList<>();
      String connect = up.url("connect");
      for (int c = 0; c < connectors; c++) {
        int n = c;
        work.add(pool.submit(() -> {
          List<String> reads = new ArrayList<>();
          for (int t = 0; t < 5; t++) {
            reads.add(topic((n * 5 + t) % topics));
          }
          Map<String, Object> body = Map.of("name", connector(n), "initial_state", "STOPPED", "config", Map.of(
              "connector.class", "io.debezium.connector.jdbc.JdbcSinkConnector",
              "connection.url", "jdbc:postgresql://127.0.0.1:1/bench", "topics", String.join(",", reads),
              "tasks.max", "1"));
          HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(connect + "/connectors"))
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build());
          if (r.statusCode() != 201) {
            throw new IllegalStateException("create " + connector(n) + ": " + r.statusCode() + " " + r.body());
          }
          return null;
        }));
      }
      for (Future<?> f : work) {
        f.get();
      }
      System.out.printf("%,d connectors in %.1f s%n", connectors, (System.nanoTime() - t0) / 1e9);
      t0 = System.nanoTime();
      work.clear();
      String registry = up.url("registry");
      String schema = JSON.writeValueAsString(Map.of("schema",
          "{\"type\":\"record\",\"name\":\"Row\",\"fields\":[{\"name\":\"id\",\"type\":\"int\"}]}"));
      for (int s = 0; s < subjects; s++) {
        int n = s;
        work.add(pool.submit(() -> {
          HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(registry + "/subjects/" + subject(n)
              + "/versions")).header("Content-Type", "application/vnd.schemaregistry.v1+json")
              .POST(HttpRequest.BodyPublishers.ofString(schema)).build());
          if (r.statusCode() != 200) {
            throw new IllegalStateException("register " + subject(n) + ": " + r.statusCode() + " " + r.body());
          }
          return null;
        }));
      }
      for (Future<?> f : work) {
        f.get();
      }
      pool.shutdown();
      System.out.printf("%,d subjects in %.1f s%n", subjects, (System.nanoTime() - t0) / 1e9);

      String ui = up.url("ui");
      String session = login(ui);
      // The overview reads the metrics: wait until a scrape has every connector in it.
      long deadline = System.nanoTime() + 180_000_000_000L;
      int seen = 0;
      while (System.nanoTime() < deadline) {
        JsonNode rows = JSON.readTree(get(ui + "/api/connectors", session).body()).path("connectors");
        seen = rows.size();
        if (seen >= connectors) {
          break;
        }
        Thread.sleep(2000);
      }
      System.out.printf("overview lists %d connectors%n", seen);

      Map<String, String> endpoints = new LinkedHashMap<>();
      endpoints.put("connectors (overview)", "/api/connectors");
      endpoints.put("connector (detail)", "/api/connector?name=" + connector(7));
      endpoints.put("topics", "/api/topics");
      endpoints.put("topic", "/api/topic?name=" + topic(0));
      endpoints.put("topic messages (end, 50)", "/api/topic/messages?name=" + topic(0) + "&from=end");
      endpoints.put("topic messages (start, 50)", "/api/topic/messages?name=" + topic(0) + "&from=start");
      endpoints.put("groups", "/api/groups");
      endpoints.put("subjects (page 1)", "/api/subjects?page=1");
      endpoints.put("subjects (filtered)", "/api/subjects?q=bench-s-42&page=1");
      endpoints.put("subject", "/api/subject?name=" + subject(4242));
      endpoints.put("pipeline", "/api/pipeline?name=" + connector(7));
      endpoints.put("reconcile state", "/api/reconcile?name=" + connector(7));
      System.out.printf("%n| endpoint | first ms | median ms | p95 ms | max ms |%n|---|---:|---:|---:|---:|%n");
      for (Map.Entry<String, String> e : endpoints.entrySet()) {
        double first = time(ui + e.getValue(), session);
        double[] t = new double[runs];
        for (int i = 0; i < runs; i++) {
          Thread.sleep(interval);
          t[i] = time(ui + e.getValue(), session);
        }
        Arrays.sort(t);
        System.out.printf("| %s `%s` | %.0f | %.0f | %.0f | %.0f |%n", e.getKey(), e.getValue().replaceAll("\\?.*",
            ""), first, t[t.length / 2], t[(int) Math.ceil(t.length * 0.95) - 1], t[t.length - 1]);
      }
      System.out.println("load average after: " + Files.readString(Path.of("/proc/loadavg")).trim());
    } finally {
      up.stop();
    }
  }

  static String topic(int i) {
    return String.format("bench.t.%04d", i);
  }

  static String connector(int i) {
    return String.format("bench-sink-%03d", i);
  }

  static String subject(int i) {
    return String.format("bench-s-%04d-value", i);
  }

  private static double time(String url, String session) throws Exception {
    long t0 = System.nanoTime();
    HttpResponse<String> r = get(url, session);
    double ms = (System.nanoTime() - t0) / 1e6;
    if (r.statusCode() != 200) {
      throw new IllegalStateException(url + ": " + r.statusCode() + " " + r.body());
    }
    return ms;
  }

  private static HttpResponse<String> get(String url, String session) throws Exception {
    return send(HttpRequest.newBuilder(URI.create(url)).header("Cookie", "sluice_session=" + session).build());
  }

  private static HttpResponse<String> send(HttpRequest r) throws Exception {
    return HTTP.send(r, HttpResponse.BodyHandlers.ofString());
  }

  private static String login(String ui) throws Exception {
    HttpResponse<String> form = send(HttpRequest.newBuilder(URI.create(ui + "/login")).build());
    String cookie = form.headers().firstValue("Set-Cookie").orElseThrow().split(";")[0];
    Matcher m = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(form.body());
    m.find();
    HttpResponse<String> in = send(HttpRequest.newBuilder(URI.create(ui + "/login")).header("Cookie", cookie)
        .header("Content-Type", "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString(
            "csrf=" + m.group(1) + "&user=admin&password=bench-password")).build());
    return in.headers().firstValue("Set-Cookie").orElseThrow().split(";")[0].split("=", 2)[1];
  }
}
