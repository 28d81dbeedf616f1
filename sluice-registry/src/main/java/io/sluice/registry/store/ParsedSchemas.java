package io.sluice.registry.store;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.sluice.schema.ParsedSchema;

/**
 * The parsed forms of stored schemas by id, the least recently used dropped past a bound in estimated bytes. The
 * registry keeps only each schema's text: a parsed schema takes some twenty times as much, and only compatibility
 * checks and the Protobuf descriptor form need it, mostly for the latest versions of the subjects being written to.
 * Ids are never rebound, so an entry never goes stale.
 */
final class ParsedSchemas {
  private final Cache<Integer, ParsedSchema> cache;

  ParsedSchemas(long maxBytes) {
    // Evictions run on the caller's thread, so the bound holds as each entry goes in, not later in a pool.
    this.cache = Caffeine.newBuilder()
        .maximumWeight(maxBytes)
        .weigher((Integer id, ParsedSchema s) -> (int) Math.min(Integer.MAX_VALUE, estimatedBytes(s.canonical())))
        .executor(Runnable::run)
        .build();
  }

  /**
   * Heap a parsed schema takes, from its text. Measured on Avro, Protobuf and JSON Schema of 1 to 50 fields: 12 to 28
   * bytes per character of text plus about a kilobyte; the estimate errs high for all three.
   */
  static long estimatedBytes(String text) {
    return 1024 + 22L * text.length();
  }

  ParsedSchema get(int id) {
    return cache.getIfPresent(id);
  }

  void put(int id, ParsedSchema schema) {
    cache.put(id, schema);
  }
}
