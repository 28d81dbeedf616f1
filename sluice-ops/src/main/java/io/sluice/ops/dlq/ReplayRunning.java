package io.sluice.ops.dlq;

import java.time.Duration;

/**
 * A replay refused because another replay of the same group holds its lease (see {@link ReplayLease}), in this
 * process or on any other node of the cluster. The refused run changed nothing: it read no offsets of the group,
 * wrote no backup and produced no record.
 */
public final class ReplayRunning extends IllegalStateException {
  private final String group;
  private final String clientId;
  private final String host;
  private final Duration sessionTimeout;

  ReplayRunning(String group, String clientId, String host, Duration sessionTimeout) {
    super("another replay in group " + group + " is running (client " + clientId + " on " + host + "), so this one"
        + " would produce the same records again; nothing was replayed. Wait for it to end; a run that was killed"
        + " stops holding the group within " + sessionTimeout.toSeconds() + " s");
    this.group = group;
    this.clientId = clientId;
    this.host = host;
    this.sessionTimeout = sessionTimeout;
  }

  /** The replay group both runs asked for. */
  public String group() {
    return group;
  }

  /** The client id of the run that holds the group. */
  public String clientId() {
    return clientId;
  }

  /** The address the broker sees the holding run at. */
  public String host() {
    return host;
  }

  /** How long a killed run goes on holding the group. */
  public Duration sessionTimeout() {
    return sessionTimeout;
  }
}
