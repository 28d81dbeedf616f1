package io.sluice.ops.offsets;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.connect.client.ConnectRestClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * Holding a connector still for offset surgery and letting it go again: stop (or pause, on runtimes without stop),
 * wait until its source's replication slot is released, and put it back into the state it had before, with every halt
 * written to the journal first so that an interrupted surgery can be resumed from where it stood.
 */
final class ConnectorControl {
  private final ConnectRestClient api;
  private final SurgeryJournal journal;
  private final Consumer<String> log;
  private final Duration connectorTimeout;

  ConnectorControl(ConnectRestClient api, SurgeryJournal journal, Consumer<String> log, Duration connectorTimeout) {
    this.api = api;
    this.journal = journal;
    this.log = log;
    this.connectorTimeout = connectorTimeout;
  }

  ObjectNode requireConnector(String connector) {
    return api.config(connector).orElseThrow(() -> OffsetSurgeryException.refused("unknown connector '" + connector
        + "': Kafka Connect at " + api.baseUrl() + " has no such connector (GET /connectors lists them)"));
  }

  /** A connector halted for surgery: how (stop, or pause on runtimes without stop) and what it was doing before. */
  record Halt(String connector, String previousState, boolean viaStop, String operation, Path backup) {
    Halt withBackup(Path b) {
      return new Halt(connector, previousState, viaStop, operation, b);
    }
  }

  Halt halt(String connector, String operation, Path backup) {
    String state = api.state(connector);
    String previous = journal.previousState(connector).orElse(state);
    journal.halted(connector, previous, operation, backup);
    log.accept("stopping " + connector + " (" + state + ")");
    if (api.stop(connector, connectorTimeout)) {
      return new Halt(connector, previous, true, operation, backup);
    }
    if (!state.equals("PAUSED")) {
      api.pause(connector, connectorTimeout);
    }
    return new Halt(connector, previous, false, operation, backup);
  }

  /** Puts the connector back into the state it had before surgery; stopped tasks read the new offsets on start. */
  void release(Halt h) {
    String prev = h.previousState().toUpperCase(Locale.ROOT);
    if (!h.viaStop()) {
      // Paused tasks keep their in-memory position: only a restart makes them read the topic again.
      api.restart(h.connector(), true);
    }
    switch (prev) {
      case "STOPPED" -> { }
      case "PAUSED" -> {
        if (h.viaStop()) {
          api.pause(h.connector(), connectorTimeout);
        }
      }
      default -> api.resume(h.connector());
    }
    journal.released(h.connector());
    log.accept("resumed " + h.connector() + " (" + prev + " before)");
  }

  /** Waits until no client streams from the source's replication slot (the stopped connector let go of it). */
  void awaitSlotIdle(SourceDatabase source) {
    long deadline = System.nanoTime() + connectorTimeout.toNanos();
    String sql = "SELECT active FROM pg_replication_slots WHERE slot_name = ?";
    while (true) {
      try (var c = source.connect(); var s = c.prepareStatement(sql)) {
        s.setString(1, source.slotName());
        try (var rs = s.executeQuery()) {
          if (!rs.next()) {
            throw OffsetSurgeryException.refused("replication slot " + source.slotName() + " does not exist on "
                + source.jdbcUrl() + ": there are no pending changes to skip");
          }
          if (!rs.getBoolean(1)) {
            return;
          }
        }
      } catch (java.sql.SQLException e) {
        throw OffsetSurgeryException.refused("cannot read replication slot " + source.slotName() + " on " + source
            + ": " + e.getMessage());
      }
      if (System.nanoTime() > deadline) {
        throw OffsetSurgeryException.refused("replication slot " + source.slotName() + " is still in use after the"
            + " connector stopped: another client streams from it");
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }
}
