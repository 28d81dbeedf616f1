package io.sluice.registry.schema;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Applies a compatibility mode to a candidate schema and the earlier versions of its subject, delegating each
 * reader/writer question to the schema's format.
 *
 * <p>Answers are cached per ordered pair of canonical schemas, because a transitive mode asks the same questions about
 * stored versions again and again (a subject with 1,000 versions under FULL_TRANSITIVE asks 2,000 per registration).
 */
public final class CompatibilityChecker {
  private static final int CACHE_LIMIT = 200_000;

  private final Map<SchemaType, SchemaProvider> providers;
  private final Map<PairKey, List<String>> cache = new ConcurrentHashMap<>();

  public CompatibilityChecker(Map<SchemaType, SchemaProvider> providers) {
    this.providers = Map.copyOf(providers);
  }

  /** One earlier version of the subject. */
  public record Previous(int version, ParsedSchema schema) {}

  /**
   * Incompatibility messages in Confluent's shape, empty when {@code candidate} is acceptable. {@code previous} is
   * ordered newest first and already restricted to what the mode looks at (latest only, or all live versions).
   * Like Confluent, it stops at the first incompatible version and names it.
   */
  public List<String> check(CompatibilityLevel level, ParsedSchema candidate, List<Previous> previous) {
    if (level == CompatibilityLevel.NONE) {
      return List.of();
    }
    for (Previous p : previous) {
      List<String> errors = new ArrayList<>();
      if (p.schema().type() != candidate.type()) {
        errors.add("Incompatible because of different schema type");
      } else {
        if (level.newReadsOld) {
          errors.addAll(cached(candidate, p.schema(), true));
        }
        if (level.oldReadsNew) {
          errors.addAll(cached(p.schema(), candidate, false));
        }
      }
      if (!errors.isEmpty()) {
        errors.add("{oldSchemaVersion: " + p.version() + "}");
        errors.add("{oldSchema: '" + p.schema().canonical() + "'}");
        errors.add("{validateFields: 'false', compatibility: '" + level + "'}");
        return errors;
      }
      if (!level.transitive) {
        break;
      }
    }
    return List.of();
  }

  /** Checks one pair directly, as {@code POST /compatibility/subjects/{s}/versions/{v}} does. */
  public List<String> checkOne(CompatibilityLevel level, ParsedSchema candidate, Previous against) {
    return check(level, candidate, List.of(against));
  }

  private List<String> cached(ParsedSchema reader, ParsedSchema writer, boolean readerIsNew) {
    PairKey key = new PairKey(reader.canonical(), writer.canonical(), reader.references(), writer.references(), readerIsNew);
    List<String> hit = cache.get(key);
    if (hit != null) {
      return hit;
    }
    SchemaProvider provider = providers.get(reader.type());
    List<String> answer = List.copyOf(provider.readIncompatibilities(reader, writer, readerIsNew));
    if (cache.size() >= CACHE_LIMIT) {
      cache.clear();
    }
    cache.put(key, answer);
    return answer;
  }

  private record PairKey(
      String reader, String writer, List<SchemaReference> readerRefs, List<SchemaReference> writerRefs, boolean readerIsNew) {}
}
