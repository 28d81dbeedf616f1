package io.sluice.app.up;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.LoggerFactory;

/**
 * One plane's class-data archive, as the launcher keeps one for single commands: recorded by the first clean run
 * after a build and mapped by every later start, which halves the time to ready. Where the archives' folder cannot be
 * written (an installation owned by another user, without {@code SLUICE_CDS_DIR}), none is recorded.
 */
final class ClassDataArchive {
  private static final Pattern RECORDING = Pattern.compile("sluice(-[a-z]+)?\\.jsa\\.([0-9]+)");

  private final String plane;
  private final Path file;
  /** Whether the process last started records this archive, to be kept once it stops cleanly. */
  private boolean recording;

  private ClassDataArchive(String plane, Path file) {
    this.plane = plane;
    this.file = file;
  }

  /** The archive of {@code plane}, in {@link #folder()}; none when there is no such folder. */
  static Optional<ClassDataArchive> of(Plane plane) {
    return folder().map(dir -> new ClassDataArchive(plane.name, dir.resolve("sluice-" + plane.name + ".jsa")));
  }

  /** Where the class-data archives are: {@code sluice.cds.dir} as the launcher sets it, else the distribution's home. */
  static Optional<Path> folder() {
    String home = System.getProperty("sluice.home");
    if (home == null || System.getenv("SLUICE_NO_CDS") != null) {
      return Optional.empty();
    }
    return Optional.of(Path.of(System.getProperty("sluice.cds.dir", home)));
  }

  /**
   * Deletes recordings whose {@code sluice up} is gone. A recording is named after the process that renames it once
   * complete ({@code sluice-data.jsa.<pid>}); when that process is killed, its planes still end cleanly and write the
   * file, some 50 MB, which no later start would ever look at again.
   */
  static void dropOrphanedRecordings(Path folder) {
    try (Stream<Path> files = Files.list(folder)) {
      files.forEach(f -> {
        Matcher m = RECORDING.matcher(f.getFileName().toString());
        try {
          if (m.matches() && ProcessHandle.of(Long.parseLong(m.group(2))).map(h -> !h.isAlive()).orElse(true)) {
            Files.deleteIfExists(f);
          }
        } catch (IOException | NumberFormatException e) {
          // Another user's, already gone, or a number no process has: not ours to insist on.
        }
      });
    } catch (IOException e) {
      // No folder yet: nothing recorded there.
    }
  }

  /** The JVM options of the plane's next start: map the archive where it is current, else record one where we may. */
  List<String> options() {
    recording = false;
    if (Files.isRegularFile(file) && !newerJars() && sameJdk()) {
      return List.of("-XX:SharedArchiveFile=" + file);
    }
    if (!Files.isWritable(file.getParent())) {
      return List.of();
    }
    recording = true;
    return List.of("-XX:ArchiveClassesAtExit=" + recording());
  }

  /** Whether this JVM writes a class-data archive when it exits ({@link #options()} asked it to). */
  static boolean recordedAtExit() {
    return ProcessHandle.current().info().arguments().map(a -> Arrays.stream(a)
        .anyMatch(o -> o.startsWith("-XX:ArchiveClassesAtExit="))).orElse(false);
  }

  /** Where the process being recorded writes, named after this {@code sluice up}, until it is kept. */
  private Path recording() {
    return Path.of(file + "." + ProcessHandle.current().pid());
  }

  /**
   * The JDK the planes run on, as far as an archive depends on it: a JVM maps an archive recorded by its exact build
   * only and ignores any other in silence, so after a JDK upgrade every start would run without one, and none would be
   * recorded again until the jars changed. Its folder, version, and the size and time of its JVM.
   */
  static String jdk() {
    Path home = Path.of(System.getProperty("java.home"));
    StringBuilder id = new StringBuilder(home + " " + System.getProperty("java.vm.version"));
    Path jvm = home.resolve("lib/server/libjvm.so");
    try {
      id.append(' ').append(Files.size(jvm)).append(' ').append(Files.getLastModifiedTime(jvm).toMillis());
    } catch (IOException e) {
      // Another layout (not Linux, a client VM): the folder and the version say enough.
    }
    return id.toString();
  }

  /** The JDK an archive was recorded with, written beside it when it is kept. */
  private Path stamp() {
    return Path.of(file + ".jdk");
  }

  private boolean sameJdk() {
    try {
      return Files.readString(stamp()).equals(jdk());
    } catch (IOException e) {
      return false;
    }
  }

  private boolean newerJars() {
    Path lib = Path.of(System.getProperty("sluice.home"), "lib");
    try (Stream<Path> jars = Files.list(lib)) {
      long at = Files.getLastModifiedTime(file).toMillis();
      // The folder itself too: a jar added or taken away leaves every other jar's time as it was.
      if (Files.getLastModifiedTime(lib).toMillis() > at) {
        return true;
      }
      return jars.anyMatch(j -> {
        try {
          return Files.getLastModifiedTime(j).toMillis() > at;
        } catch (IOException e) {
          return true;
        }
      });
    } catch (IOException e) {
      return true;
    }
  }

  /**
   * Once the plane's process {@code p} has ended: a recording of a clean stop replaces the old archive; a broken or
   * partial one is dropped.
   */
  void keep(Process p) {
    if (!recording) {
      return;
    }
    Path tmp = recording();
    try {
      if (p.exitValue() == 0 && Files.size(tmp) > 0) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        Files.writeString(stamp(), jdk());
      } else {
        Files.deleteIfExists(tmp);
      }
    } catch (IOException | IllegalThreadStateException e) {
      LoggerFactory.getLogger(ClassDataArchive.class)
          .debug("class-data archive of the {} plane not kept: {}", plane, e.toString());
    }
  }
}
