package io.sluice.app.up;

import io.sluice.app.config.SluiceConfig;
import io.sluice.connect.ConnectRuntime;
import io.sluice.topics.KafkaCluster;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The whole stack in this one process: the {@link DataPlane} and the {@link ControlPlane} side by side, for the demo,
 * the benchmarks and the tests that want the platform in their own JVM. {@code sluice up} runs the two planes as
 * processes of their own instead ({@link Supervisor}), so that a connector exhausting memory cannot take the monitor
 * with it.
 *
 * <p>The control plane starts while the data plane does: its Kafka clients wait for the broker. Stopped control plane
 * first, so its last writes (silences, the leaving announcement) still reach the broker.
 */
public final class Platform implements AutoCloseable {
  private final Map<String, String> urls = new LinkedHashMap<>();
  private final DataPlane data;
  private final ControlPlane control;
  private boolean closed;

  private Platform(SluiceConfig config, Path pluginPath) {
    SluiceConfig pinned = Ports.pinned(config);
    WebSurfaces web = WebSurfaces.load(pinned);
    Map<String, String> dataUrls = DataPlane.expectedUrls(pinned, web.scheme());
    KafkaCluster cluster = pinned.kafkaCluster(dataUrls.get("kafka"));
    Starting<ControlPlane> controlStart = Starting.now("sluice-control-plane-start",
        () -> ControlPlane.start(pinned, web, cluster, dataUrls), ControlPlane::close);
    DataPlane started;
    try {
      started = DataPlane.start(pinned, pluginPath, web);
    } catch (RuntimeException e) {
      controlStart.abandon();
      throw e;
    }
    this.data = started;
    try {
      this.control = controlStart.join();
    } catch (RuntimeException e) {
      data.close();
      throw e;
    }
    urls.put("kafka", data.urls().get("kafka"));
    urls.putAll(control.urls());
    urls.putAll(data.urls());
  }

  /** Starts every component; returns once each one answers. */
  public static Platform start(SluiceConfig config, Path pluginPath) {
    return new Platform(config, pluginPath);
  }

  /** Component name → the address a client uses. */
  public Map<String, String> urls() {
    return Map.copyOf(urls);
  }

  public String bootstrapServers() {
    return data.cluster().bootstrapServers();
  }

  /** The Kafka cluster with the client security settings every client of this platform uses. */
  public KafkaCluster cluster() {
    return data.cluster();
  }

  public ConnectRuntime connect() {
    return data.connect();
  }

  /** The plugin folders of the distribution this code runs from. */
  public static Path bundledPlugins() {
    String home = System.getProperty("sluice.home");
    if (home != null) {
      return Path.of(home, "plugins");
    }
    try {
      Path jar = Path.of(Platform.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      return jar.getParent().getParent().resolve("plugins");
    } catch (URISyntaxException e) {
      return Path.of("plugins");
    }
  }

  /** The line printed once everything is ready. */
  public String readyLine() {
    return readyLine(urls);
  }

  /** {@code sluice ready name=address …}, the one line a script waits for. */
  static String readyLine(Map<String, String> urls) {
    StringBuilder sb = new StringBuilder("sluice ready");
    urls.forEach((k, v) -> sb.append(' ').append(k).append('=').append(v));
    return sb.toString();
  }

  /** {@code name=address …} as a ready line gives them after its first words. */
  public static Map<String, String> parseUrls(String rest) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String part : rest.trim().split(" ")) {
      int eq = part.indexOf('=');
      if (eq > 0) {
        out.put(part.substring(0, eq), part.substring(eq + 1));
      }
    }
    return out;
  }

  /** Stops the control plane, then the data plane; each failure is logged, the rest still stop. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      control.close();
    } finally {
      data.close();
    }
  }
}
