package io.sluice.connect.defaults;

import io.sluice.source.Engine;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Translates the connector-independent {@code initial.snapshot.mode} into the {@code snapshot.mode} each Debezium
 * source understands today.
 *
 * <p>Debezium renamed {@code schema_only} to {@code no_data} and dropped {@code never} (PostgreSQL in 3.3, MySQL in
 * 3.6). {@code no_data} is the nearest current mode for both: capture no rows, stream from the current position.
 */
public final class SnapshotModes {
  public static final String KEY = "initial.snapshot.mode";
  public static final String DEBEZIUM_KEY = "snapshot.mode";
  public static final List<String> ALLOWED = List.of("initial", "schema_only", "never");

  private static final Map<String, String> TO_DEBEZIUM =
      Map.of("initial", "initial", "schema_only", "no_data", "never", "no_data");

  private SnapshotModes() {}

  /** The outcome of translating one config: either the Debezium value, or why the config is refused. */
  public sealed interface Translation {
    record Mode(String debeziumValue) implements Translation {}

    record Refused(String message) implements Translation {}
  }

  /**
   * Translates {@code initial.snapshot.mode} for a connector class; empty when the config does not use the key.
   *
   * @param explicitSnapshotMode a {@code snapshot.mode} the config also sets, which must then agree
   */
  public static Optional<Translation> translate(String connectorClass, String value, String explicitSnapshotMode) {
    if (value == null) {
      return Optional.empty();
    }
    String mode = TO_DEBEZIUM.get(value.trim().toLowerCase(java.util.Locale.ROOT));
    if (mode == null) {
      return Optional.of(new Translation.Refused("Invalid value " + value + " for configuration " + KEY
          + ": must be one of " + String.join(", ", ALLOWED)));
    }
    if (Engine.ofConnectorClass(connectorClass).isEmpty()) {
      return Optional.of(new Translation.Refused("Configuration " + KEY + " applies only to the Debezium source "
          + "connectors (" + String.join(", ", Engine.allConnectorClasses()) + "), not to " + connectorClass));
    }
    if (explicitSnapshotMode != null && !explicitSnapshotMode.equals(mode)) {
      return Optional.of(new Translation.Refused("Configuration " + KEY + "=" + value + " means " + DEBEZIUM_KEY + "="
          + mode + ", but " + DEBEZIUM_KEY + "=" + explicitSnapshotMode + " is also set"));
    }
    return Optional.of(new Translation.Mode(mode));
  }
}
