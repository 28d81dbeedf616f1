package io.sluice.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.app.PackagedSluice.Run;
import io.sluice.connect.client.ConnectRestClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * What the type matrices share ({@link TypeMatrixIT}, PostgreSQL to PostgreSQL; {@link MariaDbTypeMatrixIT}, the
 * directions with MariaDB): the formats, the known-loss patterns, the comparison of a column's values, the wait for a
 * sink to settle, the sink's state and dead letters for the report, and {@code sluice connectors apply}.
 */
final class TypeMatrix {
  private static final ObjectMapper JSON = new ObjectMapper();

  private TypeMatrix() {}

  /** A format's name and the converter class both sides of its pipeline use (null: the worker's default, JSON). */
  record Format(String name, String converter) {}

  static final List<Format> FORMATS = List.of(
      new Format("json", null),
      new Format("avro", "io.sluice.serde.connect.AvroConverter"),
      new Format("protobuf", "io.sluice.serde.connect.ProtobufConverter"),
      new Format("jsonschema", "io.sluice.serde.connect.JsonSchemaConverter"));

  /**
   * The reason {@code key} ({@code a/b/c…}) is a known loss: the first pattern of {@code known} of as many parts
   * whose every part is the key's or {@code *}; null where none matches.
   */
  static String known(Map<String, String> known, String key) {
    String[] have = key.split("/");
    for (Map.Entry<String, String> k : known.entrySet()) {
      String[] want = k.getKey().split("/");
      boolean match = want.length == have.length;
      for (int i = 0; match && i < want.length; i++) {
        match = want[i].equals("*") || want[i].equals(have[i]);
      }
      if (match) {
        return k.getValue();
      }
    }
    return null;
  }

  /** Why {@code have} (id → value text) is not {@code want}, or null where every row's value is equal. */
  static String difference(Map<Integer, String> want, Map<Integer, String> have) {
    if (!want.keySet().equals(have.keySet())) {
      Set<Integer> missing = new TreeSet<>(want.keySet());
      missing.removeAll(have.keySet());
      Set<Integer> extra = new TreeSet<>(have.keySet());
      extra.removeAll(want.keySet());
      return "rows missing " + missing + ", extra " + extra;
    }
    for (Map.Entry<Integer, String> w : want.entrySet()) {
      String h = have.get(w.getKey());
      if (!Objects.equals(w.getValue(), h)) {
        return "row " + w.getKey() + ": " + abbreviate(w.getValue()) + " arrives as " + abbreviate(h);
      }
    }
    return null;
  }

  static String abbreviate(String s) {
    return s == null ? "NULL" : s.length() > 60 ? s.substring(0, 60) + "… (" + s.length() + " chars)" : s;
  }

  /** A cell of a Markdown table. */
  static String cell(String s) {
    return s.replace("|", "\\|").replace("\n", " ");
  }

  /** How long a sink's tables stay unchanged before what is missing counts as not coming. */
  static final Duration QUIET = Duration.ofSeconds(45);

  /**
   * A sink the matrix waits for: its tables' {@code state} (null before rows came), whether every table has its last
   * row ({@code settled}), and whether its task failed ({@code failed}: what has not come will not).
   */
  record Settling(String name, Supplier<String> state, BooleanSupplier settled, BooleanSupplier failed) {}

  /**
   * Waits until {@code settled} (every table has its last row), or {@code failed} (the sink's task failed: what has
   * not come will not), or the tables' {@code state} stayed as it is for {@link #QUIET} once rows came ({@code state}
   * is null before: a last row the database refused is in the dead letter queue), or {@code limit} passed; what has
   * not come shows as missing rows.
   */
  static void awaitSettled(Supplier<String> state, BooleanSupplier settled, BooleanSupplier failed, Duration limit) {
    awaitSettled(List.of(new Settling("sink", state, settled, failed)), limit);
  }

  /**
   * Waits for every one of {@code sinks} at once, each as {@link #awaitSettled(Supplier, BooleanSupplier,
   * BooleanSupplier, Duration)} does, so that the quiet periods of sinks whose last row will not come run side by
   * side, not one after another; at most {@code limit} in all.
   */
  static void awaitSettled(List<Settling> sinks, Duration limit) {
    long deadline = System.nanoTime() + limit.toNanos();
    Map<Settling, String> last = new java.util.HashMap<>();
    Map<Settling, Long> since = new java.util.HashMap<>();
    List<Settling> waiting = new ArrayList<>(sinks);
    long start = System.nanoTime();
    while (!waiting.isEmpty() && System.nanoTime() < deadline) {
      for (java.util.Iterator<Settling> i = waiting.iterator(); i.hasNext(); ) {
        Settling s = i.next();
        if (s.settled().getAsBoolean() || s.failed().getAsBoolean()) {
          i.remove();
          continue;
        }
        String seen = s.state().get();
        if (!since.containsKey(s) || !Objects.equals(seen, last.get(s))) {
          last.put(s, seen);
          since.put(s, System.nanoTime());
        } else if (seen != null && System.nanoTime() - since.get(s) > QUIET.toNanos()) {
          i.remove();
        }
      }
      if (!waiting.isEmpty()) {
        io.sluice.connect.testing.ConnectClient.sleep(1000);
      }
    }
    System.out.printf("type matrix: %d sink(s) settled in %d s%s%n", sinks.size(),
        Duration.ofNanos(System.nanoTime() - start).toSeconds(),
        waiting.isEmpty() ? "" : "; still waiting for " + waiting.stream().map(Settling::name).toList());
  }

