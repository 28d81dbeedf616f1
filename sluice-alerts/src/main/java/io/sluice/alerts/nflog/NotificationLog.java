package io.sluice.alerts.nflog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.alerts.state.StateStore;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What was last notified per group and integration: the firing and resolved alert fingerprints and when. The dedup
 * stage compares a flush against it; because it is snapshotted, a restarted router does not page again for what it
 * already sent.
 */
public final class NotificationLog {
  static final String SNAPSHOT = "nflog";
  private static final Logger log = LoggerFactory.getLogger(NotificationLog.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One log entry; {@code firing} and {@code resolved} hold alert fingerprints. */
  public record Entry(Set<Long> firing, Set<Long> resolved, Instant timestamp, Instant expiresAt) {
    public Entry {
      firing = Set.copyOf(firing);
      resolved = Set.copyOf(resolved);
    }

    /** True when every alert in {@code current} was already notified as firing. */
    public boolean isFiringSubset(Set<Long> current) {
      return firing.containsAll(current);
    }

    public boolean isResolvedSubset(Set<Long> current) {
      return resolved.containsAll(current);
    }
  }

  private final Map<String, Entry> entries = new ConcurrentHashMap<>();
  private final Clock clock;
  private final StateStore store;
  private final Duration retention;
  private volatile boolean dirty;

  public NotificationLog(Clock clock, StateStore store, Duration retention) {
    this.clock = clock;
    this.store = store;
    this.retention = retention;
    restore();
    store.onRemoteSave(SNAPSHOT, this::mergeRemote);
  }

  public static String key(String groupKey, String receiver, String integration, int index) {
    return groupKey + ":" + receiver + "/" + integration + "/" + index;
  }

  public Optional<Entry> query(String key) {
    return Optional.ofNullable(entries.get(key));
  }

  public void log(String key, Set<Long> firing, Set<Long> resolved) {
    Instant now = clock.instant();
    entries.put(key, new Entry(firing, resolved, now, now.plus(retention)));
    dirty = true;
  }

  public int size() {
    return entries.size();
  }

  public void gc() {
    Instant now = clock.instant();
    if (entries.values().removeIf(e -> !e.expiresAt().isAfter(now))) {
      dirty = true;
    }
  }

  /** Writes the snapshot if anything changed since the last one. */
  public void maintain() {
    if (!dirty) {
      return;
    }
    dirty = false;
    try {
      store.save(SNAPSHOT, snapshot());
    } catch (IOException e) {
      dirty = true;
      log.error("cannot save notification log snapshot", e);
    }
  }

  public byte[] snapshot() {
    ArrayNode arr = JSON.createArrayNode();
    entries.forEach((k, e) -> {
      ObjectNode o = arr.addObject();
      o.put("key", k);
      e.firing().forEach(o.putArray("firing")::add);
      e.resolved().forEach(o.putArray("resolved")::add);
      if (!o.has("firing")) {
        o.putArray("firing");
      }
      if (!o.has("resolved")) {
        o.putArray("resolved");
      }
      o.put("timestamp", e.timestamp().toString());
      o.put("expiresAt", e.expiresAt().toString());
    });
    try {
      return JSON.writeValueAsBytes(arr);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private void restore() {
    try {
      Optional<byte[]> data = store.load(SNAPSHOT);
      if (data.isPresent()) {
        merge(data.get());
        dirty = false;
        log.info("restored {} notification log entries", entries.size());
      }
    } catch (IOException | RuntimeException e) {
      log.error("cannot restore notification log snapshot; starting empty", e);
    }
  }

  private void mergeRemote(byte[] snapshot) {
    try {
      merge(snapshot);
    } catch (IOException | RuntimeException e) {
      log.error("cannot read the notification log of another node", e);
    }
  }

  /**
   * Merges a snapshot as Alertmanager merges gossiped log entries: per key the newer entry wins, expired ones are
   * dropped. What changed is saved with the next snapshot, so the shared log converges on the union.
   */
  public synchronized boolean merge(byte[] snapshot) throws IOException {
    Instant now = clock.instant();
    boolean changed = false;
    for (JsonNode o : JSON.readTree(snapshot)) {
      Set<Long> firing = new HashSet<>();
      o.path("firing").forEach(x -> firing.add(x.asLong()));
      Set<Long> resolved = new HashSet<>();
      o.path("resolved").forEach(x -> resolved.add(x.asLong()));
      Entry e = new Entry(firing, resolved, Instant.parse(o.path("timestamp").asText()),
          Instant.parse(o.path("expiresAt").asText()));
      Entry mine = entries.get(o.path("key").asText());
      if (!e.expiresAt().isAfter(now) || (mine != null && !e.timestamp().isAfter(mine.timestamp()))) {
        continue;
      }
      entries.put(o.path("key").asText(), e);
      changed = true;
    }
    if (changed) {
      dirty = true;
    }
    return changed;
  }
}
