package io.sluice.kafka.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

class RequiredToolTest {
  @Test
  void aMissingToolFailsUnderCiAndSkipsElsewhere() {
    AssertionFailedError failed = assertThrows(AssertionFailedError.class,
        () -> RequiredTool.missing("promtool is not installed (Debian package prometheus)", true));
    assertTrue(failed.getMessage().startsWith("promtool is not installed (Debian package prometheus), and CI is set"),
        failed.getMessage());
    TestAbortedException skipped = assertThrows(TestAbortedException.class,
        () -> RequiredTool.missing("promtool is not installed (Debian package prometheus)", false));
    assertTrue(skipped.getMessage().contains("promtool is not installed"), skipped.getMessage());
  }

  @Test
  void findsAProgramOnThePathAndNothingForAnAbsentOne() {
    assertTrue(RequiredTool.find("sh").isPresent(), "sh is in every system's bin folder");
    assertEquals(Optional.empty(), RequiredTool.find("no-such-program-" + ProcessHandle.current().pid()));
  }
}
