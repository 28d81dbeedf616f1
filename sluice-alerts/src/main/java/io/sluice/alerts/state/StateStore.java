package io.sluice.alerts.state;

import java.io.IOException;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Where the router's durable state (silences, notification log) is snapshotted and restored from. The file store
 * serves a router running alone; in {@code sluice up} the {@link KafkaStateStore} (one compacted topic, record key =
 * the snapshot name) implements the same calls and also hands each node the snapshots the other nodes save, which the
 * owner merges into its own state (as Alertmanager's cluster peers merge silences and log entries they gossip).
 */
public interface StateStore {
  void save(String name, byte[] snapshot) throws IOException;

  Optional<byte[]> load(String name) throws IOException;

  /**
   * Calls {@code merge} with every snapshot under {@code name} that another node saves from now on. A store that no
   * other node shares never calls it.
   */
  default void onRemoteSave(String name, Consumer<byte[]> merge) {}

  /**
   * This node's place among the live nodes sharing the store: 0 for the first and for a node alone. Alertmanager's
   * peers wait {@code position × peer_timeout} before notifying, so that the first node's notification log entry
   * reaches the others before they would send the same notification again.
   */
  default int peerPosition() {
    return 0;
  }

  /** The nodes sharing this store, for {@code /api/v2/status}; a store no other node shares is {@code disabled}. */
  default ClusterStatus clusterStatus() {
    return ClusterStatus.DISABLED;
  }

  /** Keeps nothing: state lives only as long as the process. */
  StateStore NONE = new StateStore() {
    @Override
    public void save(String name, byte[] snapshot) {}

    @Override
    public Optional<byte[]> load(String name) {
      return Optional.empty();
    }
  };
}
