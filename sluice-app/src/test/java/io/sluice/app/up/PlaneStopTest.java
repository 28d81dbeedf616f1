package io.sluice.app.up;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A plane's stop against real processes ({@code sh}) that stop on SIGTERM, or ignore it. */
class PlaneStopTest {
  /** Ignores SIGTERM, as a plane does that cannot finish its stop; says {@code lines} first. */
  private static Process deaf(String... lines) throws Exception {
    StringBuilder script = new StringBuilder("trap '' TERM; ");
    for (String l : lines) {
      script.append("echo '").append(l).append("'; ");
    }
    script.append("echo said; while :; do sleep 0.1; done");
    return new ProcessBuilder("sh", "-c", script.toString()).start();
  }

  /** Hands what {@code p} says to {@code stop}, up to the line {@code said}. */
  private static void hear(Process p, PlaneStop stop) throws Exception {
    BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    for (String line; (line = out.readLine()) != null && !line.equals("said"); ) {
      PlaneCommand.Stopping.parse(line).ifPresent(stop::heard);
    }
  }

  @Test
  void theDataPlanesAllowanceGrowsWithItsTasksUpToItsLongest() {
    StopAllowance data = Plane.DATA.stopAllowance;
    assertEquals(Duration.ofSeconds(90), data.forTasks(0));
    assertEquals(Duration.ofSeconds(115), data.forTasks(100));
    assertEquals(Duration.ofSeconds(215), data.forTasks(500));
    assertEquals(Duration.ofMinutes(5), data.forTasks(5_000));
    assertEquals(Duration.ofSeconds(60), Plane.CONTROL.stopAllowance.forTasks(500));
    // A service manager waits for both planes' longest, each with its archive's recording.
    assertEquals(Duration.ofSeconds(540), Supervisor.stopTime());
  }

  /**
   * Says {@code lines} once it gets SIGTERM, and goes on: a plane that could not finish its stop. What it says is read
   * while the supervisor waits, as {@link PlaneProcess} reads it.
   */
  private static Process deafAfterSaying(PlaneStop stop, String... lines) throws Exception {
    StringBuilder say = new StringBuilder();
    for (String l : lines) {
      say.append("echo '").append(l).append("'; ");
    }
    Process p = new ProcessBuilder("sh", "-c", "trap \"" + say + "\" TERM; echo said; while :; do sleep 0.05; done")
        .start();
    BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    if (!"said".equals(out.readLine())) {
      throw new IllegalStateException("the shell did not start");
    }
    Thread reader = new Thread(() -> {
      try {
        for (String line; (line = out.readLine()) != null; ) {
          PlaneCommand.Stopping.parse(line).ifPresent(stop::heard);
        }
      } catch (java.io.IOException ended) {
        // Killed.
      }
    });
    reader.setDaemon(true);
    reader.start();
    return p;
  }

  @Test
  void whatAPlaneSaysAfterItsSigtermReachesTheSupervisorAndLengthensItsAllowance() throws Exception {
    // 4 s for nothing said (room for a loaded machine's shell to answer), 5.5 s once three tasks are said: the line
    // said, not the clock, decides the message.
    PlaneStop stop = new PlaneStop("data plane",
        new StopAllowance(Duration.ofSeconds(4), Duration.ofMillis(500), Duration.ofSeconds(10)));
    Process p = deafAfterSaying(stop, "sluice plane stopping tasks=3 Connect", "sluice plane stopping tasks=1 Connect");
    Optional<String> said = stop.stop(p);
    assertFalse(p.isAlive());
    assertEquals(Optional.of("data plane: stop allowance 5.5 s (for 3 tasks) passed with 1 task still stopping, "
        + "at Connect; killed"), said);
  }

  @Test
  void aPlaneKilledAfterItsAllowanceSaysWhatWasCutShort() throws Exception {
    Process p = deaf("sluice plane stopping tasks=3 Connect", "sluice plane stopping tasks=2 Connect");
    PlaneStop stop = new PlaneStop("data plane",
        new StopAllowance(Duration.ofMillis(200), Duration.ofMillis(100), Duration.ofSeconds(10)));
    hear(p, stop);
    assertEquals(Duration.ofMillis(500), stop.allowance(), "the allowance follows the tasks said first");
    Optional<String> said = stop.stop(p);
    assertFalse(p.isAlive());
    assertEquals(Optional.of("data plane: stop allowance 0.5 s (for 3 tasks) passed with 2 tasks still stopping, "
        + "at Connect; killed"), said);
  }

  @Test
  void aPlaneThatSaysNothingIsGivenItsBaseAllowance() throws Exception {
    Process p = deaf();
    PlaneStop stop = new PlaneStop("control plane", StopAllowance.fixed(Duration.ofMillis(300)));
    hear(p, stop);
    assertEquals(Optional.of("control plane: stop allowance 0.3 s passed before it said what it was stopping; "
        + "killed"), stop.stop(p));
  }

  @Test
  void aPlaneWithoutTasksSaysOnlyTheStepItWasAt() throws Exception {
    Process p = deaf("sluice plane stopping tasks=0 its exit");
    PlaneStop stop = new PlaneStop("control plane", StopAllowance.fixed(Duration.ofMillis(300)));
    hear(p, stop);
    assertEquals(Optional.of("control plane: stop allowance 0.3 s passed, at its exit; killed"), stop.stop(p));
  }

  /**
   * A plane writing its class-data archive has stopped its work: it gets the recording's time from when it says so,
   * past its allowance, since a kill throws the archive away and the next stop records (and is killed) again.
   */
  @Test
  void aPlaneRecordingItsArchiveIsGivenTheRecordingsTimePastItsAllowance() throws Exception {
    PlaneStop stop = new PlaneStop("data plane",
        new StopAllowance(Duration.ofMillis(200), Duration.ZERO, Duration.ofMillis(200), Duration.ofMillis(1_500)));
    Process p = deafAfterSaying(stop, "sluice plane stopping tasks=0 " + PlaneCommand.Stopping.RECORDING);
    long start = System.nanoTime();
    Optional<String> said = stop.stop(p);
    long took = (System.nanoTime() - start) / 1_000_000;
    assertFalse(p.isAlive());
    assertTrue(took >= 1_400, "killed after " + took + " ms, before the recording's 1.5 s");
    assertEquals(Optional.of("data plane: stop allowance 0.2 s and 1.5 s to record passed, at its exit, recording its "
        + "class-data archive; killed"), said);
  }

  @Test
  void aPlaneThatStopsInTimeCutsNothingShort() throws Exception {
    Process p = new ProcessBuilder("sh", "-c", "echo said; exec sleep 60").start();
    PlaneStop stop = new PlaneStop("data plane", StopAllowance.fixed(Duration.ofSeconds(60)));
    hear(p, stop);
    assertEquals(Optional.empty(), stop.stop(p));
    assertTrue(p.exitValue() != 0, "ended by its SIGTERM");
  }
}
