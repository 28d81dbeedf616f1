package io.sluice.serde.connect;

import io.sluice.client.HttpTransport;
import io.sluice.serde.SchemaIds;
import io.sluice.serde.SerdeConfig;
import io.sluice.registry.client.RegistryApiException;
import io.sluice.registry.client.SchemaRegistryClient;
import io.sluice.registry.client.WireFormat;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.errors.DataException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A registry converter's tie to the registry once configured: its settings (Confluent's keys) and client, the id of
 * a schema it writes (by the serdes' rule, {@link SchemaIds}, in a converter's words), and how it reads a framed
 * record, marking one it cannot read for the dead letter queue.
 */
record RegistryBinding(SerdeConfig config, SchemaRegistryClient client, SchemaIds ids) {
  private static final Logger log = LoggerFactory.getLogger(RegistryBinding.class);
  /** Added to a record that could not be read, so its dead letter copy says which writer schema it had. */
  static final String SCHEMA_ID_HEADER = "__sluice.schema.id";

  /** Reads the payload after the header into Connect data; may fail any way, the failure is reported uniformly. */
  interface Reader {
    SchemaAndValue read(WireFormat.Framed framed) throws IOException;
  }

  /** The binding of a converter of {@code format}, its schema ids found by the one rule ({@link SchemaIds}). */
  static RegistryBinding of(SerdeConfig config, SchemaRegistryClient client, SchemaIds.Format format) {
    return new RegistryBinding(config, client, new SchemaIds(config, client, format,
        new ConverterFailures(client, format.type())));
  }

  /** The subject a record of {@code topic} whose schema is named {@code recordName} is written under. */
  String subject(String topic, String recordName) {
    return config.strategy().subject(topic, config.isKey(), recordName);
  }

  /**
   * The id of a schema written to {@code topic} by the configured rules ({@link SchemaIds#idFor}); {@code key} stands
   * for the schema in the cache, {@code schema} is asked only when the registry must be.
   */
  int idFor(String topic, String recordName, Object key, Supplier<SchemaRegistryClient.Schema> schema) {
    return ids.idFor(topic, subject(topic, recordName), key, schema);
  }

  /**
   * A converter's words for a schema id it cannot have: Connect's {@link DataException}, naming the topic and the
   * subject; a refusal as a {@link SchemaRefusedException}, so the converter can add what changed in the record.
   */
  private record ConverterFailures(SchemaRegistryClient client, String type) implements SchemaIds.Failures {
    @Override
    public RuntimeException noVersion(String topic, String subject) {
      return new DataException("Subject " + subject + " has no version (use.latest.version=true)");
    }

    @Override
    public RuntimeException notRegistered(String topic, String subject) {
      return new DataException("Schema not found in subject " + subject + " and auto.register.schemas=false");
    }

    @Override
    public RuntimeException incompatible(String topic, String subject, String refusal, int version) {
      return new SchemaRefusedException(refusal, subject, version);
    }

    @Override
    public RuntimeException failed(String topic, String subject, RegistryApiException e) {
      return new DataException("Failed to register the " + type + " schema of topic " + topic + " under subject "
          + subject + ": " + e.getMessage(), e);
    }

    @Override
    public RuntimeException unreachable(String topic, String subject, HttpTransport.UnreachableException e) {
      return new DataException("Failed to reach the schema registry at " + client.baseUrl() + ": " + e.getMessage(),
          e);
    }
  }

  /**
   * Reads a framed record; bytes that are not framed, and any failure to read them, become a {@link DataException}
   * naming the schema id, the record marked with {@link #SCHEMA_ID_HEADER}.
   */
  static SchemaAndValue read(String topic, Headers headers, byte[] value, String format, Reader reader) {
    if (value == null) {
      return SchemaAndValue.NULL;
    }
    WireFormat.Framed framed;
    try {
      framed = WireFormat.unframe(value);
    } catch (RuntimeException e) {
      throw new DataException("Failed to deserialize data for topic " + topic + " to " + format + ": "
          + e.getMessage(), e);
    }
    try {
      return reader.read(framed);
    } catch (IOException | RuntimeException e) {
      String unmarked = markFailed(topic, headers, framed.schemaId());
      throw new DataException("Failed to deserialize data for topic " + topic + " with schema id "
          + framed.schemaId() + ": " + e.getMessage() + (unmarked == null ? "" : " (" + unmarked + ")"), e);
    }
  }

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

  /**
   * Puts the writer schema id on the consumer record, which Connect's dead letter reporter copies. Returns null when
   * it did; where the headers cannot take it (read-only: the record was produced somewhere already), why not, also
   * logged at WARN: the dead-letter copy will lack the header, and the id is only in the error message.
   */
  private static String markFailed(String topic, Headers headers, int schemaId) {
    if (headers == null) {
      return null;
    }
    try {
      headers.add(SCHEMA_ID_HEADER, String.valueOf(schemaId).getBytes(StandardCharsets.UTF_8));
      return null;
    } catch (IllegalStateException readOnly) {
      String why = "the header " + SCHEMA_ID_HEADER + " could not be added, its dead letter copy will not carry it: "
          + readOnly.getMessage();
      log.warn("a record of topic {} with schema id {} could not be read, and {}", topic, schemaId, why);
      return why;
    }
  }
}
