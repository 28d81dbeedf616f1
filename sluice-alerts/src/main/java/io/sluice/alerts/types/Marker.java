package io.sluice.alerts.types;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the API reports about each alert: which silences and which inhibiting alerts mute it. Muters write it when
 * they decide, the API reads it, so a listing shows the state of the last evaluation as in Alertmanager.
 */
public final class Marker {
  public record Status(List<String> silencedBy, List<String> inhibitedBy) {
    public boolean suppressed() {
      return !silencedBy.isEmpty() || !inhibitedBy.isEmpty();
    }
  }

  private final Map<Long, List<String>> silenced = new ConcurrentHashMap<>();
  private final Map<Long, List<String>> inhibited = new ConcurrentHashMap<>();

  public void setSilenced(long fp, List<String> ids) {
    if (ids.isEmpty()) {
      silenced.remove(fp);
    } else {
      silenced.put(fp, List.copyOf(ids));
    }
  }

  public void setInhibited(long fp, List<String> by) {
    if (by.isEmpty()) {
      inhibited.remove(fp);
    } else {
      inhibited.put(fp, List.copyOf(by));
    }
  }

  public Status status(long fp) {
    return new Status(silenced.getOrDefault(fp, List.of()), inhibited.getOrDefault(fp, List.of()));
  }

  public void delete(long fp) {
    silenced.remove(fp);
    inhibited.remove(fp);
  }
}
