package io.sluice.app.up;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Class-data recordings left by a killed {@code sluice up} are deleted; everything else in the folder stays. */
class OrphanedRecordingsTest {

  @Test
  void recordingsOfEndedProcessesGoTheRestStays(@TempDir Path dir) throws Exception {
    Process ended = new ProcessBuilder("true").start();
    ended.waitFor();
    long dead = ended.pid();
    long alive = ProcessHandle.current().pid();
    for (String name : List.of("sluice-data.jsa." + dead, "sluice-control.jsa." + dead, "sluice.jsa." + dead,
        "sluice-data.jsa." + alive, "sluice-data.jsa", "sluice-control.jsa", "sluice.jsa", "sluice-data.jsa.old",
        "notes.jsa." + dead, "sluice.yaml")) {
      Files.writeString(dir.resolve(name), "x");
    }

    ClassDataArchive.dropOrphanedRecordings(dir);

    try (Stream<Path> left = Files.list(dir)) {
      assertEquals(List.of("notes.jsa." + dead, "sluice-control.jsa", "sluice-data.jsa", "sluice-data.jsa." + alive,
          "sluice-data.jsa.old", "sluice.jsa", "sluice.yaml"),
          left.map(p -> p.getFileName().toString()).sorted().toList());
    }
  }

  @Test
  void aFolderThatIsNotThereIsNoError(@TempDir Path dir) {
    ClassDataArchive.dropOrphanedRecordings(dir.resolve("absent"));
  }
}
