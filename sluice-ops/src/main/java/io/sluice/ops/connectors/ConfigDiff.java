package io.sluice.ops.connectors;

import io.sluice.connect.defaults.ConnectorDefaults;
import io.sluice.connect.defaults.ExactlyOnce;
import io.sluice.connect.defaults.SignalChannel;
import io.sluice.connect.defaults.SnapshotModes;
import io.sluice.connect.secrets.KafkaClientConfigProvider;
import io.sluice.connect.secrets.SecretMask;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * What applying a config changes, key by key, against the connector's current config. Keys a Sluice worker fills in
 * itself (its throughput defaults, the Debezium snapshot mode derived from {@code snapshot}, a source's signal
 * channel, a source's {@code exactly.once.support}) are not reported as
 * removed when the file leaves them out: the worker adds them back. Secrets are never printed; a secret that the
 * worker stored as a reference cannot be compared, so it counts as sent again.
 */
public record ConfigDiff(List<Line> lines) {
  /** How a key changes. */
  public enum Kind { ADD, CHANGE, REMOVE, RESEND }

  public record Line(Kind kind, String key, String before, String after) {
    public String render() {
      return switch (kind) {
        case ADD -> "  + " + key + ": " + SecretMask.shown(key, after);
        case REMOVE -> "  - " + key + ": " + SecretMask.shown(key, before);
        case CHANGE -> "  ~ " + key + ": " + SecretMask.shown(key, before) + " -> " + SecretMask.shown(key, after);
        case RESEND -> "  ~ " + key + ": (secret, sent again)";
      };
    }
  }

  public static ConfigDiff between(Map<String, String> current, Map<String, String> wanted) {
    List<Line> lines = new ArrayList<>();
    Map<String, String> fills = new java.util.HashMap<>(ConnectorDefaults.missing(wanted.get("name"), wanted));
    fills.putAll(SignalChannel.missing(wanted, java.util.Set.of()));
    fills.putAll(ExactlyOnce.missing(wanted));
    TreeSet<String> keys = new TreeSet<>(current.keySet());
    keys.addAll(wanted.keySet());
    for (String k : keys) {
      String before = current.get(k);
      String after = wanted.get(k);
      if (after == null) {
        boolean filledIn = Objects.equals(fills.get(k), before)
            || (k.equals(SnapshotModes.DEBEZIUM_KEY) && wanted.containsKey(SnapshotModes.KEY))
            // The signal channel's consumer reaches a secured cluster through references to the worker's settings.
            || (fills.containsKey(SignalChannel.CHANNELS) && k.startsWith("signal.consumer.")
                && Objects.equals(before, KafkaClientConfigProvider.reference(k.substring("signal.consumer.".length()))));
        if (!filledIn) {
          lines.add(new Line(Kind.REMOVE, k, before, null));
        }
      } else if (before == null) {
        lines.add(new Line(Kind.ADD, k, null, after));
      } else if (!before.equals(after)) {
        boolean storedAsReference = SecretMask.isSecretKey(k) && SecretMask.isReference(before) && !SecretMask.isReference(after);
        lines.add(new Line(storedAsReference ? Kind.RESEND : Kind.CHANGE, k, before, after));
      }
    }
    return new ConfigDiff(lines);
  }

  public boolean isEmpty() {
    return lines.isEmpty();
  }

  /** True when only secrets the worker stores as references differ: nothing that can be seen changes. */
  public boolean onlyResent() {
    return lines.stream().allMatch(l -> l.kind() == Kind.RESEND);
  }
}
