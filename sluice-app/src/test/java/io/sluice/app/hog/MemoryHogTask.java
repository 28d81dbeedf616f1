package io.sluice.app.hog;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

/** See {@link MemoryHogConnector}. */
public class MemoryHogTask extends SourceTask {
  /** Held here so that nothing can collect it. */
  static final List<byte[]> HELD = new ArrayList<>();

  private Path marker;

  @Override
  public void start(Map<String, String> props) {
    marker = Path.of(props.get("marker.file"));
  }

  @Override
  public List<SourceRecord> poll() throws InterruptedException {
    if (!Files.exists(marker)) {
      try {
        Files.writeString(marker, "exhausted once\n");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      while (true) {
        HELD.add(new byte[1 << 20]);
      }
    }
    Thread.sleep(500);
    return null;
  }

  @Override
  public void stop() {}

  @Override
  public String version() {
    return "1";
  }
}
