package io.sluice.ops.offsets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;

/**
 * Which connectors surgery has halted and what state each was in before, kept on disk while the surgery runs. If the
 * process dies mid-way (killed, machine lost), the connectors stay stopped on a half-written position; the next
 * {@code restore} reads the journal to put each back into the state it had before the interrupted operation.
 */
final class SurgeryJournal {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final Path file;

  SurgeryJournal(Path backupDir) {
    this.file = backupDir.resolve("surgery-in-progress.json");
  }

  /** The state {@code connector} had before an unfinished surgery halted it, if one did. */
  synchronized Optional<String> previousState(String connector) {
    ObjectNode n = read();
    return n.has(connector) ? Optional.of(n.path(connector).path("state").asText()) : Optional.empty();
  }

  synchronized void halted(String connector, String previousState, String operation, Path backup) {
    ObjectNode n = read();
    if (!n.has(connector)) {
      n.putObject(connector).put("state", previousState).put("operation", operation)
          .put("backup", backup == null ? null : backup.toString());
      write(n);
    }
  }

  synchronized void released(String connector) {
    ObjectNode n = read();
    if (n.remove(connector) != null) {
      write(n);
    }
  }

  /**
   * The journal, empty where there is none. One that cannot be read or is not a JSON object refuses the operation and
   * is left as it is: read as empty, it would be overwritten, and with it the record of which connectors an
   * interrupted surgery stopped and what each was doing before.
   */
  private ObjectNode read() {
    if (!Files.exists(file)) {
      return JSON.createObjectNode();
    }
    String why;
    try {
      JsonNode n = JSON.readTree(file.toFile());
      if (n instanceof ObjectNode o) {
        return o;
      }
      why = "it holds no JSON object";
    } catch (IOException e) {
      why = e.getMessage();
    }
    throw OffsetSurgeryException.refused("cannot read the surgery journal " + file + " (" + why + "). It records"
        + " which connectors an interrupted offset operation stopped and the state each had before, so the operation"
        + " stopped before changing anything and the file is left as it is: put those connectors back (sluice"
        + " offsets restore with the backup it names, then resume them), then move the file aside");
  }

  private void write(ObjectNode n) {
    try {
      Files.createDirectories(file.getParent());
      if (n.isEmpty()) {
        Files.deleteIfExists(file);
        return;
      }
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(tmp, n.toPrettyString());
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }
}
