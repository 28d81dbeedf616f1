package io.sluice.app.up;

import io.sluice.app.config.ConfigDefinitions;
import io.sluice.app.config.ConfigKey;
import io.sluice.app.config.SluiceConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Ports given as 0 ("any free one"), chosen once before anything starts: each plane must know where the other
 * answers before either is up, and a plane started again must come back where it was.
 */
final class Ports {
  /** Every port a component of {@code sluice up} listens on: every port of the table. */
  static final List<ConfigKey<Integer>> KEYS = ConfigDefinitions.ports();

  private Ports() {}

  /** {@code config} with a free port of {@code host} in place of every 0. */
  static SluiceConfig pinned(SluiceConfig config) {
    Map<String, String> values = new HashMap<>(config.values());
    boolean changed = false;
    for (ConfigKey<Integer> key : KEYS) {
      if (config.get(key) == 0) {
        values.put(key.name(), String.valueOf(free(config.host())));
        changed = true;
      }
    }
    return changed ? new SluiceConfig(values) : config;
  }

  private static int free(String host) {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(host))) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot find a free port on " + host, e);
    }
  }
}
