package io.sluice.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.app.up.Platform;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The distribution the build produced, run through the repository's {@code ./sluice} launcher as separate processes,
 * as a user runs it: {@code ./sluice up} for a test class, and one command at a time.
 */
final class PackagedSluice {
  private static final ObjectMapper JSON = new ObjectMapper();

  private PackagedSluice() {}

  /** What a command printed and how it ended. */
  record Run(int exit, String out, String err) {
    JsonNode json() {
      try {
        return JSON.readTree(out);
      } catch (IOException e) {
        throw new AssertionError("not JSON: " + out + "\nstderr: " + err, e);
      }
    }

    @Override
    public String toString() {
      return "exit " + exit + "\n--- stdout\n" + out + "\n--- stderr\n" + err;
    }
  }

  /** A running {@code ./sluice up} and the lines it printed. */
  record Up(Process process, List<String> out, Path stderr) {
    String readyLine() {
      return out.stream().filter(l -> l.startsWith("sluice ready")).findFirst().orElseThrow();
    }

    /** Component name → address, from the ready line. */
    java.util.Map<String, String> urls() {
      return Platform.parseUrls(readyLine().substring("sluice ready".length()));
    }
  }

  static Path root() {
    return Path.of(System.getProperty("sluice.root"));
  }

  /** Ports handed out in this JVM: the kernel may give a just-closed port out again, to the next flag of one start. */
  private static final java.util.Set<Integer> HANDED_OUT = java.util.concurrent.ConcurrentHashMap.newKeySet();

  static int freePort() throws IOException {
    while (true) {
      try (ServerSocket s = new ServerSocket(0)) {
        if (HANDED_OUT.add(s.getLocalPort())) {
          return s.getLocalPort();
        }
      }
    }
  }

