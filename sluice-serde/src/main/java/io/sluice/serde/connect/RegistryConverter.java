package io.sluice.serde.connect;

import io.sluice.serde.SchemaIds;
import io.sluice.serde.SerdeConfig;
import io.sluice.registry.client.SchemaRegistryClient;
import io.sluice.registry.client.WireFormat;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.storage.Converter;

/**
 * Connect's {@link Converter} contract as the three registry converters keep it, so each of them is only its
 * format's writing and reading: a null value is a tombstone both ways, a record written needs a schema, the reads
 * without headers are the reads with none, and a converter used before {@link #configure} says what it lacks.
 */
public abstract sealed class RegistryConverter implements Converter
    permits AvroConverter, JsonSchemaConverter, ProtobufConverter {
  private final SchemaIds.Format format;
  /** A client handed in by the caller; else each configuration makes its own. */
  private final SchemaRegistryClient sharedClient;
  /** Null until configured; set last, so what {@link #configured} prepared is seen with it. */
  private volatile RegistryBinding binding;

  RegistryConverter(SchemaIds.Format format, SchemaRegistryClient sharedClient) {
    this.format = format;
    this.sharedClient = sharedClient;
  }

  @Override
  public ConfigDef config() {
    return RegistryBinding.definition();
  }

  @Override
  public final void configure(Map<String, ?> configs, boolean isKey) {
    SerdeConfig config = SerdeConfig.of(configs, isKey);
    RegistryBinding bound = RegistryBinding.of(config, sharedClient != null ? sharedClient : config.client(), format);
    configured(bound, configs);
    binding = bound;
  }

  /** Reads the format's own keys (a bad one is a ConfigException) and prepares what needs the registry. */
  void configured(RegistryBinding bound, Map<String, ?> configs) {}

  @Override
  public final byte[] fromConnectData(String topic, Schema schema, Object value) {
    if (value == null) {
      return null; // a tombstone stays a tombstone
    }
    if (schema == null) {
      throw new DataException("The " + format.kind() + " converter needs a schema: this record from topic " + topic
          + " has none");
    }
    RegistryBinding bound = bound();
    try {
      return write(bound, topic, schema, value);
    } catch (SchemaRefusedException refused) {
      throw compared(bound, refused, schema);
    }
  }

  /**
   * The refusal with how the record's schema differs from the version it broke with, read as this converter reads
   * that version; the refusal as it was where that version cannot be read.
   */
  private DataException compared(RegistryBinding bound, SchemaRefusedException refused, Schema schema) {
    if (refused.version <= 0) {
      return refused;
    }
    try {
      return bound.client().version(refused.subject, String.valueOf(refused.version))
          .map(v -> refused.comparedWith(connectSchemaOf(bound, v.id()), schema)).orElse(refused);
    } catch (RuntimeException unread) {
      refused.addSuppressed(unread);
      return refused;
    }
  }

  /**
   * The Connect schema, as this converter reads records written with it, of the latest version registered under the
   * subject this converter writes {@code topic}'s records to; empty where that subject has no version, is not of this
   * converter's format, or depends on a record's name (a record-name strategy), so cannot be known from the topic alone.
   * Reads the registry only, never the topic.
   */
  public final Optional<Schema> latestSchema(String topic) {
    RegistryBinding bound = bound();
    String subject;
    try {
      subject = bound.subject(topic, null);
    } catch (IllegalArgumentException needsARecordName) {
      return Optional.empty();
    }
    return bound.client().latest(subject).filter(v -> format.type().equals(v.schema().type()))
        .map(v -> connectSchemaOf(bound, v.id()));
  }

  /** The Connect schema of the registered schema {@code id}, as records written with it read. */
  abstract Schema connectSchemaOf(RegistryBinding bound, int id);

  /** The framed record ({@link WireFormat}) of a non-null value of {@code schema}. */
  abstract byte[] write(RegistryBinding bound, String topic, Schema schema, Object value);

  @Override
  public final SchemaAndValue toConnectData(String topic, byte[] value) {
    return toConnectData(topic, null, value);
  }

  @Override
  public final SchemaAndValue toConnectData(String topic, Headers headers, byte[] value) {
    RegistryBinding bound = bound();
    return RegistryBinding.read(topic, headers, value, format.kind(), framed -> read(bound, topic, framed));
  }

  /** The Connect data of a framed record; any failure is reported by {@link RegistryBinding#read}. */
  abstract SchemaAndValue read(RegistryBinding bound, String topic, WireFormat.Framed framed) throws IOException;

  private RegistryBinding bound() {
    RegistryBinding bound = binding;
    if (bound == null) {
      throw new DataException(getClass().getSimpleName() + " is not configured: schema.registry.url is needed");
    }
    return bound;
  }
}
