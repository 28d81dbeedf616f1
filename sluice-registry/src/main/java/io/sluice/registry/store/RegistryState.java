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
 * <p>Memory goes with what the registry holds, kept small because a registry may hold hundreds of thousands of
 * versions: each schema once as its text and a few words ({@link StoredSchema}), each version as two ints and a flag
 * ({@link SubjectVersions}). Parsed schemas are rebuilt from the text when a compatibility check needs them, and the
 * most recently used are kept up to a bound ({@link ParsedSchemas}).
 *
 * <p>Reads of a schema by id go through a concurrent map without the lock: it is the hot path.
 */
public final class RegistryState {
  private static final Logger log = LoggerFactory.getLogger(RegistryState.class);

  /** One version of one subject. */
  public record Version(String subject, int version, int id, boolean deleted) {}

  /**
   * A schema as the log bound it to its id: all the registry keeps of it. {@code referenceIds} are the ids its
   * references resolved to then, one per reference, so it parses later against the same texts whatever has become of
   * those versions since.
   */
  public record StoredSchema(int id, SchemaKey key, List<Integer> referenceIds) {
    public StoredSchema {
      referenceIds = List.copyOf(referenceIds);
    }

    public SchemaType type() {
      return key.type();
    }

    /** The text the registry stores and returns. */
    public String canonical() {
      return key.canonical();
    }

    public List<SchemaReference> references() {
      return key.references();
    }
  }

  /** What makes two registrations the same schema. */
  public record SchemaKey(SchemaType type, String canonical, List<SchemaReference> references) {
    public static SchemaKey of(ParsedSchema s) {
      return new SchemaKey(s.type(), s.canonical(), s.references());
    }
  }

  private final Map<SchemaType, SchemaProvider> providers;
  private final ParsedSchemas recentlyParsed;
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private final Object progress = new Object();

  private final Map<String, SubjectVersions> subjects = new HashMap<>();
  /** Schemas some version holds (a soft-deleted one too): what {@code GET /schemas/ids/{id}} answers. */
  private final Map<Integer, StoredSchema> held = new ConcurrentHashMap<>();
  /**
   * Schemas no version holds any more. Ids stay bound to their schema for good, so a schema deleted and registered
   * again gets its old id back. Concurrent like {@link #held}, and an id moves between the two by being put into one
   * before it leaves the other, so {@link #everBound} needs no lock: parsing a stored schema again (its references
   * resolved through it) never waits on the log reader.
   */
  private final Map<Integer, StoredSchema> released = new ConcurrentHashMap<>();
  /** Every schema ever bound, by what makes it one schema. */
  private final Map<SchemaKey, StoredSchema> byKey = new HashMap<>();
  /** How many versions hold each id that more than one version holds; an id in {@link #held} alone has one. */
  private final Map<Integer, Integer> sharedIds = new HashMap<>();
  private final Map<String, CompatibilityLevel> configs = new HashMap<>();
  private final Map<String, Mode> modes = new HashMap<>();
  private final Map<String, CompatibilityPolicy> policies = new HashMap<>();
  private CompatibilityLevel globalConfig;
  private CompatibilityPolicy globalPolicy;
  private Mode globalMode;
  private int maxId;
  private volatile long nextOffset;
  /** The last record applied, for the rule on groups of writes (only the log reader's thread touches these). */
  private long lastOffset = -1;
  private String lastBatch;
  private int lastBatchIndex;
  private boolean lastTookEffect;

  /** A state keeping up to {@code parsedCacheBytes} (estimated) of parsed schemas for compatibility checks. */
  public RegistryState(Map<SchemaType, SchemaProvider> providers, long parsedCacheBytes) {
    this.providers = Map.copyOf(providers);
    this.recentlyParsed = new ParsedSchemas(parsedCacheBytes);
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
    return Optional.ofNullable(held.get(id));
  }

  /** The schema an id was ever bound to, even if every version holding it is gone: ids are never rebound. */
  public Optional<StoredSchema> schemaEverBoundTo(int id) {
    return read(() -> Optional.ofNullable(everBound(id)));
  }

  private StoredSchema everBound(int id) {
    StoredSchema s = held.get(id);
    return s != null ? s : released.get(id);
  }

  public Optional<Integer> idOf(SchemaKey key) {
    return read(() -> Optional.ofNullable(byKey.get(key)).map(StoredSchema::id));
  }

  /**
   * The parsed form of a stored schema, parsed again from its text unless recently used. Throws
   * {@link IllegalStateException} should the text no longer parse (it parsed when the log bound it).
   */
  public ParsedSchema parsed(StoredSchema schema) {
    ParsedSchema p = recentlyParsed.get(schema.id());
    if (p != null) {
      return p;
    }
    SchemaProvider provider = providers.get(schema.type());
    if (provider == null) {
      throw new IllegalStateException("no parser for " + schema.type() + " (schema id " + schema.id() + ")");
    }
    try {
      // Lock-free: the ids a stored schema's references resolved to are bound for good (see #released).
      p = provider.parse(schema.canonical(), schema.references(),
          dependencies(schema.references(), schema.referenceIds()));
    } catch (InvalidSchemaException e) {
      throw new IllegalStateException("schema id " + schema.id() + " no longer parses: " + e.getMessage(), e);
    }
    recentlyParsed.put(schema.id(), p);
    return p;
  }

