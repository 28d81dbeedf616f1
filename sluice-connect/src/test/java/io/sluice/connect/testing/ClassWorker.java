package io.sluice.connect.testing;

import io.sluice.connect.ConnectRuntime;
import io.sluice.kafka.testing.SharedKafka;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A Connect worker of its own for one test class, on the shared broker ({@link TestWorkers#worker}): started before
 * the class's first test, closed after its last. Registered as {@code @RegisterExtension static final ClassWorker
 * WORKER = new ClassWorker("name")}; {@link #rest} talks to it.
 */
public final class ClassWorker implements BeforeAllCallback, AfterAllCallback {
  private final String cluster;
  private Path dataDir;
  private ConnectRuntime worker;
  private ConnectClient rest;

  /** {@code cluster} names the worker's group and internal topics, made unique on the shared broker. */
  public ClassWorker(String cluster) {
    this.cluster = cluster;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws IOException {
    dataDir = Files.createTempDirectory("sluice-worker-" + cluster);
    worker = TestWorkers.worker(SharedKafka.unique(cluster), dataDir).start();
    rest = new ConnectClient(worker.restUrl());
  }

  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    if (worker != null) {
      worker.close();
    }
    try (Stream<Path> files = Files.walk(dataDir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  public ConnectClient rest() {
    return rest;
  }
}
