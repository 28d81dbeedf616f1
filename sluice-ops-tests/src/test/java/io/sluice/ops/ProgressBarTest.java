package io.sluice.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.ops.progress.ProgressBar;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ProgressBarTest {
  @Test
  void showsPercentageCountAndEndsItsLineOnce() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ProgressBar bar = new ProgressBar(new PrintStream(bytes, true, StandardCharsets.UTF_8), "backup", false);
    bar.update(450, 1000);
    assertTrue(bar.line(System.nanoTime()).contains(" 45%  450/1,000"), bar.line(System.nanoTime()));
    assertTrue(bar.line(System.nanoTime()).contains("[###########-------------]"), bar.line(System.nanoTime()));
    bar.update(1000, 1000);
    bar.finish();
    bar.finish();
    String printed = bytes.toString(StandardCharsets.UTF_8);
    assertEquals(1, printed.lines().count(), printed);
    assertTrue(printed.startsWith("backup [########################] 100%  1,000/1,000"), printed);
    assertTrue(printed.contains(" in "), printed);
  }

  @Test
  void unknownTotalShowsACount() {
    ProgressBar bar = new ProgressBar(new PrintStream(new ByteArrayOutputStream()), "replay", false);
    bar.update(12_345, -1);
    assertTrue(bar.line(System.nanoTime()).startsWith("replay 12,345  "), bar.line(System.nanoTime()));
  }
}
