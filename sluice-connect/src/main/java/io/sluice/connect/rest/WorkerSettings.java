package io.sluice.connect.rest;

import java.nio.file.Path;
import java.util.Map;

/** What the REST filter needs from the worker configuration. */
record WorkerSettings(String restUrl, String bootstrapServers, String offsetsTopic, String secretsTopic, Path backupDir) {
  static final String DATA_DIR = "sluice.data.dir";
  static final String SECRETS_TOPIC = "sluice.secrets.topic";

  static WorkerSettings from(Map<String, ?> c) {
    String listener = String.valueOf(c.get("listeners")).split(",")[0].trim();
    String restUrl = listener.replace("://0.0.0.0:", "://127.0.0.1:").replace("://:", "://127.0.0.1:");
    Object dataDir = c.get(DATA_DIR);
    return new WorkerSettings(
        restUrl,
        String.valueOf(c.get("bootstrap.servers")),
        String.valueOf(c.get("offset.storage.topic")),
        String.valueOf(c.get(SECRETS_TOPIC)),
        Path.of(dataDir == null ? "data" : dataDir.toString()).resolve("backups").resolve("offsets"));
  }
}
