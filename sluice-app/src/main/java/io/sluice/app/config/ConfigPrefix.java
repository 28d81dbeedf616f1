package io.sluice.app.config;

/**
 * Raw settings of an engine Sluice runs, under a prefix of Sluice's and the engine's own names, handed to it as they
 * are: {@code connect.worker.producer.linger.ms: 5} is the Connect worker's {@code producer.linger.ms}.
 *
 * @param example a key under the prefix, with a value, as the reference shows it
 */
public record ConfigPrefix(String prefix, String doc, String example) implements ConfigDefinition {

  @Override
  public boolean covers(String key) {
    return key.startsWith(prefix) && key.length() > prefix.length();
  }
}
