package io.sluice.app.up;

import io.sluice.app.config.ConfigDefinitions;
import io.sluice.app.config.ConfigKey;
import io.sluice.app.config.SluiceConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Ports given as 0 ("any free one"), chosen once before anything starts: each plane must know where the other
 * answers before either is up, and a plane started again must come back where it was.
 */
public final class Ports {
  /** Every port a component of {@code sluice up} listens on: every port of the table. */
  static final List<ConfigKey<Integer>> KEYS = ConfigDefinitions.ports();

  private Ports() {}

  /**
   * Two components given the same port (0, a free port chosen at start, excepted), each as a sentence. Refused before
   * anything starts: the second to bind would fail, or worse, a Kafka client of the first would read another
   * component's HTTP answer as a frame length and fill its heap.
   */
  public static List<String> clashes(SluiceConfig config) {
    List<String> problems = new ArrayList<>();
    Map<Integer, String> taken = new LinkedHashMap<>();
    for (ConfigKey<Integer> key : KEYS) {
      if (key.equals(ConfigDefinitions.KAFKA_PORT) && config.externalKafka().isPresent()) {
        continue;   // No embedded broker: nothing binds it.
      }
      int port;
      try {
        port = config.get(key);
      } catch (SluiceConfig.ConfigException e) {
        continue;   // Refused by the table, listed there.
      }
      String other = port == 0 ? null : taken.putIfAbsent(port, key.name());
      if (other != null) {
        problems.add(other + " and " + key.name() + " are both " + port + ": each component needs a port of its own");
      }
    }
    return problems;
  }

  /**
   * {@code config} with a free port of {@code host} in place of every 0, none of them a port given to another
   * component or chosen a moment before (the kernel may hand a just-closed port out again).
   */
  static SluiceConfig pinned(SluiceConfig config) {
    Map<String, String> values = new HashMap<>(config.values());
    Set<Integer> used = new HashSet<>();
    for (ConfigKey<Integer> key : KEYS) {
      used.add(config.get(key));
    }
    boolean changed = false;
    for (ConfigKey<Integer> key : KEYS) {
      if (config.get(key) == 0) {
        int port = free(config.host(), used);
        used.add(port);
        values.put(key.name(), String.valueOf(port));
        changed = true;
      }
    }
    return changed ? new SluiceConfig(values) : config;
  }

  private static int free(String host, Set<Integer> used) {
    for (int attempt = 0; attempt < 100; attempt++) {
      try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(host))) {
        if (!used.contains(s.getLocalPort())) {
          return s.getLocalPort();
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot find a free port on " + host, e);
      }
    }
    throw new IllegalStateException("no free port on " + host + " besides those taken already");
  }
}
