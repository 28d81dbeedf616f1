package io.sluice.app.hog;

import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

/** See {@link CpuHogConnector}. */
public class CpuHogTask extends SourceTask {
  /** Read by nobody; written so that the loop's work cannot be left out by the compiler. */
  public static volatile long sink;

  private volatile boolean stopped;

  @Override
  public void start(Map<String, String> props) {
    int threads = Integer.parseInt(props.get("threads"));
    long until = System.nanoTime() + Long.parseLong(props.get("seconds")) * 1_000_000_000L;
    for (int i = 0; i < threads; i++) {
      Thread t = new Thread(() -> {
        long x = 1;
        while (!stopped && System.nanoTime() < until) {
          for (int j = 0; j < 100_000; j++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
          }
          sink = x;
        }
      }, "cpu-hog-" + i);
      t.setDaemon(true);
      t.start();
    }
  }

  @Override
  public List<SourceRecord> poll() throws InterruptedException {
    Thread.sleep(500);
    return null;
  }

  @Override
  public void stop() {
    stopped = true;
  }

  @Override
  public String version() {
    return "1";
  }
}
