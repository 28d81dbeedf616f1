package io.sluice.schema;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Applies a compatibility mode to a candidate schema and the earlier versions of its subject, delegating each
 * reader/writer question to the schema's format.
 *
 * <p>Answers are cached per ordered pair of canonical schemas, because a transitive mode asks the same questions about
 * stored versions again and again (a subject with 1,000 versions under FULL_TRANSITIVE asks 2,000 per registration).
 */
public final class CompatibilityChecker {
  /**
   * The cache's bound, in characters of the schema texts its keys hold (about a byte each) plus {@link #ENTRY_CHARS}
   * per entry: a bound on a count alone would let large schemas fill the heap, since each key holds both texts.
   */
  private static final long CACHE_LIMIT_CHARS = 4_000_000;
  private static final int ENTRY_CHARS = 128;

  private final Map<SchemaType, SchemaProvider> providers;
  private final Map<PairKey, List<Incompatibility>> cache = new ConcurrentHashMap<>();
  private long cachedChars;

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
    return check(level, CompatibilityPolicy.STRICT, candidate, previous);
  }

  /** As {@link #check(CompatibilityLevel, ParsedSchema, List)}, under a policy (which only JSON Schema uses). */
  public List<String> check(CompatibilityLevel level, CompatibilityPolicy policy, ParsedSchema candidate,
      List<Previous> previous) {
    return firstBroken(level, policy, candidate, previous)
        .map(broken -> {
          List<String> errors = new ArrayList<>();
          broken.incompatibilities().forEach(i -> errors.add(i.message()));
          errors.add("{oldSchemaVersion: " + broken.version() + "}");
          errors.add("{oldSchema: '" + broken.schema().canonical() + "'}");
          errors.add("{validateFields: 'false', compatibility: '" + level + "'}");
          return errors;
        })
        .orElse(List.of());
  }

  /** An earlier version the candidate cannot live with, and why. */
  public record Broken(int version, ParsedSchema schema, List<Incompatibility> incompatibilities) {}

  /**
   * The first earlier version (newest first) that {@code candidate} is incompatible with under {@code level}, with the
   * reasons; empty when it is compatible with every version the mode looks at.
   */
  public Optional<Broken> firstBroken(CompatibilityLevel level, CompatibilityPolicy policy, ParsedSchema candidate,
      List<Previous> previous) {
    if (level == CompatibilityLevel.NONE) {
      return Optional.empty();
    }
    for (Previous p : previous) {
      List<Incompatibility> errors = new ArrayList<>();
      if (p.schema().type() != candidate.type()) {
        errors.add(new Incompatibility("SCHEMA_TYPE_CHANGED", "", "Incompatible because of different schema type"));
      } else {
        if (level.newReadsOld) {
          errors.addAll(cached(candidate, p.schema(), true, policy));
        }
        if (level.oldReadsNew) {
          errors.addAll(cached(p.schema(), candidate, false, policy));
        }
      }
      if (!errors.isEmpty()) {
        return Optional.of(new Broken(p.version(), p.schema(), errors));
      }
      if (!level.transitive) {
        break;
      }
    }
    return Optional.empty();
  }

  /** Checks one pair directly, as {@code POST /compatibility/subjects/{s}/versions/{v}} does. */
  public List<String> checkOne(CompatibilityLevel level, CompatibilityPolicy policy, ParsedSchema candidate,
      Previous against) {
    return check(level, policy, candidate, List.of(against));
  }

  private List<Incompatibility> cached(ParsedSchema reader, ParsedSchema writer, boolean readerIsNew,
      CompatibilityPolicy policy) {
    PairKey key = new PairKey(reader.canonical(), writer.canonical(), reader.references(), writer.references(),
        readerIsNew, policy);
    List<Incompatibility> hit = cache.get(key);
    if (hit != null) {
      return hit;
    }
    SchemaProvider provider = providers.get(reader.type());
    List<Incompatibility> answer = List.copyOf(provider.readIncompatibilities(reader, writer, readerIsNew, policy));
    long chars = ENTRY_CHARS + (long) key.reader().length() + key.writer().length();
    synchronized (cache) {
      if (cachedChars + chars > CACHE_LIMIT_CHARS) {
        cache.clear();
        cachedChars = 0;
      }
      if (cache.putIfAbsent(key, answer) == null) {
        cachedChars += chars;
      }
    }
    return answer;
  }

  private record PairKey(String reader, String writer, List<SchemaReference> readerRefs,
      List<SchemaReference> writerRefs, boolean readerIsNew, CompatibilityPolicy policy) {}
}
