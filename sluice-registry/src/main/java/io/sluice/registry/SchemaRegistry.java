package io.sluice.registry;

import io.sluice.http.HttpServer;
import io.sluice.http.ServerOptions;
import io.sluice.registry.rest.RestApi;
import io.sluice.schema.CompatibilityChecker;
import io.sluice.schema.SchemaFormats;
import io.sluice.schema.SchemaProvider;
import io.sluice.schema.SchemaType;
import io.sluice.registry.store.KafkaLogStore;
import io.sluice.registry.store.RegistryState;
import io.sluice.schema.jsonschema.JsonSchemaProvider;
import io.sluice.topics.KafkaCluster;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Sluice's schema registry: a Confluent-compatible REST API over state rebuilt from a Kafka log.
 *
 * <pre>{@code
 * SchemaRegistry registry = SchemaRegistry.builder()
 *     .bootstrapServers("127.0.0.1:9092")
 *     .port(8081)
 *     .start();
 * }</pre>
 *
 * Any number of instances may share one topic: they agree on every id and version (see the module README).
 */
public final class SchemaRegistry implements AutoCloseable {
  /**
   * Parsed schemas kept for compatibility checks: about 1,500 Avro records of 20 fields (estimated 22 KB each), so a
   * FULL_TRANSITIVE subject of 1,000 such versions stays parsed.
   */
  public static final long DEFAULT_SCHEMA_CACHE_BYTES = 32L << 20;

  private final KafkaLogStore store;
  private final HttpServer server;

  private SchemaRegistry(KafkaLogStore store, HttpServer server) {
    this.store = store;
    this.server = server;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Base URL of the REST API, e.g. {@code http://127.0.0.1:8081}. */
  public String url() {
    return server.url();
  }

  public int port() {
    return server.port();
  }

  @Override
  public void close() {
    server.close();
    store.close();
  }

  /**
   * Options of the registry; it listens on 127.0.0.1:8081 and reads request bodies up to 8 MiB unless told
   * otherwise.
   */
  public static final class Builder extends ServerOptions.Settings<Builder> {
    private KafkaCluster cluster;
    private String topic = "_schemas";
    private Duration timeout = Duration.ofSeconds(30);
    private Clock clock = Clock.systemUTC();
    private Duration comparisonBudget = JsonSchemaProvider.DEFAULT_BUDGET;
    private long schemaCacheBytes = DEFAULT_SCHEMA_CACHE_BYTES;

    private Builder() {
      super(ServerOptions.loopback(8081, 8L << 20));
    }

    /** Kafka cluster holding the registry log; required. */
    public Builder bootstrapServers(String bootstrapServers) {
      this.cluster = KafkaCluster.of(bootstrapServers);
      return this;
    }

    /** The cluster holding the registry's log, with the client security it asks for. */
    public Builder cluster(KafkaCluster cluster) {
      this.cluster = cluster;
      return this;
    }

    /** The log topic; default {@code _schemas}. Created compacted with one partition when missing. */
    public Builder topic(String topic) {
      this.topic = topic;
      return this;
    }

    /** How long a request may wait for the log (reads to its end, appends); default 30 s. */
    public Builder timeout(Duration timeout) {
      this.timeout = timeout;
      return this;
    }

    /**
     * How long one compatibility comparison of a pair of schemas may take before the request answers an error
     * (500/50002) instead; measured with {@link #clock}. Default 5 s.
     */
    public Builder comparisonBudget(Duration comparisonBudget) {
      this.comparisonBudget = comparisonBudget;
      return this;
    }

    /**
     * How much heap the parsed schemas kept for compatibility checks may take (estimated from their text), default
     * 32 MiB. The registry keeps every schema as text; past this bound the least recently used parsed forms are
     * dropped and parsed again when a check needs them.
     */
    public Builder schemaCacheBytes(long schemaCacheBytes) {
      if (schemaCacheBytes < 0) {
        throw new IllegalArgumentException("schema cache bytes must not be negative: " + schemaCacheBytes);
      }
      this.schemaCacheBytes = schemaCacheBytes;
      return this;
    }

    /** The clock time budgets are measured with; default the system clock. */
    public Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    /** Reads the log to its end, then starts serving. */
    public SchemaRegistry start() {
      Objects.requireNonNull(cluster, "bootstrapServers");
      Map<SchemaType, SchemaProvider> providers = SchemaFormats.all(clock, comparisonBudget);
      RegistryState state = new RegistryState(providers, schemaCacheBytes);
      KafkaLogStore store = KafkaLogStore.start(cluster, topic, state, timeout);
      try {
        HttpServer server = RestApi.start(serverOptions(), state, store, providers,
            new CompatibilityChecker(providers));
        return new SchemaRegistry(store, server);
      } catch (RuntimeException e) {
        store.close();
        throw e;
      }
    }
  }
}
