package io.sluice.alerts.state;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;

/** Snapshots as files in a data directory, replaced atomically so a crash leaves the old or the new one whole. */
public final class FileStateStore implements StateStore {
  private final Path dir;

  public FileStateStore(Path dir) {
    this.dir = dir;
  }

  @Override
  public synchronized void save(String name, byte[] snapshot) throws IOException {
    Files.createDirectories(dir);
    Path tmp = dir.resolve(name + ".tmp");
    Files.write(tmp, snapshot);
    Files.move(tmp, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  @Override
  public synchronized Optional<byte[]> load(String name) throws IOException {
    Path p = dir.resolve(name);
    return Files.exists(p) ? Optional.of(Files.readAllBytes(p)) : Optional.empty();
  }
}
