package io.sluice.serde.connect;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import io.sluice.registry.client.SchemaRegistryClient;
import io.sluice.serde.SchemaIds;
import io.sluice.serde.protobuf.ProtobufSchemas;
import io.sluice.registry.client.WireFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka Connect's converter for Protobuf in Confluent's wire format, on Sluice's registry:
 * {@code value.converter=io.sluice.serde.connect.ProtobufConverter}. Each Connect schema becomes one proto3 file once
 * ({@link ConnectProtobuf} has the mapping), registered under the subject name strategy with the top message's full
 * name; records are the message after the id and the index path {@code [0]}. Reading, any registered message is
 * read by its index path. A record that cannot be read gets the {@value AvroConverter#SCHEMA_ID_HEADER} header and a
 * {@link DataException} naming its schema id, for the sink's dead letter queue.
 *
 * <p>Records are written by {@link ConnectProtobufWriter} and read by {@link ConnectProtobufReader}, each a plan
 * compiled once per schema, straight between Connect's values and the bytes. Protobuf's {@code DynamicMessage}, the
 * path they replace, stays for what they do not cover (their documentation says what) and for every record they
 * fail on: it either reads it after all or fails it with the words it always did.
 */
public final class ProtobufConverter extends RegistryConverter {
  private static final byte[] FIRST_MESSAGE = WireFormat.messageIndexes(List.of(0));
  private static final Logger log = LoggerFactory.getLogger(ProtobufConverter.class);

  /**
   * How structs of one Connect schema are written: its Protobuf form, the plan (null where not covered), and its id
   * in each topic written to (a subject per topic, under the topic name strategy).
   */
  private record Writing(ConnectProtobuf.Written written, ConnectProtobufWriter writer, Map<String, Integer> ids) {}

  /** How one writer schema's message is read: its descriptor, its Connect schema and the plan, null if not covered. */
  private record Reading(Descriptor message, Schema schema, ConnectProtobufReader reader) {}

  /** Confluent's key: nullable array elements and map values as Google's wrapper messages. */
  public static final String WRAPPER_FOR_NULLABLES = "wrapper.for.nullables";

  private ConnectProtobuf data = new ConnectProtobuf();
  private boolean wrappers = true;
  private ProtobufSchemas schemas;
  private final Map<Schema, Writing> writings = new ConcurrentHashMap<>();
  /** Readings of the first message of a schema id, the path every record written by a Confluent converter has. */
  private final Map<Integer, Reading> firstMessages = new ConcurrentHashMap<>();
  private final Map<String, Reading> otherMessages = new ConcurrentHashMap<>();

  public ProtobufConverter() {
    super(SchemaIds.Format.PROTOBUF, null);
  }

  @Override
  void configured(RegistryBinding bound, Map<String, ?> configs) {
    schemas = new ProtobufSchemas(bound.client());
    Object w = configs.get(WRAPPER_FOR_NULLABLES);
    wrappers = w == null || (w instanceof Boolean b ? b : ConfigDef.parseType(WRAPPER_FOR_NULLABLES, w,
        ConfigDef.Type.BOOLEAN).equals(Boolean.TRUE));
    data = new ConnectProtobuf(wrappers);
  }

  @Override
  public ConfigDef config() {
    return super.config().define(WRAPPER_FOR_NULLABLES, ConfigDef.Type.BOOLEAN, true, ConfigDef.Importance.MEDIUM,
        "Write nullable array elements and map values as Google's wrapper messages (google.protobuf.Int32Value "
            + "...), so that a NULL element or value is carried instead of failing the record; also read wrapper "
            + "fields as nullable scalars. On by default here, off in Confluent's converter.");
  }

  @Override
  byte[] write(RegistryBinding bound, String topic, Schema schema, Object value) {
    Writing writing = writings.get(schema);
    if (writing == null) {
      writing = writings.computeIfAbsent(schema, s -> writing(s, numbering(bound, topic, s)));
    }
    ConnectProtobuf.Written w = writing.written();
    Integer id = writing.ids().get(topic);
    if (id == null) {
      id = bound.idFor(topic, w.message().getFullName(), w.text(),
          () -> new SchemaRegistryClient.Schema(SchemaIds.Format.PROTOBUF.type(), w.text(), List.of()));
      writing.ids().put(topic, id);
    }
    if (writing.writer() != null) {
      try {
        byte[] framed = writing.writer().write((Struct) value, WireFormat.HEADER + FIRST_MESSAGE.length);
        WireFormat.putHeader(framed, id);
        System.arraycopy(FIRST_MESSAGE, 0, framed, WireFormat.HEADER, FIRST_MESSAGE.length);
        return framed;
      } catch (RuntimeException e) {
        // Below, DynamicMessage fails the record with its own exception (or, were the plan wrong, writes it).
      }
    }
    try {
      return WireFormat.frame(id, out -> {
        out.write(FIRST_MESSAGE);
        data.message(schema, w.message(), (Struct) value).writeTo(out);
      });
    } catch (IOException e) {
      throw new DataException("Failed to serialize Protobuf data from topic " + topic + ": " + e.getMessage(), e);
    }
  }

  /**
   * The field numbers of the latest version of the subject this schema is written under, so that a field keeps its
   * number as columns come and go ({@link ConnectProtobuf.Numbering}); none where the subject has no Protobuf version.
   */
  private ConnectProtobuf.Numbering numbering(RegistryBinding bound, String topic, Schema schema) {
    if (schema.type() != Schema.Type.STRUCT) {
      return ConnectProtobuf.Numbering.NONE;
    }
    String subject = bound.subject(topic, ConnectProtobuf.messageName(schema));
    try {
      return bound.client().latest(subject).filter(v -> "PROTOBUF".equals(v.schema().type()))
          .map(v -> ConnectProtobuf.Numbering.of(ProtobufSchemas.message(schemas.file(v.id()), List.of(0), v.id())))
          .orElse(ConnectProtobuf.Numbering.NONE);
    } catch (RuntimeException e) {
      log.warn("The field numbers of subject {} could not be read ({}); fields are numbered in order, which the"
          + " registry may refuse where a field was dropped", subject, e.toString());
      return ConnectProtobuf.Numbering.NONE;
    }
  }

  private Writing writing(Schema schema, ConnectProtobuf.Numbering numbering) {
    ConnectProtobuf.Written w = data.written(schema, numbering);
    try {
      return new Writing(w, ConnectProtobufWriter.of(schema, w.message()), new ConcurrentHashMap<>());
    } catch (RuntimeException e) {
      log.info("Protobuf message {} is written through DynamicMessage: {}", w.message().getFullName(), e.getMessage());
      return new Writing(w, null, new ConcurrentHashMap<>());
    }
  }

  @Override
  SchemaAndValue read(RegistryBinding bound, String topic, WireFormat.Framed framed) throws IOException {
    int id = framed.schemaId();
    ByteBuffer payload = framed.payload();
    List<Integer> path = WireFormat.readMessageIndexes(payload);
    Reading reading;
    if (path.size() == 1 && path.get(0) == 0) {
      reading = firstMessages.get(id); // before computeIfAbsent, which would take a new lambda per record
      if (reading == null) {
        reading = firstMessages.computeIfAbsent(id, k -> reading(id, path));
      }
    } else {
      reading = otherMessages.computeIfAbsent(id + ":" + path, k -> reading(id, path));
    }
    byte[] array = payload.array();
    int offset = payload.arrayOffset() + payload.position();
    int length = payload.remaining();
    if (reading.reader() != null) {
      try {
        return new SchemaAndValue(reading.schema(),
            reading.reader().read(CodedInputStream.newInstance(array, offset, length)));
      } catch (IOException | RuntimeException e) {
        // Below, DynamicMessage reads what the plan leaves to it, and fails a broken record with its own words.
      }
    }
    DynamicMessage message = DynamicMessage.parseFrom(reading.message(),
        CodedInputStream.newInstance(array, offset, length));
    return new SchemaAndValue(reading.schema(), data.connectValue(reading.schema(), message));
  }

  @Override
  Schema connectSchemaOf(RegistryBinding bound, int id) {
    return firstMessages.computeIfAbsent(id, k -> reading(id, List.of(0))).schema();
  }

  private Reading reading(int id, List<Integer> path) {
    Descriptor d = ProtobufSchemas.message(schemas.file(id), path, id);
    Schema schema = ConnectProtobuf.connectSchema(d, schemas.text(id), wrappers);
    try {
      return new Reading(d, schema, ConnectProtobufReader.of(d, schema));
    } catch (RuntimeException e) {
      log.info("Protobuf message {} of schema id {} is read through DynamicMessage: {}", d.getFullName(), id,
          e.getMessage());
      return new Reading(d, schema, null);
    }
  }
}
