package io.sluice.registry.store;

import io.sluice.schema.CompatibilityLevel;
import io.sluice.schema.CompatibilityPolicy;
import io.sluice.schema.Dependency;
import io.sluice.schema.InvalidSchemaException;
import io.sluice.schema.ParsedSchema;
import io.sluice.schema.SchemaProvider;
import io.sluice.schema.SchemaReference;
import io.sluice.schema.SchemaType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The registry as the log describes it up to {@link #nextOffset()}: subjects and their versions, schemas by id,
 * configs and modes. Only the log reader changes it ({@link #apply}); everyone else reads.
 *
 * <p>Reads of a schema by id go through a concurrent map without the lock: it is the hot path.
 */
public final class RegistryState {
  private static final Logger log = LoggerFactory.getLogger(RegistryState.class);

  /** One version of one subject. */
  public record Version(String subject, int version, int id, boolean deleted) {}

  /** A schema with its id, parsed once when it first appeared in the log. */
  public record StoredSchema(int id, ParsedSchema schema) {}

  /** What makes two registrations the same schema. */
  public record SchemaKey(SchemaType type, String canonical, List<SchemaReference> references) {
    public static SchemaKey of(ParsedSchema s) {
      return new SchemaKey(s.type(), s.canonical(), s.references());
    }
  }

  private final Map<SchemaType, SchemaProvider> providers;
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private final Object progress = new Object();

  private final Map<String, TreeMap<Integer, Version>> subjects = new HashMap<>();
  private final Map<Integer, StoredSchema> byId = new ConcurrentHashMap<>();
  /** Ids stay bound to their schema for good, so a schema deleted and registered again gets its old id back. */
  private final Map<SchemaKey, Integer> idByKey = new HashMap<>();
  private final Map<Integer, StoredSchema> everParsed = new HashMap<>();
  private final Map<Integer, Integer> liveReferences = new HashMap<>();
  private final Map<String, CompatibilityLevel> configs = new HashMap<>();
  private final Map<String, Mode> modes = new HashMap<>();
  private final Map<String, CompatibilityPolicy> policies = new HashMap<>();
  private CompatibilityLevel globalConfig;
  private CompatibilityPolicy globalPolicy;
  private Mode globalMode;
  private int maxId;
  private volatile long nextOffset;

  public RegistryState(Map<SchemaType, SchemaProvider> providers) {
    this.providers = Map.copyOf(providers);
  }

  // ---- reads ----

  /** Runs {@code body} against one consistent state; nested reads inside it see the same state. */
  public <T> T read(Supplier<T> body) {
    lock.readLock().lock();
    try {
      return body.get();
    } finally {
      lock.readLock().unlock();
    }
  }

  /** The offset of the first log record not yet applied. */
  public long nextOffset() {
    return nextOffset;
  }

  public Optional<StoredSchema> schemaById(int id) {
    return Optional.ofNullable(byId.get(id));
  }

  /** The schema an id was ever bound to, even if every version holding it is gone: ids are never rebound. */
  public Optional<StoredSchema> schemaEverBoundTo(int id) {
    return read(() -> Optional.ofNullable(everParsed.get(id)));
  }

  public Optional<Integer> idOf(SchemaKey key) {
    return read(() -> Optional.ofNullable(idByKey.get(key)));
  }

  public int maxId() {
    return read(() -> maxId);
  }

  /** Subjects with a live version, or with any version at all when {@code includeDeleted}. Sorted. */
  public List<String> subjects(boolean includeDeleted) {
    return read(() -> {
      List<String> out = new ArrayList<>();
      for (Map.Entry<String, TreeMap<Integer, Version>> e : new TreeMap<>(subjects).entrySet()) {
        if (includeDeleted ? !e.getValue().isEmpty() : e.getValue().values().stream().anyMatch(v -> !v.deleted())) {
          out.add(e.getKey());
        }
      }
      return out;
    });
  }

  /** Versions of a subject, ascending; soft-deleted ones only when asked. Empty when the subject has none. */
  public List<Version> versions(String subject, boolean includeDeleted) {
    return read(() -> {
      TreeMap<Integer, Version> vs = subjects.get(subject);
      if (vs == null) {
        return List.of();
      }
      List<Version> out = new ArrayList<>();
      for (Version v : vs.values()) {
        if (includeDeleted || !v.deleted()) {
          out.add(v);
        }
      }
      return out;
    });
  }

  public Optional<Version> version(String subject, int version) {
    return read(() -> {
      TreeMap<Integer, Version> vs = subjects.get(subject);
      return Optional.ofNullable(vs == null ? null : vs.get(version));
    });
  }

  /** The highest version number a subject holds, deleted or not; 0 when none. */
  public int highestVersion(String subject) {
    return read(() -> {
      TreeMap<Integer, Version> vs = subjects.get(subject);
      return vs == null || vs.isEmpty() ? 0 : vs.lastKey();
    });
  }

  /** Every (subject, version) that holds schema {@code id}. */
  public List<Version> versionsOfId(int id, boolean includeDeleted) {
    return read(() -> {
      List<Version> out = new ArrayList<>();
      for (String s : new TreeSet<>(subjects.keySet())) {
        for (Version v : subjects.get(s).values()) {
          if (v.id() == id && (includeDeleted || !v.deleted())) {
            out.add(v);
          }
        }
      }
      return out;
    });
  }

  /** Ids of the live versions whose schemas reference {@code subject} at {@code version}. */
  public List<Integer> referencedBy(String subject, int version) {
    return read(() -> {
      Set<Integer> out = new TreeSet<>();
      for (TreeMap<Integer, Version> vs : subjects.values()) {
        for (Version v : vs.values()) {
          StoredSchema s = byId.get(v.id());
          if (!v.deleted() && s != null) {
            for (SchemaReference r : s.schema().references()) {
              if (r.subject().equals(subject) && r.version() == version) {
                out.add(v.id());
              }
            }
          }
        }
      }
      return List.copyOf(out);
    });
  }

  public Optional<CompatibilityLevel> subjectConfig(String subject) {
    return read(() -> Optional.ofNullable(configs.get(subject)));
  }

  public Optional<CompatibilityLevel> globalConfig() {
    return read(() -> Optional.ofNullable(globalConfig));
  }

  public Optional<CompatibilityPolicy> subjectPolicy(String subject) {
    return read(() -> Optional.ofNullable(policies.get(subject)));
  }

  public Optional<CompatibilityPolicy> globalPolicy() {
    return read(() -> Optional.ofNullable(globalPolicy));
  }

  public Optional<Mode> subjectMode(String subject) {
    return read(() -> Optional.ofNullable(modes.get(subject)));
  }

  public Optional<Mode> globalMode() {
    return read(() -> Optional.ofNullable(globalMode));
  }

  /**
   * The texts of a schema's references, transitively, each after what it depends on; what a parser needs. Throws
   * {@link IllegalArgumentException} naming a reference that does not resolve.
   */
  public List<Dependency> dependencies(List<SchemaReference> references) {
    return read(() -> {
      LinkedHashSet<Dependency> out = new LinkedHashSet<>();
      collect(references, out, 0);
      return List.copyOf(out);
    });
  }

  private void collect(List<SchemaReference> references, Set<Dependency> out, int depth) {
    if (depth > 32) {
      throw new IllegalArgumentException("references nest deeper than 32 levels");
    }
    for (SchemaReference r : references) {
      TreeMap<Integer, Version> vs = subjects.get(r.subject());
      Version v = vs == null ? null : vs.get(r.version());
      StoredSchema s = v == null ? null : everParsed.get(v.id());
      if (s == null) {
        throw new IllegalArgumentException(
            "reference " + r.name() + " to subject " + r.subject() + " version " + r.version() + " not found");
      }
      collect(s.schema().references(), out, depth + 1);
      out.add(new Dependency(r.name(), s.schema().type(), s.schema().canonical()));
    }
  }

  // ---- progress ----

  /** Blocks until every record below {@code offset} is applied; false on timeout. */
  public boolean awaitApplied(long offset, long timeoutMs) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    synchronized (progress) {
      while (nextOffset < offset) {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0) {
          return false;
        }
        progress.wait(left);
      }
      return true;
    }
  }

  /**
   * The reader has consumed the log up to (not including) {@code offset}, which may skip offsets that hold no record
   * for it. Moved under the write lock so that whoever holds the read lock sees a state and an offset that belong
   * together.
   */
  void advanceTo(long offset) {
    lock.writeLock().lock();
    try {
      if (offset <= nextOffset) {
        return;
      }
      nextOffset = offset;
    } finally {
      lock.writeLock().unlock();
    }
    signal();
  }

  /**
   * Applies the record at {@code offset}. It takes effect only if its writer decided it against exactly the state
   * before it ({@code expectedOffset == offset}); a record decided against an older state lost a race and is skipped.
   * Every node makes the same call for the same record, so all agree.
   *
   * @return whether the record took effect
   */
  boolean apply(long offset, long expectedOffset, LogEvent event) {
    boolean accepted = event != null && expectedOffset == offset;
    lock.writeLock().lock();
    try {
      if (offset < nextOffset) {
        return false;
      }
      if (accepted) {
        applyAccepted(event);
      }
      nextOffset = offset + 1;
    } finally {
      lock.writeLock().unlock();
    }
    signal();
    return accepted;
  }

  private void signal() {
    synchronized (progress) {
      progress.notifyAll();
    }
  }

  private void applyAccepted(LogEvent event) {
    if (event instanceof LogEvent.Registered r) {
      register(r);
    } else if (event instanceof LogEvent.VersionDeleted d) {
      TreeMap<Integer, Version> vs = subjects.get(d.subject());
      Version v = vs == null ? null : vs.get(d.version());
      if (v != null) {
        if (d.permanent()) {
          vs.remove(d.version());
          release(v.id());
          if (vs.isEmpty()) {
            subjects.remove(d.subject());
          }
        } else {
          vs.put(d.version(), new Version(v.subject(), v.version(), v.id(), true));
          if (vs.values().stream().allMatch(Version::deleted)) {
            forgetSettings(d.subject());
          }
        }
      }
    } else if (event instanceof LogEvent.SubjectDeleted d) {
      TreeMap<Integer, Version> vs = subjects.get(d.subject());
      if (vs != null) {
        if (d.permanent()) {
          subjects.remove(d.subject());
          vs.values().forEach(v -> release(v.id()));
        } else {
          vs.replaceAll((k, v) -> new Version(v.subject(), v.version(), v.id(), true));
          forgetSettings(d.subject());
        }
      }
    } else if (event instanceof LogEvent.ConfigSet c) {
      if (c.subject() == null) {
        globalConfig = c.level();
        globalPolicy = c.policy();
      } else {
        putOrRemove(configs, c.subject(), c.level());
        putOrRemove(policies, c.subject(), c.policy());
      }
    } else if (event instanceof LogEvent.ModeSet m) {
      if (m.subject() == null) {
        globalMode = m.mode();
      } else if (m.mode() == null) {
        modes.remove(m.subject());
      } else {
        modes.put(m.subject(), m.mode());
      }
    }
  }

  /** As in Confluent, a subject left without live versions loses its own compatibility level and mode. */
  private void forgetSettings(String subject) {
    configs.remove(subject);
    policies.remove(subject);
    modes.remove(subject);
  }

  private static <V> void putOrRemove(Map<String, V> map, String key, V value) {
    if (value == null) {
      map.remove(key);
    } else {
      map.put(key, value);
    }
  }

  private void register(LogEvent.Registered r) {
    StoredSchema stored = everParsed.get(r.id());
    if (stored == null) {
      SchemaProvider provider = providers.get(r.type());
      if (provider == null) {
        log.warn("log holds a {} schema (id {}) and this node has no parser for it; skipped", r.type(), r.id());
        return;
      }
      try {
        ParsedSchema parsed = provider.parse(r.schema(), r.references(), dependencies(r.references()));
        stored = new StoredSchema(r.id(), parsed);
      } catch (InvalidSchemaException | IllegalArgumentException e) {
        log.warn("log holds schema id {} that does not parse here: {}; skipped", r.id(), e.getMessage());
        return;
      }
      everParsed.put(r.id(), stored);
      idByKey.putIfAbsent(SchemaKey.of(stored.schema()), r.id());
    }
    maxId = Math.max(maxId, r.id());
    TreeMap<Integer, Version> vs = subjects.computeIfAbsent(r.subject(), s -> new TreeMap<>());
    Version previous = vs.put(r.version(), new Version(r.subject(), r.version(), r.id(), false));
    liveReferences.merge(r.id(), 1, Integer::sum);
    byId.put(r.id(), stored);
    if (previous != null) {
      release(previous.id());
    }
    // Registering a schema again after soft-deleting it removes the older soft-deleted versions holding it for good.
    // Done after the new version holds the id, so readers of the id never see it vanish in between.
    vs.values().removeIf(v -> {
      boolean superseded = v.deleted() && v.id() == r.id() && v.version() < r.version();
      if (superseded) {
        release(v.id());
      }
      return superseded;
    });
  }

  /** A version holding {@code id} is gone for good; the id stays readable while any other version holds it. */
  private void release(int id) {
    Integer left = liveReferences.merge(id, -1, Integer::sum);
    if (left == null || left <= 0) {
      liveReferences.remove(id);
      byId.remove(id);
    }
  }
}