  /** The reasons of the records the sink sent to its dead letter queue, each with how many records it has. */
  static Map<String, Integer> deadLetters(String bootstrap, String sink) {
    Map<String, Integer> reasons = new TreeMap<>();
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(Map.of("bootstrap.servers", bootstrap),
        new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = c.partitionsFor(sink + ".dlq", Duration.ofSeconds(5))
          .stream().map(p -> new TopicPartition(p.topic(), p.partition())).toList();
      c.assign(partitions);
      c.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = c.endOffsets(partitions);
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (partitions.stream().anyMatch(tp -> c.position(tp) < end.get(tp)) && System.nanoTime() < deadline) {
        for (var r : c.poll(Duration.ofMillis(500))) {
          var h = r.headers().lastHeader("__connect.errors.exception.message");
          String reason = h == null ? "(no reason)" : new String(h.value(), StandardCharsets.UTF_8)
              .replaceAll("record at \\S+ ", "record ").lines().findFirst().orElse("");
          reasons.merge(reason.length() > 400 ? reason.substring(0, 400) + "…" : reason, 1, Integer::sum);
        }
      }
    } catch (RuntimeException noTopic) {
      // none sent
    }
    return reasons;
  }

  /** Whether the connector {@code name}'s first task has failed. */
  static boolean failed(ConnectRestClient connect, String name) {
    return connect.status(name).path("tasks").path(0).path("state").asText().equals("FAILED");
  }

  /** The sink connector's and task's state, with the task's error where it failed, and its dead letters. */
  static String sinkState(ConnectRestClient connect, String bootstrap, String name) {
    try {
      JsonNode status = connect.status(name);
      JsonNode task = status.path("tasks").path(0);
      Map<String, Integer> dead = deadLetters(bootstrap, name);
      return name + ": task " + task.path("state").asText() + ", "
          + dead.values().stream().mapToInt(Integer::intValue).sum() + " records in its dead letter queue"
          + dead.entrySet().stream().map(e -> "\n- " + e.getValue() + " × " + e.getKey()).reduce("", String::concat)
          + (task.has("trace") ? "; its root cause: " + task.path("trace").asText().lines()
              .filter(l -> l.startsWith("Caused by")).reduce((a, b) -> b).orElse("(none given)") : "") + "\n";
    } catch (RuntimeException e) {
      return name + ": " + e + "\n";
    }
  }

  /** {@code config} with both converters set to {@code format}'s, against the registry at {@code registryUrl}. */
  static Map<String, String> converted(Map<String, String> config, Format format, String registryUrl) {
    Map<String, String> c = new LinkedHashMap<>(config);
    if (format.converter() != null) {
      for (String side : List.of("key", "value")) {
        c.put(side + ".converter", format.converter());
        c.put(side + ".converter.schema.registry.url", registryUrl);
      }
    }
    return c;
  }

  /** {@code sluice connectors apply} of the connector {@code name} through the packaged launcher. */
  static Run apply(Path dir, String[] cluster, String name, Map<String, String> config) throws Exception {
    return applyAll(dir, cluster, Map.of(name, config));
  }

  /**
   * One {@code sluice connectors apply} of every connector of {@code configs}, a file each, in the map's order: one
   * JVM where a command per connector took some 1.5 s of CPU each.
   */
  static Run applyAll(Path dir, String[] cluster, Map<String, Map<String, String>> configs) throws Exception {
    List<String> args = new ArrayList<>(List.of("connectors", "apply"));
    for (Map.Entry<String, Map<String, String>> c : configs.entrySet()) {
      Path file = Files.writeString(dir.resolve(c.getKey() + ".json"),
          JSON.writeValueAsString(Map.of("name", c.getKey(), "config", c.getValue())));
      args.addAll(List.of("-f", file.toString()));
    }
    args.addAll(List.of(cluster));
    Run apply = PackagedSluice.run(dir, args.toArray(String[]::new));
    // Exit 5 is the CLI's "busy, nothing changed, try again": Connect still rebalancing after the CLI's own minute
    // of asking, which several applies at once on a loaded machine can reach; 6, part way, is the same met after the
    // first connectors were written, and applying the same files again completes the rest. A script tries again; so
    // does this.
    for (int tries = 1; (apply.exit() == 5 || apply.exit() == 6) && tries < 3; tries++) {
      apply = PackagedSluice.run(dir, args.toArray(String[]::new));
    }
    assertEquals(0, apply.exit(), apply::toString);
    return apply;
  }

  /**
   * Writes a matrix's report ({@code target/<name>.md}: the title, the score table, each sink's section) and keeps a
   * copy of the {@code sluice up}'s stderr beside it ({@code <name>-up.stderr}).
   */
  static void writeReport(String name, String title, String tableHeader, Map<String, String> scores,
      Map<String, String> report, PackagedSluice.Up up) throws java.io.IOException {
    Path out = Path.of("target", name + ".md");
    Files.createDirectories(out.getParent());
    StringBuilder md = new StringBuilder("# " + title + "\n\n" + tableHeader);
    scores.forEach((k, v) -> md.append("| ").append(k).append(" | ").append(v).append(" |\n"));
    md.append('\n');
    report.forEach((k, v) -> md.append("## ").append(k).append("\n\n").append(v).append('\n'));
    Files.writeString(out, md.toString());
    if (up != null) {
      Files.copy(up.stderr(), out.resolveSibling(name + "-up.stderr"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
  }
}
