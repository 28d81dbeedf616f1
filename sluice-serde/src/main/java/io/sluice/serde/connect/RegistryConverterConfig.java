package io.sluice.serde.connect;

import io.sluice.serde.SerdeConfig;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.header.Headers;

/** What every registry-backed converter shares: its keys (Confluent's) and how it marks a record it cannot read. */
final class RegistryConverterConfig {
  /** Added to a record that could not be read, so its dead letter copy says which writer schema it had. */
  static final String SCHEMA_ID_HEADER = "__sluice.schema.id";

  private RegistryConverterConfig() {}

  static ConfigDef definition() {
    return new ConfigDef()
        .define(SerdeConfig.REGISTRY_URL, ConfigDef.Type.LIST, ConfigDef.Importance.HIGH,
            "URL of the Confluent-compatible schema registry (the first of a list is used).")
        .define(SerdeConfig.AUTO_REGISTER, ConfigDef.Type.BOOLEAN, true, ConfigDef.Importance.MEDIUM,
            "Register a schema the subject does not have yet.")
        .define(SerdeConfig.USE_LATEST_VERSION, ConfigDef.Type.BOOLEAN, false, ConfigDef.Importance.MEDIUM,
            "Write with the subject's latest schema id instead of registering the record's schema.")
        .define(SerdeConfig.KEY_STRATEGY, ConfigDef.Type.STRING, "TopicNameStrategy", ConfigDef.Importance.LOW,
            "Subject name strategy for keys: TopicNameStrategy, RecordNameStrategy or TopicRecordNameStrategy.")
        .define(SerdeConfig.VALUE_STRATEGY, ConfigDef.Type.STRING, "TopicNameStrategy", ConfigDef.Importance.LOW,
            "Subject name strategy for values.");
  }

  /** Puts the writer schema id on the consumer record, which Connect's dead letter reporter copies. */
  static void markFailed(Headers headers, int schemaId) {
    if (headers == null) {
      return;
    }
    try {
      headers.add(SCHEMA_ID_HEADER, String.valueOf(schemaId).getBytes(StandardCharsets.UTF_8));
    } catch (IllegalStateException readOnly) {
      // the id is in the exception's message too
    }
  }
}
