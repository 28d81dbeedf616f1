package io.sluice.connect.testing;

import io.sluice.connect.ConnectRuntime;
import io.sluice.kafka.testing.SharedKafka;
import java.io.IOException;
import java.net.ServerSocket;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/** Connect workers on the shared broker, each test's cluster with its own group and internal topics. */
public final class TestWorkers {
  private TestWorkers() {}

  /** The plugin folders the build unpacked for the tests (one sub-folder per bundled connector). */
  public static Path pluginPath() {
    String p = System.getProperty("sluice.plugin.path");
    if (p == null) {
      throw new IllegalStateException("system property sluice.plugin.path not set: run the tests through Maven");
    }
    return Path.of(p);
  }

  /** A builder for one worker of the cluster named {@code cluster}; workers of one cluster share group and topics. */
  public static ConnectRuntime.Builder worker(String cluster, Path dataDir) {
    return ConnectRuntime.builder()
        .bootstrapServers(SharedKafka.bootstrapServers())
        .restPort(freePort())
        .groupId(cluster)
        .topics(cluster + "-offsets", cluster + "-configs", cluster + "-status", cluster + "-secrets")
        .pluginPath(pluginPath())
        .dataDir(dataDir);
  }

  public static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