  public int maxId() {
    return read(() -> maxId);
  }

  /** Subjects with a live version, or with any version at all when {@code includeDeleted}. Sorted. */
  public List<String> subjects(boolean includeDeleted) {
    return read(() -> {
      List<String> out = new ArrayList<>();
      for (Map.Entry<String, SubjectVersions> e : new TreeMap<>(subjects).entrySet()) {
        if (includeDeleted ? !e.getValue().isEmpty() : e.getValue().anyLive()) {
          out.add(e.getKey());
        }
      }
      return out;
    });
  }

  /** Versions of a subject, ascending; soft-deleted ones only when asked. Empty when the subject has none. */
  public List<Version> versions(String subject, boolean includeDeleted) {
    return read(() -> {
      SubjectVersions vs = subjects.get(subject);
      if (vs == null) {
        return List.of();
      }
      List<Version> out = new ArrayList<>(vs.size());
      for (int i = 0; i < vs.size(); i++) {
        if (includeDeleted || !vs.deleted(i)) {
          out.add(new Version(subject, vs.version(i), vs.id(i), vs.deleted(i)));
        }
      }
      return out;
    });
  }

  /** Up to {@code limit} live versions of a subject, the newest first; empty when it has none. */
  public List<Version> liveVersionsNewestFirst(String subject, int limit) {
    return read(() -> {
      SubjectVersions vs = subjects.get(subject);
      List<Version> out = new ArrayList<>(vs == null ? 0 : Math.min(limit, vs.size()));
      for (int i = vs == null ? -1 : vs.size() - 1; i >= 0 && out.size() < limit; i--) {
        if (!vs.deleted(i)) {
          out.add(new Version(subject, vs.version(i), vs.id(i), false));
        }
      }
      return out;
    });
  }

  public Optional<Version> version(String subject, int version) {
    return read(() -> {
      SubjectVersions vs = subjects.get(subject);
      int at = vs == null ? -1 : vs.indexOf(version);
      return at < 0 ? Optional.empty() : Optional.of(new Version(subject, version, vs.id(at), vs.deleted(at)));
    });
  }

  /** The highest version number a subject holds, deleted or not; 0 when none. */
  public int highestVersion(String subject) {
    return read(() -> {
      SubjectVersions vs = subjects.get(subject);
      return vs == null || vs.isEmpty() ? 0 : vs.version(vs.size() - 1);
    });
  }

