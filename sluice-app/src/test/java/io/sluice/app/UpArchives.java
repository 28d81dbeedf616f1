package io.sluice.app;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The class-data archives of the build's {@code sluice up} (the supervisor's and the two planes'), recorded once for
 * every IT fork, as a user's first start after a build records them. A start that maps them takes about a third less
 * CPU to its ready line (9.7–10.4 s against 15.6–15.9 by hand, session 30), and the ITs start a {@code sluice up} a
 * score of times.
 * Left to the ITs' own starts, the first would record them only at its stop, which for the longest-lived is the end of
 * the run; so the first fork to ask records them at once with a start of its own, and the others, rather than wait,
 * start without until they are there.
 */
final class UpArchives {
  private static final Path HOME = PackagedSluice.root().resolve("sluice-app/target/sluice");
  private static final List<String> ARCHIVES = List.of("sluice.jsa", "sluice-data.jsa", "sluice-control.jsa");
  /** Whether this JVM tried to record them: one try a fork, so a JDK that cannot record costs one start, not each. */
  private static boolean tried;

  private UpArchives() {}

  /** Whether a start now maps the archives; records them first when no other fork is doing it. */
  static synchronized boolean ready() throws Exception {
    if (current()) {
      return true;
    }
    if (tried) {
      return false;
    }
    tried = true;
    Files.createDirectories(HOME.getParent());
    try (FileChannel lock = FileChannel.open(HOME.getParent().resolve("up-archives.lock"), StandardOpenOption.CREATE,
        StandardOpenOption.WRITE); FileLock held = lock.tryLock()) {
      if (held == null || current()) {
        return current();
      }
      record();
    }
    return current();
  }

  /** Present and newer than every jar, as the launcher and the planes decide whether to map or record again. */
  private static boolean current() throws IOException {
    FileTime newestJar;
    try (Stream<Path> jars = Files.list(HOME.resolve("lib"))) {
      newestJar = jars.map(UpArchives::modified).max(FileTime::compareTo).orElse(FileTime.fromMillis(0));
    }
    for (String archive : ARCHIVES) {
      Path file = HOME.resolve(archive);
      if (!Files.isRegularFile(file) || modified(file).compareTo(newestJar) < 0) {
        return false;
      }
    }
    return true;
  }

  private static FileTime modified(Path file) {
    try {
      return Files.getLastModifiedTime(file);
    } catch (IOException e) {
      return FileTime.fromMillis(0);
    }
  }

  /** One start and stop on an empty data folder: the supervisor and each plane write their archive as they exit. */
  private static void record() throws Exception {
    Path dir = Files.createTempDirectory(HOME.getParent(), "up-archives");
    List<String> args = new ArrayList<>(List.of("--data-dir", dir.resolve("data").toString()));
    for (String flag : List.of("--kafka-port", "--connect-port", "--registry-port", "--metrics-port", "--alerts-port",
        "--exporter-port")) {
      args.addAll(List.of(flag, String.valueOf(PackagedSluice.freePort())));
    }
    PackagedSluice.Up up = PackagedSluice.up(PackagedSluice.root().resolve("sluice"), dir, args, true);
    RunCosts.planes(up.process());
    up.process().destroy();
    // Writing three archives at exit takes a minute and more while other tests' JVMs share the cores.
    if (!up.process().waitFor(300, TimeUnit.SECONDS)) {
      PackagedSluice.killAll(up.process());
    }
  }
}
