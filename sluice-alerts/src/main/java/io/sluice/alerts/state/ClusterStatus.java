package io.sluice.alerts.state;

import java.util.List;

/**
 * The router cluster as {@code /api/v2/status} reports it, in Alertmanager's shape: this node's name, its state
 * ({@code ready}, {@code settling} or {@code disabled} for a router alone) and every live peer, itself included.
 */
public record ClusterStatus(String name, String status, List<Peer> peers) {
  /** A router node: its name and the address its API listens on. */
  public record Peer(String name, String address) {}

  public static final ClusterStatus DISABLED = new ClusterStatus(null, "disabled", List.of());

  public ClusterStatus {
    peers = List.copyOf(peers);
  }
}
