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
 * The schema-id rule of every registry-aware writer and reader, the Kafka serializers and deserializers and the
 * Connect converters alike, in one place. Writing, the id a record is framed with: the subject's latest version's
 * ({@code use.latest.version}), else its schema's, registered ({@code auto.register.schemas}) or looked up; once known
 * for a subject and schema, no registry call is made again. Reading, the writer schema of a framed record's id,
 * refused when it is of another format. The registry's refusals and an unreachable registry are said in the caller's
 * contract ({@link Failures}): by default Kafka's {@link SerializationException}, worded as Confluent's serdes word
 * them.
 *
 * <pre>{@code
 * SchemaIds ids = new SchemaIds(config, client, SchemaIds.Format.AVRO);
 * int id = ids.idFor(topic, subject, schema,
 *     () -> new SchemaRegistryClient.Schema("AVRO", schema.toString(), List.of()));
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

    /** The format as a person names it: Avro, Protobuf, JSON Schema. */
    public String kind() {
      return kind;
    }
  }

  /**
   * How a caller says that the id of a schema cannot be had. The rule is the same for every caller; the exception
   * and its words are the caller's contract: Kafka's serdes throw {@link SerializationException} as Confluent's do,
   * Connect's converters a {@code DataException}.
   */
  public interface Failures {
    /** {@code use.latest.version}, and the subject has no version. */
    RuntimeException noVersion(String topic, String subject);

    /** Not {@code auto.register.schemas}, and the subject does not hold the schema. */
    RuntimeException notRegistered(String topic, String subject);

    /**
     * The registry refused the schema as incompatible with {@code version} of the subject (0 when it did not say);
     * {@code refusal} says so for an operator: the subject, the versions it holds, the mode, each rule
     * in the registry's words and the ways on.
     */
    RuntimeException incompatible(String topic, String subject, String refusal, int version);

    /** Any other error answer of the registry. */
    RuntimeException failed(String topic, String subject, RegistryApiException e);

    RuntimeException unreachable(String topic, String subject, HttpTransport.UnreachableException e);
  }

  /** Kafka's serdes' words, as Confluent's serdes say them. */
  private record SerdeFailures(Format format) implements Failures {
    @Override
    public RuntimeException noVersion(String topic, String subject) {
      return new SerializationException("Error retrieving the latest version of subject " + subject
          + ": Subject not found");
    }

    @Override
    public RuntimeException notRegistered(String topic, String subject) {
      return new SerializationException("Error retrieving " + format.name + " schema for subject " + subject
          + ": Schema not found; auto.register.schemas is false");
    }

    @Override
    public RuntimeException incompatible(String topic, String subject, String refusal, int version) {
      return new SerializationException(refusal);
    }

    @Override
    public RuntimeException failed(String topic, String subject, RegistryApiException e) {
      return new SerializationException("Error registering " + format.name + " schema for subject " + subject + ": "
          + e.getMessage(), e);
    }

    @Override
    public RuntimeException unreachable(String topic, String subject, HttpTransport.UnreachableException e) {
      return new SerializationException("Error reaching the schema registry for subject " + subject + ": "
          + e.getMessage(), e);
    }
  }

  private record Key(String subject, Object schema) {}

  private final SerdeConfig config;
  private final SchemaRegistryClient client;
  private final Format format;
  private final Failures failures;
  private final Map<Key, Integer> ids = new ConcurrentHashMap<>();
  private final Map<String, SchemaRegistryClient.SubjectVersion> latest = new ConcurrentHashMap<>();

  /** The rule as Kafka's serdes keep it, their failures a {@link SerializationException}. */
  public SchemaIds(SerdeConfig config, SchemaRegistryClient client, Format format) {
    this(config, client, format, new SerdeFailures(format));
  }

  public SchemaIds(SerdeConfig config, SchemaRegistryClient client, Format format, Failures failures) {
    this.config = config;
    this.client = client;
    this.format = format;
    this.failures = failures;
  }

  /**
   * The id to frame a record of {@code topic} with under {@code subject}. {@code key} stands for the record's schema
   * in the cache (the schema itself, or what names it); {@code schema} is asked only when the registry must be.
   */
  public int idFor(String topic, String subject, Object key, Supplier<SchemaRegistryClient.Schema> schema) {
    if (config.useLatestVersion()) {
      return latest(topic, subject).id();
    }
    Key k = new Key(subject, key);
    Integer known = ids.get(k);
    if (known != null) {
      return known;
    }
    int id = asked(topic, subject, () -> {
      SchemaRegistryClient.Schema s = schema.get();
      return config.autoRegister() ? client.register(subject, s)
          : client.idOf(subject, s).orElseThrow(() -> failures.notRegistered(topic, subject));
    });
    ids.put(k, id);
    return id;
  }

  /** The latest version of the subject records of {@code topic} are written under, asked once. */
  public SchemaRegistryClient.SubjectVersion latest(String topic, String subject) {
    SchemaRegistryClient.SubjectVersion known = latest.get(subject);
    if (known != null) {
      return known;
    }
    SchemaRegistryClient.SubjectVersion v = asked(topic, subject, () -> client.latest(subject).orElseThrow(() ->
        failures.noVersion(topic, subject)));
    latest.put(subject, v);
    return v;
  }

  private <T> T asked(String topic, String subject, Supplier<T> call) {
    try {
      return call.get();
    } catch (RegistryApiException e) {
      if (e.incompatibility().isPresent()) {
        // The registry's whole answer holds the old schema's text: attached, not the cause, since the deepest cause
        // is what an operator is shown of a failed task.
        RuntimeException refused = failures.incompatible(topic, subject,
            refusal(client, format.type, topic, subject, e), e.incompatibility().get().version());
        refused.addSuppressed(e);
        throw refused;
      }
      throw failures.failed(topic, subject, e);
    } catch (HttpTransport.UnreachableException e) {
      throw failures.unreachable(topic, subject, e);
    }
  }

  /**
   * What a writer whose new schema the registry refused as incompatible says: the subject, the version it broke with
   * among the subject's versions, the mode and each rule in the registry's words, and the ways on. The registry's
   * whole answer, which holds the old schema's text, is attached to what is thrown.
   */
  private static String refusal(SchemaRegistryClient client, String type, String topic, String subject,
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
