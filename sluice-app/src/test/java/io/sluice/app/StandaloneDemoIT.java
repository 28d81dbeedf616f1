package io.sluice.app;

import static io.sluice.app.PackagedSluice.freePort;
import static io.sluice.app.PackagedSluice.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.app.PackagedSluice.Run;
import io.sluice.connect.testing.Eventually;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./sluice demo} where no {@code sluice up} runs: it starts one in its own process and stops it with itself. A
 * class of its own, apart from {@link DemoFaultIT}, so that no other {@code sluice up} runs beside the one the demo
 * starts.
 */
class StandaloneDemoIT {
  private static final Duration WAIT = Duration.ofMinutes(4);

  @TempDir static Path dir;

  /** With no sluice up running, the demo starts one in its own process and stops it with itself. */
  @Test
  void withoutASluiceUpTheDemoStartsOneAndStopsIt() throws Exception {
    Path own = java.nio.file.Files.createDirectories(dir.resolve("standalone"));
    int connect = freePort();
    int registry = freePort();
    Path config = Files.writeString(own.resolve("sluice.yaml"), """
        kafka.port: %d
        connect.port: %d
        registry.port: %d
        metrics.port: %d
        alerts.port: %d
        exporter.port: %d
        ui.port: %d
        """.formatted(freePort(), connect, registry, freePort(), freePort(), freePort(), freePort()));
    String[] flags = {"--config", config.toString(), "--data-dir", own.resolve("data").toString()};
    List<String> args = new ArrayList<>(List.of("demo", "--rate", "50", "--source-port", "" + freePort(),
        "--sink-port", "" + freePort(), "--format", "avro"));
    args.addAll(List.of(flags));
    Path log = own.resolve("demo.out");
    Process demo = PackagedSluice.start(own, log, args);
    try {
      Eventually.await("the demo with its own sluice up says where to look", WAIT, () -> read(log),
          out -> out.contains("sluice demo: a shop under load") && out.contains("./sluice demo stop"));
      String out = read(log);
      assertTrue(out.contains("no sluice up at http://127.0.0.1:" + connect + ": starting one in this process"), out);
      assertTrue(out.contains("sluice ready"), out);
      assertTrue(out.contains("(avro)"), out);
      Run check = PackagedSluice.run(own, Stream.concat(Stream.of("demo", "--check", "--timeout", "150"),
          Stream.of(flags)).toArray(String[]::new));
      assertEquals(0, check.exit(), check::toString);
      // --format avro: the change events' schemas live in the registry, the sink read them through it.
      List<String> subjects = new io.sluice.registry.client.SchemaRegistryClient("http://127.0.0.1:" + registry)
          .subjects();
      assertTrue(subjects.containsAll(List.of("demo.public.orders-key", "demo.public.orders-value",
          "demo.public.order_lines-value")), subjects.toString());
      Run stop = PackagedSluice.run(own, Stream.concat(Stream.of("demo", "stop"), Stream.of(flags))
          .toArray(String[]::new));
      assertEquals(0, stop.exit(), stop::toString);
      assertTrue(demo.waitFor(120, TimeUnit.SECONDS), "the demo ends, with the sluice up it started");
      assertTrue(read(log).contains("stopping the sluice up the demo started"), read(log));
      assertTrue(isClosed(connect), "its Connect no longer listens");
    } finally {
      demo.destroy();
      demo.waitFor(60, TimeUnit.SECONDS);
    }
  }

  private static boolean isClosed(int port) {
    try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
      return false;
    } catch (java.io.IOException refused) {
      return true;
    }
  }}