  /** Every (subject, version) that holds schema {@code id}. */
  public List<Version> versionsOfId(int id, boolean includeDeleted) {
    return read(() -> {
      List<Version> out = new ArrayList<>();
      for (String s : new TreeSet<>(subjects.keySet())) {
        SubjectVersions vs = subjects.get(s);
        for (int i = 0; i < vs.size(); i++) {
          if (vs.id(i) == id && (includeDeleted || !vs.deleted(i))) {
            out.add(new Version(s, vs.version(i), id, vs.deleted(i)));
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
      for (SubjectVersions vs : subjects.values()) {
        for (int i = 0; i < vs.size(); i++) {
          StoredSchema s = held.get(vs.id(i));
          if (!vs.deleted(i) && s != null) {
            for (SchemaReference r : s.references()) {
              if (r.subject().equals(subject) && r.version() == version) {
                out.add(s.id());
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
    return read(() -> dependencies(references, referenceIds(references)));
  }

  /** The ids the subjects' versions named by {@code references} hold now. */
  private List<Integer> referenceIds(List<SchemaReference> references) {
    List<Integer> ids = new ArrayList<>(references.size());
    for (SchemaReference r : references) {
      SubjectVersions vs = subjects.get(r.subject());
      int at = vs == null ? -1 : vs.indexOf(r.version());
      if (at < 0 || everBound(vs.id(at)) == null) {
        throw new IllegalArgumentException(
            "reference " + r.name() + " to subject " + r.subject() + " version " + r.version() + " not found");
      }
      ids.add(vs.id(at));
    }
    return ids;
  }

  private List<Dependency> dependencies(List<SchemaReference> references, List<Integer> ids) {
    LinkedHashSet<Dependency> out = new LinkedHashSet<>();
    collect(references, ids, out, 0);
    return List.copyOf(out);
  }

  /** A referenced schema's own references resolve to the ids bound when it was registered. */
  private void collect(List<SchemaReference> references, List<Integer> ids, Set<Dependency> out, int depth) {
    if (depth > 32) {
      throw new IllegalArgumentException("references nest deeper than 32 levels");
    }
    for (int i = 0; i < references.size(); i++) {
      StoredSchema s = everBound(ids.get(i));
      collect(s.references(), s.referenceIds(), out, depth + 1);
      out.add(new Dependency(references.get(i).name(), s.type(), s.canonical()));
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

  /** Applies a record written alone; see {@link #apply(long, long, String, int, LogEvent)}. */
  boolean apply(long offset, long expectedOffset, LogEvent event) {
    return apply(offset, expectedOffset, null, 0, event);
  }

  /**
   * Applies the record at {@code offset}. It takes effect only if its writer decided it against exactly the state
   * before it ({@code expectedOffset == offset}); a record decided against an older state lost a race and is skipped.
   * A record of a group of writes ({@code batch}, at {@code batchIndex} > 0) was decided against the state that the
   * group's earlier records make, so it also needs the record just before it to be the group's previous one, taken
   * effect: should one of a group go missing, the rest of the group is skipped even where another writer's record
   * filled the gap. Every node makes the same call for the same record, so all agree.
   *
   * @return whether the record took effect
   */
  boolean apply(long offset, long expectedOffset, String batch, int batchIndex, LogEvent event) {
    boolean accepted = event != null && expectedOffset == offset
        && (batchIndex == 0 || (lastTookEffect && lastOffset == offset - 1 && batch.equals(lastBatch)
            && lastBatchIndex == batchIndex - 1));
    lock.writeLock().lock();
    try {
      if (offset < nextOffset) {
        return false;
      }
      if (accepted) {
        applyAccepted(event);
      }
      lastOffset = offset;
      lastBatch = batch;
      lastBatchIndex = batchIndex;
      lastTookEffect = accepted;
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
      SubjectVersions vs = subjects.get(d.subject());
      int at = vs == null ? -1 : vs.indexOf(d.version());
      if (at >= 0) {
        if (d.permanent()) {
          SubjectVersions left = vs.without(at, this::release);
          if (left.isEmpty()) {
            subjects.remove(d.subject());
          } else {
            subjects.put(d.subject(), left);
          }
        } else {
          SubjectVersions left = vs.softDeleted(at);
          subjects.put(d.subject(), left);
          if (!left.anyLive()) {
            forgetSettings(d.subject());
          }
        }
      }
    } else if (event instanceof LogEvent.SubjectDeleted d) {
      SubjectVersions vs = subjects.get(d.subject());
      if (vs != null) {
        if (d.permanent()) {
          subjects.remove(d.subject());
          for (int i = 0; i < vs.size(); i++) {
            release(vs.id(i));
          }
        } else {
          subjects.put(d.subject(), vs.allSoftDeleted());
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
    StoredSchema stored = everBound(r.id());
    if (stored == null) {
      stored = bind(r);
      if (stored == null) {
        return;
      }
    }
    maxId = Math.max(maxId, r.id());
    SubjectVersions vs = subjects.getOrDefault(r.subject(), SubjectVersions.EMPTY);
    int at = vs.indexOf(r.version());
    int replacedId = at >= 0 ? vs.id(at) : 0;
    hold(stored);
    vs = vs.with(r.version(), r.id());
    // Registering a schema again after soft-deleting it removes the older soft-deleted versions holding it for good.
    // Done after the new version holds the id, so readers of the id never see it vanish in between.
    vs = vs.withoutSoftDeletedBelow(r.version(), r.id(), this::release);
    subjects.put(r.subject(), vs);
    if (at >= 0) {
      release(replacedId);
    }
  }

  /**
   * Binds a new id to the record's schema, parsed here to check that it parses (a record this node cannot parse is
   * skipped, as every node of the same version skips it) and then kept as text only; null when skipped. The parsed form
   * is not cached here: a replay would only churn the cache, and a check that needs it parses it again.
   */
  private StoredSchema bind(LogEvent.Registered r) {
    SchemaProvider provider = providers.get(r.type());
    if (provider == null) {
      log.warn("log holds a {} schema (id {}) and this node has no parser for it; skipped", r.type(), r.id());
      return null;
    }
    ParsedSchema p;
    List<Integer> referenceIds;
    try {
      referenceIds = referenceIds(r.references());
      p = provider.parse(r.schema(), r.references(), dependencies(r.references(), referenceIds));
    } catch (InvalidSchemaException | IllegalArgumentException e) {
      log.warn("log holds schema id {} that does not parse here: {}; skipped", r.id(), e.getMessage());
      return null;
    }
    StoredSchema stored = new StoredSchema(r.id(), SchemaKey.of(p), referenceIds);
    byKey.putIfAbsent(stored.key(), stored);
    return stored;
  }

  /** One more version holds {@code schema}. */
  private void hold(StoredSchema schema) {
    int id = schema.id();
    if (held.putIfAbsent(id, schema) != null) {
      sharedIds.merge(id, 2, (n, two) -> n + 1);
    } else {
      released.remove(id);
    }
  }

  /** A version holding {@code id} is gone for good; the id stays readable while any other version holds it. */
  private void release(int id) {
    Integer n = sharedIds.get(id);
    if (n != null) {
      if (n == 2) {
        sharedIds.remove(id);
      } else {
        sharedIds.put(id, n - 1);
      }
      return;
    }
    StoredSchema s = held.get(id);
    if (s != null) {
      released.put(id, s);
      held.remove(id);
    }
  }
}
