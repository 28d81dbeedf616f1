package io.sluice.connect.offsets;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * Writes a connector's current positions to {@code <dir>/<name>-<UTC timestamp>.tsv}: one {@code key<TAB>value} line
 * per key, exactly as the offsets topic holds them, so producing the lines back restores the positions.
 */
public final class OffsetBackup {
  private static final DateTimeFormatter STAMP =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS'Z'").withZone(ZoneOffset.UTC);

  private final Path dir;
  private final Clock clock;

  public OffsetBackup(Path dir, Clock clock) {
    this.dir = dir;
    this.clock = clock;
  }

  /** Writes the live (non-tombstone) records and returns the file; an empty file when there were none. */
  public Path write(String connector, List<OffsetRecord> records) {
    try {
      Files.createDirectories(dir);
      Path file = dir.resolve(safe(connector) + "-" + STAMP.format(clock.instant()) + ".tsv");
      StringBuilder sb = new StringBuilder();
      for (OffsetRecord r : records) {
        if (r.value() != null) {
          sb.append(r.toTsvLine()).append('\n');
        }
      }
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(tmp, sb.toString(), StandardCharsets.UTF_8);
      // A backup that exists is complete: write aside, then rename.
      Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write offset backup in " + dir, e);
    }
  }

  private static String safe(String name) {
    return name.replaceAll("[^A-Za-z0-9._-]", "_");
  }
}
