package io.sluice.serde.connect;

import io.sluice.serde.SchemaIds;
import io.sluice.serde.avro.AvroSchemas;
import io.sluice.serde.avro.ReaderSchema;
import io.sluice.registry.client.SchemaRegistryClient;
import io.sluice.registry.client.WireFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.errors.DataException;

/**
 * Kafka Connect's converter for Avro in Confluent's wire format, on Sluice's (or any Confluent-compatible) registry:
 * {@code value.converter=io.sluice.serde.connect.AvroConverter} with {@code value.converter.schema.registry.url}.
 *
 * <p>Writing, each Connect schema becomes an Avro schema once ({@link ConnectAvro}), is registered (or looked up) under
 * the subject name strategy once, and every record after that costs one walk of its values ({@link ConnectAvroWriter})
 * and no registry call.
 *
 * <p>Reading, the writer schema is fetched by id once. With {@code reader.schema.version} set ({@code latest} or a
 * version number of the subject), records are read with that schema instead and {@code schema.mismatch} says what is
 * forgiven ({@link ReaderSchema.Mode}); a record that cannot be read gets the header {@value #SCHEMA_ID_HEADER} (its
 * writer schema id) and fails with a {@link DataException} naming the id, so a sink with {@code errors.tolerance=all}
 * sends it, raw and with Connect's error headers, to its dead letter queue and goes on.
 */
public final class AvroConverter extends RegistryConverter {
  public static final String READER_SCHEMA_VERSION = "reader.schema.version";
  public static final String SCHEMA_MISMATCH = "schema.mismatch";
  /** Added to a record that could not be read, so its dead letter copy says which writer schema it had. */
  public static final String SCHEMA_ID_HEADER = RegistryBinding.SCHEMA_ID_HEADER;

  private final ConnectAvro data = new ConnectAvro();
  private String readerVersion;
  private ReaderSchema.Mode mode;
  private final Map<Schema, Writing> writings = new ConcurrentHashMap<>();
  private final Map<Integer, Reading> readings = new ConcurrentHashMap<>();

  /**
   * How values of one Connect schema are written: their Avro schema, its writer, and its id in each topic written to
   * (a subject per topic, under the topic name strategy).
   */
  private record Writing(org.apache.avro.Schema avro, ConnectAvroWriter writer, Map<String, Integer> ids) {}

  /** How records of one writer schema id are read: the datum reader and the Connect schema of what it yields. */
  private record Reading(GenericDatumReader<Object> reader, org.apache.avro.Schema readSchema, Schema connectSchema,
      RuntimeException failure) {}

  public AvroConverter() {
    super(SchemaIds.Format.AVRO, null);
  }

  /** A converter on an existing client, for callers (tests, tools) that share one. */
  public AvroConverter(SchemaRegistryClient client) {
    super(SchemaIds.Format.AVRO, client);
  }

  @Override
  public ConfigDef config() {
    return super.config()
        .define(READER_SCHEMA_VERSION, ConfigDef.Type.STRING, null, ConfigDef.Importance.MEDIUM,
            "Read with this version of the subject (\"latest\" or a number) instead of each record's writer schema.")
        .define(SCHEMA_MISMATCH, ConfigDef.Type.STRING, "dlq", ConfigDef.Importance.MEDIUM,
            "With a reader schema: dlq (fail the record), ignore-unknown (drop writer fields the reader lacks) or "
                + "fill-default (also fill reader fields the writer lacks with a fixed default).");
  }

  @Override
  void configured(RegistryBinding bound, Map<String, ?> configs) {
    Object version = configs.get(READER_SCHEMA_VERSION);
    readerVersion = version == null || version.toString().isBlank() ? null : version.toString().trim();
    if (readerVersion != null && !readerVersion.equals("latest") && !readerVersion.matches("[1-9][0-9]*")) {
      throw new ConfigException(READER_SCHEMA_VERSION, readerVersion, "\"latest\" or a version number");
    }
    Object m = configs.get(SCHEMA_MISMATCH);
    try {
      mode = ReaderSchema.Mode.parse(m == null ? null : m.toString());
    } catch (IllegalArgumentException e) {
      throw new ConfigException(SCHEMA_MISMATCH, m, e.getMessage());
    }
  }

