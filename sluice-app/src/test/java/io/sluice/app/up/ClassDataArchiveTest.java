package io.sluice.app.up;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A plane's archive is mapped only where it was recorded after the jars and with the JDK that runs: one recorded by
 * another JDK would be ignored in silence at every start, and never recorded again.
 */
class ClassDataArchiveTest {
  private final String home = System.getProperty("sluice.home");
  private final String cds = System.getProperty("sluice.cds.dir");

  @AfterEach
  void restore() {
    restore("sluice.home", home);
    restore("sluice.cds.dir", cds);
  }

  private static void restore(String key, String value) {
    if (value == null) {
      System.clearProperty(key);
    } else {
      System.setProperty(key, value);
    }
  }

  @Test
  void anArchiveOfAnotherJdkIsRecordedAgainAndOneOfThisJdkMapped(@TempDir Path dir) throws Exception {
    Path lib = Files.createDirectories(dir.resolve("lib"));
    Files.setLastModifiedTime(Files.writeString(lib.resolve("sluice-app.jar"), "jar"), FileTime.fromMillis(1_000_000));
    Files.setLastModifiedTime(lib, FileTime.fromMillis(1_000_000));
    System.setProperty("sluice.home", dir.toString());
    System.setProperty("sluice.cds.dir", dir.toString());
    Path archive = Files.writeString(dir.resolve("sluice-data.jsa"), "archive");
    ClassDataArchive data = ClassDataArchive.of(Plane.DATA).orElseThrow();

    assertTrue(data.options().get(0).startsWith("-XX:ArchiveClassesAtExit="), "no JDK written beside it: recorded again");
    Files.writeString(dir.resolve("sluice-data.jsa.jdk"), "/usr/lib/jvm/an-older-jdk 17.0.1+12");
    assertTrue(data.options().get(0).startsWith("-XX:ArchiveClassesAtExit="), "another JDK's: recorded again");
    Files.writeString(dir.resolve("sluice-data.jsa.jdk"), ClassDataArchive.jdk());
    assertEquals(List.of("-XX:SharedArchiveFile=" + archive), data.options(), "this JDK's, after the jars: mapped");
    Files.setLastModifiedTime(lib.resolve("sluice-app.jar"), FileTime.fromMillis(System.currentTimeMillis() + 60_000));
    assertTrue(data.options().get(0).startsWith("-XX:ArchiveClassesAtExit="), "a newer jar: recorded again");
  }

  @Test
  void aKeptRecordingNamesItsJdk(@TempDir Path dir) throws Exception {
    Files.createDirectories(dir.resolve("lib"));
    System.setProperty("sluice.home", dir.toString());
    System.setProperty("sluice.cds.dir", dir.toString());
    ClassDataArchive control = ClassDataArchive.of(Plane.CONTROL).orElseThrow();
    String option = control.options().get(0);
    Path recording = Path.of(option.substring("-XX:ArchiveClassesAtExit=".length()));
    Files.writeString(recording, "recorded");
    Process clean = new ProcessBuilder("true").start();
    clean.waitFor();
    control.keep(clean);
    assertEquals("recorded", Files.readString(dir.resolve("sluice-control.jsa")));
    assertEquals(ClassDataArchive.jdk(), Files.readString(dir.resolve("sluice-control.jsa.jdk")));
  }
}
