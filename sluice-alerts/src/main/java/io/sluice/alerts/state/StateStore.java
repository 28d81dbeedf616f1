package io.sluice.alerts.state;

import java.io.IOException;
import java.util.Optional;

/**
 * Where the router's durable state (silences, notification log) is snapshotted and restored from. The file store
 * serves a router running alone; in {@code sluice up} a Kafka-backed store (one compacted topic, record key = the
 * snapshot name) implements the same two calls so every node shares the state.
 */
public interface StateStore {
  void save(String name, byte[] snapshot) throws IOException;

  Optional<byte[]> load(String name) throws IOException;

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
