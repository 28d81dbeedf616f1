package io.sluice.alerts.silence;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.alerts.labels.Matcher;
import io.sluice.alerts.labels.Matchers;
import io.sluice.alerts.state.StateStore;
import io.sluice.alerts.types.Marker;
import io.sluice.alerts.types.Muter;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The silence store, with Alertmanager's rules for creating, updating and expiring. Every change is snapshotted to
 * the {@link StateStore} so silences survive a restart.
 */
public final class Silences {
  static final String SNAPSHOT = "silences";
  private static final Logger log = LoggerFactory.getLogger(Silences.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Map<String, Silence> silences = new LinkedHashMap<>();
  private final Clock clock;
  private final StateStore store;
  private final Duration retention;

  public Silences(Clock clock, StateStore store, Duration retention) {
    this.clock = clock;
    this.store = store;
    this.retention = retention;
    restore();
    store.onRemoteSave(SNAPSHOT, this::mergeRemote);
  }

  /** Creates or updates a silence; returns its id (a new id when an update cannot be done in place). */
  public synchronized String set(Silence in) throws SilenceException {
    Instant now = clock.instant();
    validate(in, now);
    Silence prev = in.id() == null || in.id().isEmpty() ? null : silences.get(in.id());
    if (in.id() != null && !in.id().isEmpty() && prev == null) {
      throw new SilenceException("silence not found", true);
    }
    if (prev != null) {
      if (canUpdate(prev, in, now)) {
        silences.put(prev.id(), in.withTimes(in.startsAt(), in.endsAt(), now));
        persist();
        return prev.id();
      }
      if (prev.state(now) != Silence.State.EXPIRED) {
        expireLocked(prev, now);
      }
    }
    Instant start = in.startsAt().isBefore(now) ? now : in.startsAt();
    Silence created = in.withId(UUID.randomUUID().toString()).withTimes(start, in.endsAt(), now);
    silences.put(created.id(), created);
    persist();
    return created.id();
  }

  private static boolean canUpdate(Silence a, Silence b, Instant now) {
    if (!a.matchers().equals(b.matchers())) {
      return false;
    }
    return switch (a.state(now)) {
      case ACTIVE -> b.startsAt().equals(a.startsAt()) && !b.endsAt().isBefore(now);
      case PENDING -> !b.startsAt().isBefore(now);
      case EXPIRED -> false;
    };
  }

  private static void validate(Silence s, Instant now) throws SilenceException {
    try {
      check(s, now);
    } catch (SilenceException e) {
      throw new SilenceException("silence invalid: " + e.getMessage(), false);
    }
  }

  private static void check(Silence s, Instant now) throws SilenceException {
    if (s.matchers().isEmpty()) {
      throw new SilenceException("at least one matcher required", false);
    }
    boolean nonEmpty = false;
    for (Matcher m : s.matchers()) {
      if (!Matchers.validLabelName(m.name())) {
        throw new SilenceException("invalid label name \"" + m.name() + "\"", false);
      }
      nonEmpty |= !m.matches("");
    }
    if (!nonEmpty) {
      throw new SilenceException("at least one matcher must not match the empty string", false);
    }
    if (s.startsAt() == null || s.endsAt() == null) {
      throw new SilenceException("invalid zero start or end timestamp", false);
    }
    if (s.endsAt().isBefore(now)) {
      throw new SilenceException("end time can't be in the past", false);
    }
    if (s.startsAt().isAfter(s.endsAt())) {
      throw new SilenceException("start time must be before end time", false);
    }
  }

  public synchronized void expire(String id) throws SilenceException {
    Silence s = silences.get(id);
    if (s == null) {
      throw new SilenceException("silence " + id + " not found", true);
    }
    Instant now = clock.instant();
    if (s.state(now) == Silence.State.EXPIRED) {
      throw new SilenceException("silence " + id + " already expired", false);
    }
    expireLocked(s, now);
    persist();
  }

  private void expireLocked(Silence s, Instant now) {
    Silence e = s.state(now) == Silence.State.PENDING ? s.withTimes(now, now, now) : s.withTimes(s.startsAt(), now, now);
    silences.put(s.id(), e);
  }

  public synchronized Optional<Silence> get(String id) {
    return Optional.ofNullable(silences.get(id));
  }

  public synchronized List<Silence> all() {
    return new ArrayList<>(silences.values());
  }

  /** Active silences whose matchers all match, sorted by id as Alertmanager reports them. */
  public synchronized List<String> silencedBy(Map<String, String> labels) {
    Instant now = clock.instant();
    List<String> ids = new ArrayList<>();
    for (Silence s : silences.values()) {
      if (s.state(now) == Silence.State.ACTIVE && Matchers.matchesAll(s.matchers(), labels)) {
        ids.add(s.id());
      }
    }
    ids.sort(Comparator.naturalOrder());
    return ids;
  }

  /** The muter view: checks and records in the marker which silences mute an alert. */
  public Muter muter(Marker marker) {
    return labels -> {
      List<String> ids = silencedBy(labels);
      marker.setSilenced(Matchers.fingerprint(labels), ids);
      return !ids.isEmpty();
    };
  }

  /** Drops silences expired longer than the retention ago. */
  public synchronized int gc() {
    Instant cutoff = clock.instant().minus(retention);
    int before = silences.size();
    silences.values().removeIf(s -> s.endsAt().isBefore(cutoff));
    int removed = before - silences.size();
    if (removed > 0) {
      persist();
    }
    return removed;
  }

  public synchronized byte[] snapshot() {
    ArrayNode arr = JSON.createArrayNode();
    for (Silence s : silences.values()) {
      ObjectNode o = arr.addObject();
      o.put("id", s.id());
      ArrayNode ms = o.putArray("matchers");
      for (Matcher m : s.matchers()) {
        ms.addObject().put("name", m.name()).put("type", m.type().name()).put("value", m.value());
      }
      o.put("startsAt", s.startsAt().toString());
      o.put("endsAt", s.endsAt().toString());
      o.put("updatedAt", s.updatedAt().toString());
      o.put("createdBy", s.createdBy());
      o.put("comment", s.comment());
    }
    try {
      return JSON.writeValueAsBytes(arr);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private void persist() {
    try {
      store.save(SNAPSHOT, snapshot());
    } catch (IOException e) {
      log.error("cannot save silences snapshot", e);
    }
  }

  private void restore() {
    try {
      Optional<byte[]> data = store.load(SNAPSHOT);
      if (data.isPresent()) {
        merge(data.get());
        log.info("restored {} silences", silences.size());
      }
    } catch (IOException | RuntimeException e) {
      log.error("cannot restore silences snapshot; starting without silences", e);
    }
  }

  /** Another node's snapshot: merged, and saved again when it taught us something (so the shared log converges). */
  private void mergeRemote(byte[] snapshot) {
    try {
      if (merge(snapshot)) {
        persist();
      }
    } catch (IOException e) {
      log.error("cannot read silences from another node", e);
    }
  }

  /**
   * Merges a snapshot as Alertmanager merges gossiped silences: per id the one updated last wins; silences expired
   * for longer than the retention are not taken back. Returns whether anything changed.
   */
  public synchronized boolean merge(byte[] snapshot) throws IOException {
    Instant cutoff = clock.instant().minus(retention);
    boolean changed = false;
    for (JsonNode o : JSON.readTree(snapshot)) {
      List<Matcher> ms = new ArrayList<>();
      for (JsonNode m : o.path("matchers")) {
        ms.add(Matcher.of(m.path("name").asText(), Matcher.Type.valueOf(m.path("type").asText()),
            m.path("value").asText()));
      }
      Silence s = new Silence(o.path("id").asText(), ms, Instant.parse(o.path("startsAt").asText()),
          Instant.parse(o.path("endsAt").asText()), Instant.parse(o.path("updatedAt").asText()),
          o.path("createdBy").asText(), o.path("comment").asText());
      Silence mine = silences.get(s.id());
      if (s.endsAt().isBefore(cutoff) || (mine != null && !s.updatedAt().isAfter(mine.updatedAt()))) {
        continue;
      }
      silences.put(s.id(), s);
      changed = true;
    }
    return changed;
  }
}