  @Override
  byte[] write(RegistryBinding bound, String topic, Schema schema, Object value) {
    Writing writing = writings.get(schema);
    if (writing == null) {
      writing = writings.computeIfAbsent(schema, s -> {
        org.apache.avro.Schema avro = data.avroSchema(s);
        return new Writing(avro, ConnectAvroWriter.of(s, avro), new ConcurrentHashMap<>());
      });
    }
    byte[] framed;
    try {
      framed = writing.writer().write(value, WireFormat.HEADER);
    } catch (DataException e) {
      throw e; // a value Connect's rules refuse, said as they say it
    } catch (RuntimeException e) {
      throw new DataException("Failed to serialize Avro data from topic " + topic + ": " + e.getMessage(), e);
    }
    // The id is asked for once the value has proved writable, so a refused value registers nothing.
    WireFormat.putHeader(framed, idOf(bound, topic, writing));
    return framed;
  }

  private int idOf(RegistryBinding bound, String topic, Writing writing) {
    Integer known = writing.ids().get(topic);
    if (known != null) {
      return known;
    }
    org.apache.avro.Schema avro = writing.avro();
    int id = bound.idFor(topic, AvroSchemas.recordName(avro), avro,
        () -> new SchemaRegistryClient.Schema(SchemaIds.Format.AVRO.type(), avro.toString(), List.of()));
    writing.ids().put(topic, id);
    return id;
  }

  @Override
  SchemaAndValue read(RegistryBinding bound, String topic, WireFormat.Framed framed) throws IOException {
    Reading reading = readings.computeIfAbsent(framed.schemaId(), i -> reading(bound, topic, i));
    if (reading.failure() != null) {
      throw reading.failure();
    }
    ByteBuffer payload = framed.payload();
    BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(payload.array(),
        payload.arrayOffset() + payload.position(), payload.remaining(), null);
    Object datum = reading.reader().read(null, decoder);
    return new SchemaAndValue(reading.connectSchema(),
        data.connectValue(reading.connectSchema(), reading.readSchema(), datum));
  }

  @Override
  Schema connectSchemaOf(RegistryBinding bound, int id) {
    return data.connectSchema(writerSchema(bound.client(), id));
  }

  /** How records of writer schema {@code id} are read; a failure to resolve is kept, so each such record fails fast. */
  private Reading reading(RegistryBinding bound, String topic, int id) {
    org.apache.avro.Schema writer = writerSchema(bound.client(), id);
    if (readerVersion == null) {
      return new Reading(new GenericDatumReader<>(writer), writer, data.connectSchema(writer), null);
    }
    String subject = bound.subject(topic, AvroSchemas.recordName(writer));
    try {
      // "latest" is fetched again for each new writer id: a new writer schema is when the subject may have moved on.
      Optional<SchemaRegistryClient.SubjectVersion> v = bound.client().version(subject, readerVersion);
      if (v.isEmpty()) {
        return failed("subject " + subject + " has no version " + readerVersion + " to read with");
      }
      if (!"AVRO".equals(v.get().schema().type())) {
        return failed("version " + readerVersion + " of subject " + subject + " is " + v.get().schema().type());
      }
      org.apache.avro.Schema reader = new org.apache.avro.Schema.Parser().parse(v.get().schema().schema());
      org.apache.avro.Schema effective = ReaderSchema.resolve(writer, reader, mode);
      return new Reading(new GenericDatumReader<>(writer, effective), effective, data.connectSchema(effective), null);
    } catch (ReaderSchema.MismatchException e) {
      return failed(e.getMessage() + " (subject " + subject + ", reader version " + readerVersion + ", "
          + SCHEMA_MISMATCH + "=" + mode.configValue() + ")");
    }
  }

  private static Reading failed(String why) {
    return new Reading(null, null, null, new DataException(why));
  }

  private static org.apache.avro.Schema writerSchema(SchemaRegistryClient client, int id) {
    return new org.apache.avro.Schema.Parser().parse(SchemaIds.writerSchema(client, id, SchemaIds.Format.AVRO)
        .schema());
  }
}
