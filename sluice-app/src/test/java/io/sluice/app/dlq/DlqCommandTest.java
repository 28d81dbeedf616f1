package io.sluice.app.dlq;

import io.sluice.app.Main;
import io.sluice.app.cli.ExitCode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.kafka.testing.CheckedSends;
import io.sluice.kafka.testing.SharedKafka;
import io.sluice.ops.dlq.DeadLetterQueue;
import io.sluice.ops.dlq.ReplayClaim;
import io.sluice.ops.dlq.ReplayRequest;
import io.sluice.testing.RetainedHeap;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code sluice dlq} as a person or a script runs it, on a dead-letter topic holding records with Kafka Connect's
 * error headers (written here the way Connect's DLQ reporter writes them).
 */
class DlqCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static String original;
  private static String dlq;
  @TempDir static Path dataDir;

  @BeforeAll
  static void topics() throws Exception {
    original = SharedKafka.unique("cli-orders");
    dlq = SharedKafka.unique("cli-dlq");
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", SharedKafka.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(original, 1, (short) 1), new NewTopic(dlq, 1, (short) 1))).all().get();
    }
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(
        Map.of("bootstrap.servers", SharedKafka.bootstrapServers()), new StringSerializer(), new StringSerializer());
        CheckedSends<String, String> sends = CheckedSends.through(producer)) {
      send(sends, "{\"id\":1", 0, "VALUE_CONVERTER", "org.apache.kafka.connect.errors.DataException", "bad json");
      send(sends, "{\"id\":2", 1, "VALUE_CONVERTER", "org.apache.kafka.connect.errors.DataException", "bad json");
      send(sends, "{\"id\":3,\"qty\":\"x\"}", 2, "TRANSFORMATION", "org.apache.kafka.connect.errors.DataException",
          "cannot cast");
    }
  }

  private static void send(CheckedSends<String, String> sends, String value, long offset, String stage,
                           String exception, String message) {
    RecordHeaders h = new RecordHeaders();
    h.add("trace-id", "abc".getBytes(StandardCharsets.UTF_8));
    Map<String, String> context = Map.of("topic", original, "partition", "0", "offset", Long.toString(offset),
        "connector.name", "orders-sink", "task.id", "0", "stage", stage, "class.name", "x.Converter",
        "exception.class.name", exception, "exception.message", message, "exception.stacktrace", exception + ": "
            + message + "\n\tat x.Converter.toConnectData(Converter.java:1)");
    context.forEach((k, v) -> h.add("__connect.errors." + k, v.getBytes(StandardCharsets.UTF_8)));
    sends.send(new ProducerRecord<>(dlq, 0, null, "k" + offset, value, h));
  }

  record Run(int exit, String out, String err) {
    JsonNode json() throws Exception {
      return JSON.readTree(out);
    }
  }

  static Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    return run(out, args);
  }

  /** Runs with stdout going to {@code out}; the run's {@code out} is what that holds when it is a byte array. */
  static Run run(OutputStream out, String... args) {
    PrintStream stdout = System.out;
    PrintStream stderr = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      String[] all = new String[args.length + 6];
      System.arraycopy(args, 0, all, 0, args.length);
      all[args.length] = "--bootstrap";
      all[args.length + 1] = SharedKafka.bootstrapServers();
      // Nothing listens there: commands that can do without Connect must.
      all[args.length + 2] = "--connect-url";
      all[args.length + 3] = "http://127.0.0.1:1";
      all[args.length + 4] = "--data-dir";
      all[args.length + 5] = dataDir.toString();
      String[] line = new String[all.length + 1];
      line[0] = "dlq";
      System.arraycopy(all, 0, line, 1, all.length);
      int exit = Main.commandLine(line).execute(line);
      return new Run(exit, out instanceof ByteArrayOutputStream bytes ? bytes.toString(StandardCharsets.UTF_8) : "",
          err.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(stdout);
      System.setErr(stderr);
    }
  }

  @Test
  void inspectPrintsEachRecordAndTheCountsPerExceptionAndStage() throws Exception {
    Run table = run("inspect", dlq, "--from-beginning");
    assertEquals(0, table.exit(), table.err());
    assertTrue(table.out().contains("summary: 3 record(s) in " + dlq), table.out());
    assertTrue(table.out().matches("(?s).*org\\.apache\\.kafka\\.connect\\.errors\\.DataException\\s+VALUE_CONVERTER\\s+2\\s+0.*"),
        table.out());
    assertTrue(table.out().contains(original + "[0]@2"), table.out());

    JsonNode json = run("inspect", dlq, "-o", "json", "--filter", "stage=TRANSFORMATION").json();
    assertEquals(1, json.path("records").size());
    JsonNode r = json.path("records").get(0);
    assertEquals("cannot cast", r.path("error").path("exceptionMessage").asText());
    assertEquals(2, r.path("error").path("offset").asLong());
    assertEquals("abc", r.path("headers").path("trace-id").asText());
    assertEquals(1, json.path("summary").get(0).path("count").asInt());

    assertEquals(2, run("inspect", dlq, "-o", "json", "--max-messages", "2").json().path("records").size());
    Run bad = run("inspect", dlq, "--filter", "colour=red");
    assertEquals(ExitCode.REFUSED.code(), bad.exit());
    assertTrue(bad.err().startsWith("refused: bad filter field 'colour'"), bad.err());
    Run missing = run("inspect", SharedKafka.unique("no-such-topic"));
    assertEquals(ExitCode.REFUSED.code(), missing.exit());
    assertTrue(missing.err().contains("does not exist"), missing.err());
  }

  @Test
  void unwrapPrintsTheOriginalsOnePerLine() throws Exception {
    Run run = run("unwrap", dlq);
    assertEquals(0, run.exit(), run.err());
    assertEquals(List.of("{\"id\":1", "{\"id\":2", "{\"id\":3,\"qty\":\"x\"}"), run.out().lines().toList());
    JsonNode middle = run("unwrap", dlq, "-o", "json", "--sample", "1").json();
    assertEquals(1, middle.size());
    assertEquals(1, middle.get(0).path("offset").asInt(), "one sample from the middle of three");
    assertEquals("{\"id\":2", middle.get(0).path("value").asText(), "not JSON: as text");
    JsonNode json = run("unwrap", dlq, "-o", "json", "--filter", "stage=TRANSFORMATION").json();
    assertEquals(3, json.get(0).path("value").path("id").asInt(), "the JSON original as JSON");
    JsonNode matching = run("unwrap", dlq, "-o", "json", "--sample", "1", "--filter", "stage=VALUE_CONVERTER").json();
    assertEquals(1, matching.size());
    assertEquals(1, matching.get(0).path("offset").asInt(), "the second of the two matching, as spread over them");
    assertEquals(2, run("unwrap", dlq, "-o", "json", "--sample", "5", "--filter", "stage=VALUE_CONVERTER").json()
        .size(), "fewer matching than asked for: all of them");
    assertEquals("[ ]", run("unwrap", dlq, "-o", "json", "--filter", "stage=NONE").out().strip());
  }

  /**
   * Without --max-messages inspect and unwrap read the whole topic: what they hold must not grow with it. 64 MB of
   * dead letters pass through while the heap, measured when 80% of the output has been written, holds a fraction of
   * that (a list of the records, as before, held all of them until the first line was printed).
   */
  @Test
  void inspectAndUnwrapStreamAWholeTopicInMemoryThatDoesNotGrowWithIt() throws Exception {
    String big = SharedKafka.unique("cli-big-dlq");
    int records = 2_000;
    int size = 32 * 1024;
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", SharedKafka.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(big, 1, (short) 1))).all().get();
    }
    String pad = "x".repeat(size);
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(
        Map.of("bootstrap.servers", SharedKafka.bootstrapServers()), new StringSerializer(), new StringSerializer());
        CheckedSends<String, String> sends = CheckedSends.through(producer)) {
      for (int i = 0; i < records; i++) {
        sends.send(new ProducerRecord<>(big, 0, "k" + i, "{\"id\":" + i + ",\"pad\":\"" + pad + "\"}",
            new RecordHeaders()));
      }
    }
    for (String[] args : List.of(new String[] {"unwrap", big}, new String[] {"inspect", big, "-o", "json"},
        new String[] {"inspect", big})) {
      long before = RetainedHeap.bytes();
      long expected = (long) records * size * 8 / 10;
      long[] during = {-1};
      // The table shortens each record to a line: its 80% comes at 80% of the lines.
      boolean table = args.length == 2 && args[0].equals("inspect");
      OutputStream probe = new OutputStream() {
        long bytes;
        long lines;

        @Override
        public void write(int b) {
          write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) {
          bytes += len;
          for (int i = off; i < off + len; i++) {
            lines += b[i] == '\n' ? 1 : 0;
          }
          if (during[0] < 0 && (table ? lines >= records * 8 / 10 : bytes >= expected)) {
            during[0] = RetainedHeap.bytes();
          }
        }
      };
      Run run = run(probe, args);
      assertEquals(0, run.exit(), run.err());
      assertTrue(during[0] > 0, String.join(" ", args) + " wrote less than expected");
      long grown = during[0] - before;
      System.out.printf("%s: heap retained before %,d bytes, at 80%% of the output %,d (%+,d) for %,d MB read%n",
          String.join(" ", args), before, during[0], grown, (long) records * size >> 20);
      assertTrue(grown < 16L << 20, String.join(" ", args) + ": the heap grew by " + grown + " bytes while "
          + ((long) records * size >> 20) + " MB passed through");
    }
  }

  @Test
  void replayDryRunCountsAndBadTargetsFailClearly() throws Exception {
    JsonNode dry = run("replay", dlq, "--dry-run", "-o", "json").json();
    assertEquals(3, dry.path("replayed").asInt());
    assertEquals(3, dry.path("perTarget").path(original).asInt());
    Run missing = run("replay", dlq, "--to", SharedKafka.unique("absent"));
    assertEquals(ExitCode.REFUSED.code(), missing.exit());
    assertTrue(missing.err().contains("does not exist; create it first"), missing.err());
    Run rate = run("replay", dlq, "--rate", "fast");
    assertEquals(ExitCode.REFUSED.code(), rate.exit());
    assertTrue(rate.err().contains("--rate takes a number"), rate.err());

    Run real = run("replay", dlq, "--filter", "stage=TRANSFORMATION");
    assertEquals(0, real.exit(), real.err());
    assertTrue(real.out().startsWith("replayed 1 record(s) from " + dlq), real.out());
    assertTrue(real.out().contains("2 not matching the filter"), real.out());
    assertTrue(real.out().contains("offsets before this run saved to " + dataDir.resolve("backups/dlq")), real.out());
    assertTrue(real.out().contains("(group sluice-dlq-replay." + dlq + ".filter-"), real.out());

    // A replay commits past the records its filter passed over: another filter needs a group of its own, which it
    // gets by default, so it still finds its records; the first filter's group, run again, resumes after its one.
    Run other = run("replay", dlq, "--filter", "stage=VALUE_CONVERTER");
    assertEquals(0, other.exit(), other.err());
    assertTrue(other.out().startsWith("replayed 2 record(s) from " + dlq), other.out());
    Run again = run("replay", dlq, "--filter", "STAGE=TRANSFORMATION");
    assertEquals(0, again.exit(), again.err());
    assertTrue(again.out().startsWith("replayed 0 record(s) from " + dlq), again.out());
  }

  @Test
  void aReplayOfAGroupThatRunsElsewhereIsRefusedWithItsOwnExitStatus() throws Exception {
    String group = SharedKafka.unique("cli-lease");
    String target = SharedKafka.unique("cli-lease-target");
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", SharedKafka.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(target, 1, (short) 1))).all().get();
    }
    DeadLetterQueue elsewhere = DeadLetterQueue.builder().bootstrapServers(SharedKafka.bootstrapServers()).build();
    try (ReplayClaim running = elsewhere.claim(ReplayRequest.of(dlq).withGroup(group))) {
      Run refused = run("replay", dlq, "--group", group, "--to", target);
      assertEquals(ExitCode.BUSY.code(), refused.exit(), refused.err());
      assertTrue(refused.err().startsWith("error: another replay in group " + group + " is running"), refused.err());
      assertEquals(0, run("replay", dlq, "--group", group, "--dry-run").exit(), "a dry run is not refused");
    }
    Run after = run("replay", dlq, "--group", group, "--to", target);
    assertEquals(0, after.exit(), after.err());
    assertEquals(3, SharedKafka.readAll(target).size(), "the group is free once the other run ended");
  }

  @Test
  void statsWithoutConnectStillShowOffsetsAndSaysWhatIsMissing() throws Exception {
    Run run = run("stats", dlq, "-o", "json");
    assertEquals(0, run.exit(), run.err());
    JsonNode json = run.json();
    assertEquals(3, json.path("records").asInt());
    assertEquals(3, json.path("partitions").get(0).path("latest").asInt());
    assertEquals("orders-sink", json.path("sinks").get(0).path("connector").asText(), "named by the headers");
    assertTrue(json.path("warning").asText().contains("unreachable"), json.toString());
    Run all = run("stats");
    assertEquals(ExitCode.UNREACHABLE.code(), all.exit());
    assertTrue(all.err().contains("unreachable"), all.err());
  }
}