  static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      return "(" + e + ")";
    }
  }

  /**
   * Starts {@code ./sluice up args} in {@code dir} and returns once it printed its ready line; it maps the build's
   * class-data archives once {@link UpArchives} has them.
   */
  static Up up(Path dir, List<String> args) throws Exception {
    return up(root().resolve("sluice"), dir, args, UpArchives.ready());
  }

  /**
   * Starts {@code launcher up args} in {@code dir} (the repository's {@code ./sluice}, or the {@code bin/sluice} of an
   * unpacked archive), with or without class-data sharing, and returns once it printed its ready line.
   */
  static Up up(Path launcher, Path dir, List<String> args, boolean classDataSharing) throws Exception {
    return up(launcher, dir, args, classDataSharing, java.util.Map.of());
  }

  /** As {@link #up(Path, Path, List, boolean)}, with {@code env} added to the process' environment. */
  static Up up(Path launcher, Path dir, List<String> args, boolean classDataSharing, java.util.Map<String, String> env)
      throws Exception {
    List<String> command = new ArrayList<>(List.of(launcher.toString(), "up"));
    command.addAll(args);
    if (!args.contains("--console-port") && !args.contains("--ui-port")) {
      // Tests run side by side: the console's default port would be taken by the first.
      command.addAll(List.of("--console-port", String.valueOf(freePort())));
    }
    Path stderr = dir.resolve("up.stderr");
    ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectError(stderr.toFile());
    if (classDataSharing) {
      pb.environment().remove("SLUICE_NO_CDS");
    } else {
      pb.environment().put("SLUICE_NO_CDS", "1");
    }
    pb.environment().putAll(env);
    Process up = pb.start();
    // Recorded at once, so a test JVM killed while this starts leaves it to be reaped, and again once ready with its
    // planes, which outlive a supervisor killed alone.
    PidFiles.record(up);
    List<String> out = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch ready = new CountDownLatch(1);
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(up.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          out.add(line);
          if (line.startsWith("sluice ready")) {
            ready.countDown();
          }
        }
      } catch (IOException ended) {
        // The process ended; the caller's assertions say how.
      }
    }, "sluice-up-stdout");
    reader.setDaemon(true);
    reader.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(240);
    try {
      while (!ready.await(200, TimeUnit.MILLISECONDS)) {
        if (!up.isAlive() || System.nanoTime() > deadline) {
          killAll(up);
          String err = read(stderr);
          throw new AssertionError("no ready line" + (up.isAlive() ? "" : " (exit " + up.waitFor() + ")")
              + "; stdout " + out + "\nstderr " + err.lines().filter(l -> !l.contains(" WARN "))
              .reduce("", (a, b) -> a + "\n" + b));
        }
      }
    } catch (InterruptedException e) {
      // A test timed out while this node started: no one else knows of the process, which would hold the node's
      // ports and data folder against the next test's start of it.
      up.descendants().forEach(ProcessHandle::destroyForcibly);
      up.destroyForcibly();
      throw e;
    }
    PidFiles.record(up);
    return new Up(up, out, stderr);
  }

  /** Stops it as an operator does (SIGTERM) and returns its exit code; fails if it does not end within 120 s. */
  static int down(Up up) throws InterruptedException {
    RunCosts.planes(up.process());
    up.process().destroy();
    if (!up.process().waitFor(120, TimeUnit.SECONDS)) {
      killAll(up.process());
      throw new AssertionError("./sluice up did not stop within 120 s of SIGTERM");
    }
    return up.process().exitValue();
  }

  /**
   * SIGKILL of a process and everything it started ({@code sluice up}'s planes), children first so that none is left
   * to stop in order: a machine that dies.
   */
  static void killAll(Process p) throws InterruptedException {
    List<ProcessHandle> all = new ArrayList<>(p.descendants().toList());
    Collections.reverse(all);
    all.forEach(ProcessHandle::destroyForcibly);
    p.destroyForcibly();
    p.waitFor();
    for (ProcessHandle h : all) {
      h.onExit().join();
    }
  }

  /** The process of one plane of a running {@code sluice up} ({@code data} or {@code control}). */
  static ProcessHandle plane(Up up, String plane) {
    return up.process().descendants()
        .filter(h -> h.info().arguments().map(a -> a.length >= 2 && a[a.length - 2].equals("plane")
            && a[a.length - 1].equals(plane)).orElse(false))
        .findFirst().orElseThrow(() -> new AssertionError("no " + plane + " plane under " + up.process().pid()));
  }

  /** Runs {@code ./sluice args} in {@code dir}, in its own process, and waits for it. */
  static Run run(Path dir, String... args) throws Exception {
    return runWith(root().resolve("sluice"), dir, args);
  }

  /** Runs {@code launcher args} in {@code dir}, in its own process, and waits for it. */
  static Run runWith(Path launcher, Path dir, String... args) throws Exception {
    return runWith(launcher, dir, java.util.Map.of(), args);
  }

  /** As {@link #runWith(Path, Path, String...)}, with {@code env} added to the process' environment. */
  static Run runWith(Path launcher, Path dir, java.util.Map<String, String> env, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(launcher.toString()));
    command.addAll(List.of(args));
    Path out = Files.createTempFile(dir, "out", ".txt");
    Path err = Files.createTempFile(dir, "err", ".txt");
    ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectOutput(out.toFile())
        .redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    pb.environment().putAll(env);
    RunCosts.Command cost = RunCosts.command(args);
    Process p = pb.start();
    if (!p.waitFor(180, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError(String.join(" ", command) + " did not finish in 180 s: " + read(out)
          + read(err));
    }
    cost.ended();
    return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
  }

  /** Starts {@code ./sluice args} in the background, its output in {@code log}. */
  static Process start(Path dir, Path log, List<String> args) throws IOException {
    List<String> command = new ArrayList<>(List.of(root().resolve("sluice").toString()));
    command.addAll(args);
    Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile()).start();
    PidFiles.record(p);
    return p;
  }
}
