package io.sluice.app.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The files the demo and {@code demo fault} hand each other are seen whole or not at all. */
class FaultFileTest {
  @TempDir Path dir;

  @Test
  void aPollerNeverReadsAFaultFileWithoutItsText() throws Exception {
    Path fault = dir.resolve("fault");
    AtomicReference<String> seenEmpty = new AtomicReference<>();
    CountDownLatch done = new CountDownLatch(1);
    // What the demo's loop does, as fast as it can: read the file once it exists, then remove it.
    Thread poller = new Thread(() -> {
      while (done.getCount() > 0) {
        try {
          if (Files.exists(fault)) {
            String text = Files.readString(fault);
            if (text.isEmpty()) {
              seenEmpty.set("read empty");
            }
            Files.deleteIfExists(fault);
          }
        } catch (java.nio.file.NoSuchFileException gone) {
          // Removed between the check and the read: the next round sees the next one.
        } catch (Exception e) {
          seenEmpty.set(e.toString());
        }
      }
    });
    poller.start();
    for (int i = 0; i < 5_000; i++) {
      DemoCommand.publish(fault, "poison --no-dlq");
    }
    done.countDown();
    poller.join();
    assertEquals(null, seenEmpty.get());
    assertFalse(Files.exists(dir.resolve("fault.partial")), "nothing half written left behind");
  }
}
