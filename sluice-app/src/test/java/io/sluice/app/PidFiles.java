package io.sluice.app;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * One file per long-running process a test JVM started ({@code sluice up} and its planes, a background
 * {@code ./sluice demo} or {@code kafka}), in {@code sluice-app/target/sluice-pids/}, so that a run killed from outside
 * (a killed Maven run takes its test JVMs with it, and no clean-up of theirs runs) does not leave them to slow the
 * next: the next test JVM to start one reaps what a dead JVM left. A file names the JVM that wrote it and each
 * process with its start time, so a live JVM's processes (the other fork's) and a pid the kernel gave out again are
 * never touched.
 */
final class PidFiles {
  private static final Path DIR = PackagedSluice.root().resolve("sluice-app/target/sluice-pids");
  private static final ProcessHandle SELF = ProcessHandle.current();
  /** Only the distribution's Java processes: the launcher execs Java with this flag. */
  private static final String MARK = "-Dsluice.home=";

  private PidFiles() {}

  static {
    reapLeftovers();
  }

  /** Records {@code p} and whatever it has started so far; the file goes once {@code p} has ended. */
  static void record(Process p) {
    List<ProcessHandle> all = new ArrayList<>();
    all.add(p.toHandle());
    all.addAll(p.descendants().toList());
    StringBuilder text = new StringBuilder(line(SELF));
    all.forEach(h -> text.append(line(h)));
    Path file = DIR.resolve(p.pid() + ".pid");
    try {
      Files.createDirectories(DIR);
      Files.writeString(file, text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    p.onExit().thenRun(() -> {
      try {
        Files.deleteIfExists(file);
      } catch (IOException e) {
        // Read again by the next run, which finds its processes gone.
      }
    });
  }

  private static String line(ProcessHandle h) {
    return h.pid() + " " + h.info().startInstant().map(Instant::toEpochMilli).orElse(0L) + "\n";
  }

  /** Kills the processes of every file whose JVM is gone, where each is still the process the file names. */
  static void reapLeftovers() {
    if (!Files.isDirectory(DIR)) {
      return;
    }
    List<Path> files;
    try (Stream<Path> s = Files.list(DIR)) {
      files = s.filter(f -> f.toString().endsWith(".pid")).toList();
    } catch (IOException e) {
      return;
    }
    for (Path found : files) {
      Path file = found;
      List<String> lines;
      try {
        lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      } catch (IOException e) {
        continue;
      }
      if (lines.isEmpty() || same(lines.get(0)).isPresent()) {
        continue; // a JVM of this run (the other fork) that is still at work
      }
      try {
        // Claimed by a rename: the forks of a run start together, and one of them reaps each file.
        Path claimed = file.resolveSibling(file.getFileName() + ".reaping");
        Files.move(file, claimed, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        file = claimed;
      } catch (IOException e) {
        continue; // the other fork has it
      }
      List<ProcessHandle> left = lines.stream().skip(1).map(PidFiles::same).flatMap(Optional::stream)
          .filter(h -> h.info().arguments().map(a -> Arrays.stream(a).anyMatch(x -> x.startsWith(MARK)))
              .orElse(false))
          .toList();
      // Each with what it runs now, taken before any is killed (a plane an orphan after its supervisor); parents
      // first, and by SIGKILL, so no supervisor is left to start a plane again.
      java.util.Set<ProcessHandle> all = new java.util.LinkedHashSet<>();
      left.forEach(h -> {
        all.add(h);
        all.addAll(h.descendants().toList());
      });
      for (ProcessHandle h : all) {
        h.destroyForcibly();
        System.err.println("PidFiles: killed " + h.pid() + ", left running by a test JVM that is gone (" + file
            + ")");
      }
      all.forEach(h -> h.onExit().join());
      try {
        Files.deleteIfExists(file);
      } catch (IOException e) {
        // Tried again by the next run.
      }
    }
  }

  /** The live process a line names, where it is still the one that started at that time. */
  private static Optional<ProcessHandle> same(String line) {
    String[] f = line.trim().split(" ");
    if (f.length < 2) {
      return Optional.empty();
    }
    long started = Long.parseLong(f[1]);
    return ProcessHandle.of(Long.parseLong(f[0])).filter(ProcessHandle::isAlive)
        .filter(h -> h.info().startInstant().map(Instant::toEpochMilli).orElse(-1L) == started);
  }
}
