package io.sluice.kafka.testing;

import io.sluice.kafka.EmbeddedKafka;
import io.sluice.kafka.ExitControl;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The one Kafka broker of a test JVM, started on first use and stopped when the JVM ends.
 *
 * <p>Tests share it to keep the suite fast; each test isolates itself by naming its own topics and groups with
 * {@link #unique(String)}.
 */
public final class SharedKafka {
  private static final AtomicInteger counter = new AtomicInteger();
  private static EmbeddedKafka kafka;

  private SharedKafka() {}

  public static synchronized EmbeddedKafka get() {
    if (kafka == null) {
      ExitControl.install((code, message) -> { });
      try {
        Path dir = Files.createTempDirectory("sluice-test-kafka");
        kafka = EmbeddedKafka.builder().dataDir(dir).port(0).start();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      EmbeddedKafka started = kafka;
      Runtime.getRuntime().addShutdownHook(new Thread(started::close, "shared-kafka-stop"));
    }
    return kafka;
  }

  public static String bootstrapServers() {
    return get().bootstrapServers();
  }

  /** A name no other test in this JVM uses: for topics, groups, connectors. */
  public static String unique(String prefix) {
    return prefix + "-" + ProcessHandle.current().pid() + "-" + counter.incrementAndGet();
  }
}
