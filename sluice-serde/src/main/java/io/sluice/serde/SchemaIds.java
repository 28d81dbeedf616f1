package io.sluice.serde;

import io.sluice.client.HttpTransport;
import io.sluice.registry.client.RegistryApiException;
import io.sluice.registry.client.SchemaRegistryClient;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.apache.kafka.common.errors.SerializationException;

/**
 * The schema-id rule of the Kafka serializers and deserializers, in one place. Writing, the id a record is framed
 * with: the subject's latest version's ({@code use.latest.version}), else its schema's, registered
 * ({@code auto.register.schemas}) or looked up; once known for a subject and schema, no registry call is made again.
 * Reading, the writer schema of a framed record's id, refused when it is of another format. The registry's refusals
 * and an unreachable registry become Kafka's {@link SerializationException}, worded as Confluent's serdes word them.
 *
 * <pre>{@code
 * SchemaIds ids = new SchemaIds(config, client, SchemaIds.Format.AVRO);
 * int id = ids.idFor(subject, schema, () -> new SchemaRegistryClient.Schema("AVRO", schema.toString(), List.of()));
 * }</pre>
 */
public final class SchemaIds {
  /** A registry schema type, and how the messages name it. */
  public enum Format {
    AVRO("AVRO", "Avro", "Avro"),
    PROTOBUF("PROTOBUF", "Protobuf", "Protobuf"),
    JSON("JSON", "JSON", "JSON Schema");

    private final String type;
    private final String name;
    private final String kind;

    Format(String type, String name, String kind) {
      this.type = type;
      this.name = name;
      this.kind = kind;
    }

    /** The registry's {@code schemaType}. */
    public String type() {
      return type;
    }
  }

  private record Key(String subject, Object schema) {}

  private final SerdeConfig config;
  private final SchemaRegistryClient client;
  private final Format format;
  private final Map<Key, Integer> ids = new ConcurrentHashMap<>();
  private final Map<String, SchemaRegistryClient.SubjectVersion> latest = new ConcurrentHashMap<>();

  public SchemaIds(SerdeConfig config, SchemaRegistryClient client, Format format) {
    this.config = config;
    this.client = client;
    this.format = format;
  }

  /**
   * The id to frame a record of {@code subject} with. {@code key} stands for the record's schema in the cache (the
   * schema itself, or what names it); {@code schema} is asked only when the registry must be.
   */
  public int idFor(String subject, Object key, Supplier<SchemaRegistryClient.Schema> schema) {
    if (config.useLatestVersion()) {
      return latest(subject).id();
    }
    Key k = new Key(subject, key);
    Integer known = ids.get(k);
    if (known != null) {
      return known;
    }
    int id = asked(subject, () -> {
      SchemaRegistryClient.Schema s = schema.get();
      return config.autoRegister() ? client.register(subject, s) : client.idOf(subject, s).orElseThrow(() ->
          new SerializationException("Error retrieving " + format.name + " schema for subject " + subject
              + ": Schema not found; auto.register.schemas is false"));
    });
    ids.put(k, id);
    return id;
  }

  /** The subject's latest version, asked once. */
  public SchemaRegistryClient.SubjectVersion latest(String subject) {
    SchemaRegistryClient.SubjectVersion known = latest.get(subject);
    if (known != null) {
      return known;
    }
    SchemaRegistryClient.SubjectVersion v = asked(subject, () -> client.latest(subject).orElseThrow(() ->
        new SerializationException("Error retrieving the latest version of subject " + subject
            + ": Subject not found")));
    latest.put(subject, v);
    return v;
  }

  private <T> T asked(String subject, Supplier<T> call) {
    try {
      return call.get();
    } catch (RegistryApiException e) {
      if (e.incompatibility().isPresent()) {
        SerializationException refused = new SerializationException(refusal(client, format.type, null, subject, e));
        refused.addSuppressed(e);
        throw refused;
      }
      throw new SerializationException("Error registering " + format.name + " schema for subject " + subject + ": "
          + e.getMessage(), e);
    } catch (HttpTransport.UnreachableException e) {
      throw new SerializationException("Error reaching the schema registry for subject " + subject + ": "
          + e.getMessage(), e);
    }
  }

  /**
   * What a writer whose new schema the registry refused as incompatible says: the subject, the version it broke with
   * among the subject's versions, the mode and each rule in the registry's words, and the ways on. The registry's
   * whole answer, which holds the old schema's text, is for the caller to attach (suppressed, not as the cause: the
   * deepest cause is what an operator is shown of a failed task).
   */
  public static String refusal(SchemaRegistryClient client, String type, String topic, String subject,
      RegistryApiException e) {
    RegistryApiException.Incompatibility i = e.incompatibility().orElseThrow();
    String versions;
    try {
      List<Integer> held = client.versions(subject);
      versions = held.isEmpty() ? "" : " (the subject holds version" + (held.size() == 1 ? " " : "s ") + held
          .stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(", ")) + ")";
    } catch (RuntimeException unread) {
      versions = "";
    }
    return "The schema registry refused the new " + type + " schema" + (topic == null ? "" : " of topic " + topic)
        + " under subject " + subject + ": it " + i.summary() + versions + ". Nothing of it was written. To go on:"
        + " make the change at the source compatible, or relax the subject's compatibility (PUT /config/" + subject
        + ") and restart the task.";
  }

  /** The writer schema of {@code id}, which must be of {@code format}. */
  public static SchemaRegistryClient.Schema writerSchema(SchemaRegistryClient client, int id, Format format) {
    SchemaRegistryClient.Schema s;
    try {
      s = client.schemaById(id);
    } catch (RegistryApiException e) {
      throw new SerializationException("Error retrieving " + format.name + " schema for id " + id + ": "
          + e.getMessage(), e);
    } catch (HttpTransport.UnreachableException e) {
      throw new SerializationException("Error reaching the schema registry for id " + id + ": " + e.getMessage(), e);
    }
    if (!format.type.equals(s.type())) {
      throw new SerializationException("Schema " + id + " is " + s.type() + ", not " + format.kind);
    }
    return s;
  }
}
