package io.sluice.serde.testing;

import io.sluice.kafka.testing.SharedKafka;
import io.sluice.registry.SchemaRegistry;
import io.sluice.registry.client.SchemaRegistryClient;

/**
 * One Sluice schema registry per test JVM, on the shared broker, for the serde tests: each test names its own topics
 * (so its own subjects), so they share it as they share the broker.
 */
public final class SharedRegistry {
  private static SchemaRegistry registry;

  private SharedRegistry() {}

  public static synchronized String url() {
    if (registry == null) {
      registry = SchemaRegistry.builder().bootstrapServers(SharedKafka.bootstrapServers())
          .topic(SharedKafka.unique("_schemas")).port(0).start();
      Runtime.getRuntime().addShutdownHook(new Thread(registry::close, "shared-registry-stop"));
    }
    return registry.url();
  }

  public static SchemaRegistryClient client() {
    return new SchemaRegistryClient(url());
  }
}
