package io.sluice.app.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** What a running demo tells {@code sluice demo --check} and {@code sluice demo stop}: its file under the data dir. */
record DemoState(long pid, String connectUrl, String sourceUrl, String sinkUrl, String sourceConnector,
    String sinkConnector, String slot) {
  private static final ObjectMapper JSON = new ObjectMapper();

  static Path file(Path demoDir) {
    return demoDir.resolve("demo.json");
  }

  void write(Path demoDir) throws IOException {
    Files.writeString(file(demoDir), JSON.writeValueAsString(this));
  }

  static Optional<DemoState> read(Path demoDir) {
    try {
      return Optional.of(JSON.readValue(Files.readString(file(demoDir)), DemoState.class));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** The state of a demo whose process still runs. */
  static Optional<DemoState> running(Path demoDir) {
    return read(demoDir).filter(s -> ProcessHandle.of(s.pid()).map(ProcessHandle::isAlive).orElse(false));
  }
}
