package io.sluice.ops.offsets;

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

  private ObjectNode read() {
    try {
      return Files.exists(file) ? (ObjectNode) JSON.readTree(file.toFile()) : JSON.createObjectNode();
    } catch (IOException | ClassCastException e) {
      return JSON.createObjectNode();
    }
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
