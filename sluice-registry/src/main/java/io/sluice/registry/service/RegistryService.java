package io.sluice.registry.service;

import io.sluice.schema.CompatibilityChecker;
import io.sluice.schema.CompatibilityChecker.Previous;
import io.sluice.schema.CompatibilityLevel;
import io.sluice.schema.CompatibilityPolicy;
import io.sluice.schema.Dependency;
import io.sluice.schema.InvalidSchemaException;
import io.sluice.schema.ParsedSchema;
import io.sluice.schema.SchemaProvider;
import io.sluice.schema.SchemaReference;
import io.sluice.schema.SchemaType;
import io.sluice.registry.store.KafkaLogStore;
import io.sluice.registry.store.KafkaLogStore.Decision;
import io.sluice.registry.store.LogEvent;
import io.sluice.registry.store.Mode;
import io.sluice.registry.store.RegistryState;
import io.sluice.registry.store.RegistryState.SchemaKey;
import io.sluice.registry.store.RegistryState.StoredSchema;
import io.sluice.registry.store.RegistryState.Version;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The registry's rules, independent of HTTP: what a registration, a delete or a config change does to the state, and
 * which request is refused with which error. Writes go through {@link KafkaLogStore#write}, so each rule is decided
 * against the state at the log position its event is appended after.
 */
public final class RegistryService {
  public static final CompatibilityLevel DEFAULT_LEVEL = CompatibilityLevel.BACKWARD;

  private final RegistryState state;
  private final KafkaLogStore store;
  private final Map<SchemaType, SchemaProvider> providers;
  private final CompatibilityChecker checker;

  public RegistryService(RegistryState state, KafkaLogStore store, Map<SchemaType, SchemaProvider> providers,
      CompatibilityChecker checker) {
    this.state = state;
    this.store = store;
    this.providers = providers;
    this.checker = checker;
  }

  /** What a client sent to register, look up or check. */
  public record SchemaRequest(String schema, SchemaType type, List<SchemaReference> references, Integer id, Integer version) {}

  /** A version as the API shows it. */
  public record VersionView(String subject, int version, int id, StoredSchema schema) {}

  public RegistryState state() {
    return state;
  }

  // ---- parsing ----

  private ParsedSchema parse(SchemaRequest req, boolean normalize) {
    SchemaProvider provider = providers.get(req.type());
    if (provider == null) {
      throw RegistryRefusal.invalidSchema("Schema type " + req.type() + " is not supported yet by this registry; "
          + "supported: " + providers.keySet());
    }
    if (req.schema() == null || req.schema().isBlank()) {
      throw RegistryRefusal.invalidSchema("Empty schema");
    }
    List<SchemaReference> refs = new ArrayList<>();
    for (SchemaReference r : req.references()) {
      int v = r.version();
      if (v == -1) {
        List<Version> live = state.versions(r.subject(), false);
        if (live.isEmpty()) {
          throw RegistryRefusal.invalidSchema("Invalid schema reference " + r.name() + ": subject " + r.subject()
              + " not found");
        }
        v = live.get(live.size() - 1).version();
      }
      refs.add(new SchemaReference(r.name(), r.subject(), v));
    }
    try {
      List<Dependency> deps = state.dependencies(refs);
      ParsedSchema parsed = provider.parse(req.schema(), refs, deps);
      return normalize ? parsed.normalize() : parsed;
    } catch (InvalidSchemaException e) {
      throw RegistryRefusal.invalidSchema(e.getMessage());
    } catch (IllegalArgumentException e) {
      throw RegistryRefusal.invalidSchema("Invalid schema reference: " + e.getMessage());
    }
  }

  // ---- lookups ----

  public List<Version> liveOrAll(String subject, boolean includeDeleted) {
    List<Version> vs = state.versions(subject, includeDeleted);
    if (vs.isEmpty()) {
      throw RegistryRefusal.subjectNotFound(subject);
    }
    return vs;
  }

  /** Resolves a path's version ({@code latest}, {@code -1} or a number) within a subject. */
  public Version resolve(String subject, String versionText, boolean includeDeleted) {
    int v = parseVersion(versionText);
    return state.read(() -> {
      List<Version> vs = state.versions(subject, true);
      if (vs.isEmpty()) {
        throw RegistryRefusal.subjectNotFound(subject);
      }
      if (v == -1) {
        for (int i = vs.size() - 1; i >= 0; i--) {
          if (includeDeleted || !vs.get(i).deleted()) {
            return vs.get(i);
          }
        }
        if (!includeDeleted) {
          throw RegistryRefusal.subjectNotFound(subject);
        }
        throw RegistryRefusal.versionNotFound(v);
      }
      Optional<Version> found = state.version(subject, v);
      if (found.isEmpty() || (found.get().deleted() && !includeDeleted)) {
        throw RegistryRefusal.versionNotFound(v);
      }
      return found.get();
    });
  }

  public static int parseVersion(String text) {
    if ("latest".equals(text)) {
      return -1;
    }
    try {
      int v = Integer.parseInt(text);
      if (v == -1 || v >= 1) {
        return v;
      }
    } catch (NumberFormatException e) {
      // falls through to the 42202 below
    }
    throw RegistryRefusal.invalidVersion(text);
  }

  public VersionView view(Version v) {
    StoredSchema s = state.schemaById(v.id()).orElseThrow(() -> RegistryRefusal.versionNotFound(v.version()));
    return new VersionView(v.subject(), v.version(), v.id(), s);
  }

  /** {@code POST /subjects/{s}}: is this schema registered under the subject, and as which version. */
  public VersionView lookup(String subject, SchemaRequest req, boolean normalize, boolean includeDeleted) {
    List<Version> versions = state.versions(subject, includeDeleted);
    if (versions.isEmpty()) {
      throw RegistryRefusal.subjectNotFound(subject);
    }
    ParsedSchema parsed = parse(req, normalize);
    SchemaKey key = SchemaKey.of(parsed);
    Optional<Integer> id = state.idOf(key);
    if (id.isPresent()) {
      for (int i = versions.size() - 1; i >= 0; i--) {
        if (versions.get(i).id() == id.get()) {
          return view(versions.get(i));
        }
      }
    }
    throw RegistryRefusal.schemaNotFound();
  }

  // ---- register ----

  public int register(String subject, SchemaRequest req, boolean normalize) {
    ParsedSchema parsed = parse(req, normalize);
    SchemaKey key = SchemaKey.of(parsed);
    // Already registered here: the log holds it, so memory answers without a round trip to Kafka. As in Confluent,
    // this comes before the mode check: a read-only subject still tells a client the id of a schema it holds.
    Optional<Integer> existing = state.read(() -> existingUnder(subject, key, req.id()));
    if (existing.isPresent()) {
      return existing.get();
    }
    Function<KafkaLogStore.Draft, Decision<Integer>> decide = draft -> decideRegister(subject, req, parsed, key, draft);
    // An import names its own id or version, which another registration of the same group could be given too.
    boolean importing = (req.id() != null && req.id() >= 0) || (req.version() != null && req.version() > 0);
    return importing ? store.writeAlone(decide) : store.write(claims(subject, req, key), decide);
  }

  /**
   * What a registration touches, so that registrations touching different things share one append (group commit,
   * {@link KafkaLogStore#write(Set, Function)}): its subject, its schema (a schema registered under two subjects at
   * once must get one id) and the subjects it references.
   */
  private static Set<Object> claims(String subject, SchemaRequest req, SchemaKey key) {
    Set<Object> claims = new HashSet<>();
    claims.add(new Subject(subject));
    claims.add(key);
    for (SchemaReference r : req.references()) {
      claims.add(new Subject(r.subject()));
    }
    return claims;
  }

  /** A subject as a claim, apart from any other string. */
  private record Subject(String name) {}

  /** The id of {@code key} if a live version of {@code subject} holds it and the request names no other id. */
  private Optional<Integer> existingUnder(String subject, SchemaKey key, Integer requestedId) {
    return state.idOf(key)
        .filter(id -> requestedId == null || requestedId < 0 || requestedId.equals(id))
        .filter(id -> state.versions(subject, false).stream().anyMatch(v -> v.id() == id));
  }

  private Decision<Integer> decideRegister(String subject, SchemaRequest req, ParsedSchema parsed, SchemaKey key,
      KafkaLogStore.Draft draft) {
    Optional<Integer> existing = existingUnder(subject, key, req.id());
    if (existing.isPresent()) {
      return Decision.noChange(existing.get());
    }
    Mode mode = effectiveMode(subject);
    boolean importing = (req.id() != null && req.id() >= 0) || (req.version() != null && req.version() > 0);
    if (mode == Mode.READONLY || mode == Mode.READONLY_OVERRIDE) {
      throw RegistryRefusal.notPermitted("Subject " + subject + " is in read-only mode");
    }
    if (importing && mode != Mode.IMPORT) {
      throw RegistryRefusal.notPermitted("Subject " + subject + " is not in import mode");
    }
    if (!importing && mode != Mode.READWRITE) {
      throw RegistryRefusal.notPermitted("Subject " + subject + " is not in read-write mode");
    }
    Optional<Integer> knownId = state.idOf(key);
    int id;
    int version = state.highestVersion(subject) + 1;
    if (mode == Mode.IMPORT) {
      if (req.id() == null || req.id() < 1) {
        id = knownId.orElseGet(draft::newId);
      } else {
        id = req.id();
        Optional<StoredSchema> holder = state.schemaEverBoundTo(id);
        if (holder.isPresent() && !holder.get().key().equals(key)) {
          throw RegistryRefusal.idMismatch("Overwrite new schema with id " + id + " is not permitted.");
        }
        if (knownId.isPresent() && knownId.get() != id) {
          throw RegistryRefusal.idMismatch("Schema already registered with id " + knownId.get()
              + " instead of input id " + id);
        }
      }
      if (req.version() != null && req.version() >= 1) {
        if (state.version(subject, req.version()).isPresent()) {
          throw RegistryRefusal.notPermitted("Version " + req.version() + " already exists in subject " + subject);
        }
        version = req.version();
      }
    } else {
      List<String> errors = checker.check(level(subject), policy(subject), parsed, previousFor(level(subject), subject));
      if (!errors.isEmpty()) {
        throw RegistryRefusal.incompatible(subject, errors);
      }
      id = knownId.orElseGet(draft::newId);
    }
    return new Decision<>(new LogEvent.Registered(subject, version, id, parsed.type(), parsed.canonical(),
        parsed.references()), id);
  }

  /** Earlier live versions, newest first, as far as the mode looks. */
  private List<Previous> previousFor(CompatibilityLevel level, String subject) {
    List<Previous> out = new ArrayList<>();
    // A non-transitive level looks at the latest live version only: not a list of the subject's every version.
    for (Version v : state.liveVersionsNewestFirst(subject, level.transitive ? Integer.MAX_VALUE : 1)) {
      state.schemaById(v.id()).ifPresent(s -> out.add(new Previous(v.version(), state.parsed(s))));
    }
    return out;
  }

  // ---- compatibility ----

  /**
   * Checks against one live version. As in Confluent, a subject without versions checked against {@code latest} is
   * compatible (nothing to break), while a numbered version that does not exist is 40402.
   */
  public List<String> checkAgainstVersion(String subject, String versionText, SchemaRequest req, boolean normalize) {
    int requested = parseVersion(versionText);
    return state.read(() -> {
      List<Version> live = state.versions(subject, false);
      Optional<Version> target = requested == -1
          ? (live.isEmpty() ? Optional.empty() : Optional.of(live.get(live.size() - 1)))
          : live.stream().filter(v -> v.version() == requested).findFirst();
      if (target.isEmpty() && requested != -1) {
        throw RegistryRefusal.versionNotFound(requested);
      }
      ParsedSchema parsed = parse(req, normalize);
      if (target.isEmpty()) {
        return List.<String>of();
      }
      Version v = target.get();
      StoredSchema old = state.schemaById(v.id()).orElseThrow(() -> RegistryRefusal.versionNotFound(v.version()));
      return checker.checkOne(level(subject), policy(subject), parsed, new Previous(v.version(), state.parsed(old)));
    });
  }

  public List<String> checkAgainstSubject(String subject, SchemaRequest req, boolean normalize) {
    return state.read(() -> {
      ParsedSchema parsed = parse(req, normalize);
      CompatibilityLevel level = level(subject);
      return checker.check(level, policy(subject), parsed, previousFor(level, subject));
    });
  }

  public CompatibilityLevel level(String subject) {
    return state.subjectConfig(subject).or(state::globalConfig).orElse(DEFAULT_LEVEL);
  }

  /** The policy set on the subject, else the global one; empty when neither is set (STRICT applies). */
  public Optional<CompatibilityPolicy> explicitPolicy(String subject) {
    return (subject == null ? Optional.<CompatibilityPolicy>empty() : state.subjectPolicy(subject))
        .or(state::globalPolicy);
  }

  public CompatibilityPolicy policy(String subject) {
    return explicitPolicy(subject).orElse(CompatibilityPolicy.STRICT);
  }

  public Mode effectiveMode(String subject) {
    return state.subjectMode(subject).or(state::globalMode).orElse(Mode.READWRITE);
  }

  // ---- deletes ----

  private void requireWritable(String subject) {
    Mode mode = effectiveMode(subject);
    if (mode == Mode.READONLY || mode == Mode.READONLY_OVERRIDE) {
      throw RegistryRefusal.notPermitted("Subject " + subject + " is in read-only mode");
    }
  }

  public int deleteVersion(String subject, String versionText, boolean permanent) {
    int requested = parseVersion(versionText);
    return store.write(s -> {
      requireWritable(subject);
      List<Version> all = state.versions(subject, true);
      if (all.isEmpty()) {
        throw RegistryRefusal.subjectNotFound(subject);
      }
      Version v;
      if (requested == -1) {
        v = null;
        for (int i = all.size() - 1; i >= 0 && v == null; i--) {
          if (permanent || !all.get(i).deleted()) {
            v = all.get(i);
          }
        }
        if (v == null) {
          throw RegistryRefusal.subjectNotFound(subject);
        }
      } else {
        v = state.version(subject, requested).orElseThrow(() -> RegistryRefusal.versionNotFound(requested));
      }
      if (!permanent && v.deleted()) {
        throw RegistryRefusal.versionSoftDeleted(subject, v.version());
      }
      if (permanent && !v.deleted()) {
        throw RegistryRefusal.versionNotSoftDeleted(subject, v.version());
      }
      if (!state.referencedBy(subject, v.version()).isEmpty()) {
        throw RegistryRefusal.referenceExists(subject, v.version());
      }
      return new Decision<>(new LogEvent.VersionDeleted(subject, v.version(), permanent), v.version());
    });
  }

  public List<Integer> deleteSubject(String subject, boolean permanent) {
    return store.write(s -> {
      requireWritable(subject);
      List<Version> all = state.versions(subject, true);
      if (all.isEmpty()) {
        throw RegistryRefusal.subjectNotFound(subject);
      }
      boolean anyLive = all.stream().anyMatch(v -> !v.deleted());
      if (!permanent && !anyLive) {
        throw RegistryRefusal.subjectSoftDeleted(subject);
      }
      if (permanent && anyLive) {
        throw RegistryRefusal.subjectNotSoftDeleted(subject);
      }
      List<Integer> versions = new ArrayList<>();
      for (Version v : all) {
        if (!state.referencedBy(subject, v.version()).isEmpty()) {
          throw RegistryRefusal.referenceExists(subject, v.version());
        }
        if (permanent || !v.deleted()) {
          versions.add(v.version());
        }
      }
      return new Decision<>(new LogEvent.SubjectDeleted(subject, permanent), versions);
    });
  }

  // ---- config and mode ----

  /** Sets the level and/or the policy; a null argument keeps what is set. */
  public void setConfig(String subject, CompatibilityLevel level, CompatibilityPolicy policy) {
    store.write(s -> {
      CompatibilityLevel l = level != null ? level
          : (subject == null ? state.globalConfig() : state.subjectConfig(subject)).orElse(null);
      CompatibilityPolicy p = policy != null ? policy
          : (subject == null ? state.globalPolicy() : state.subjectPolicy(subject)).orElse(null);
      return new Decision<>(new LogEvent.ConfigSet(subject, l, p), l);
    });
  }

  /** Removes a subject's (or the global) level; answers the level in force before. */
  public CompatibilityLevel deleteConfig(String subject) {
    return store.write(s -> {
      if (subject == null) {
        return new Decision<>(new LogEvent.ConfigSet(null, null, null), level(null));
      }
      // Confluent answers 40401 here, not 40408, when the subject has no level of its own.
      CompatibilityLevel current = state.subjectConfig(subject)
          .orElseThrow(() -> RegistryRefusal.subjectNotFound(subject));
      return new Decision<>(new LogEvent.ConfigSet(subject, null, null), current);
    });
  }

  public Mode setMode(String subject, Mode mode, boolean force) {
    return store.write(s -> {
      if (mode == Mode.IMPORT && !force) {
        boolean hasSchemas = subject == null ? !state.subjects(true).isEmpty() : !state.versions(subject, true).isEmpty();
        if (hasSchemas && effectiveMode(subject) != Mode.IMPORT) {
          throw RegistryRefusal.notPermitted("Cannot import since found existing subjects");
        }
      }
      return new Decision<>(new LogEvent.ModeSet(subject, mode), mode);
    });
  }

  public Mode deleteMode(String subject) {
    return store.write(s -> {
      if (subject == null) {
        return new Decision<>(new LogEvent.ModeSet(null, null), effectiveMode(null));
      }
      Mode current = state.subjectMode(subject).orElseThrow(() -> RegistryRefusal.subjectNotFound(subject));
      return new Decision<>(new LogEvent.ModeSet(subject, null), current);
    });
  }
}
