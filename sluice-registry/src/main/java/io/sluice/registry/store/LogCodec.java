package io.sluice.registry.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.http.Json;
import io.sluice.schema.CompatibilityLevel;
import io.sluice.schema.CompatibilityPolicy;
import io.sluice.schema.SchemaReference;
import io.sluice.schema.SchemaType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * JSON form of log records. The value carries the event and {@code expectedOffset}, the log position the writer
 * decided against (see {@link KafkaLogStore}); a record written in a group after the group's first also carries the
 * group ({@code batch}, unique to one append of one node) and its place in it ({@code batchIndex}). The key names the
 * event's kind and subject plus the attempt, so that compaction never lets one write shadow another.
 */
final class LogCodec {
  private LogCodec() {}

  /** A record's event and where its writer meant it to go; {@code batch} is null for a record written alone. */
  record Decoded(long expectedOffset, String batch, int batchIndex, LogEvent event) {}

  static byte[] key(LogEvent event, String attempt) {
    ObjectNode k = Json.MAPPER.createObjectNode();
    k.put("keytype", kind(event));
    String subject = subject(event);
    if (subject != null) {
      k.put("subject", subject);
    }
    k.put("magic", 1);
    k.put("attempt", attempt);
    return Json.write(k);
  }

  static byte[] value(LogEvent event, long expectedOffset) {
    return value(event, expectedOffset, null, 0);
  }

  /** A record of a group of writes: {@code batch} names the group, null for a record written alone. */
  static byte[] value(LogEvent event, long expectedOffset, String batch, int batchIndex) {
    ObjectNode v = Json.MAPPER.createObjectNode();
    v.put("keytype", kind(event));
    v.put("expectedOffset", expectedOffset);
    if (batch != null) {
      v.put("batch", batch);
      v.put("batchIndex", batchIndex);
    }
    if (event instanceof LogEvent.Registered r) {
      v.put("subject", r.subject());
      v.put("version", r.version());
      v.put("id", r.id());
      v.put("schemaType", r.type().name());
      v.put("schema", r.schema());
      ArrayNode refs = v.putArray("references");
      for (SchemaReference ref : r.references()) {
        refs.addObject().put("name", ref.name()).put("subject", ref.subject()).put("version", ref.version());
      }
    } else if (event instanceof LogEvent.VersionDeleted d) {
      v.put("subject", d.subject());
      v.put("version", d.version());
      v.put("permanent", d.permanent());
    } else if (event instanceof LogEvent.SubjectDeleted d) {
      v.put("subject", d.subject());
      v.put("permanent", d.permanent());
    } else if (event instanceof LogEvent.ConfigSet c) {
      v.put("subject", c.subject());
      v.put("compatibilityLevel", c.level() == null ? null : c.level().name());
      if (c.policy() != null) {
        v.put("compatibilityPolicy", c.policy().name());
      }
    } else if (event instanceof LogEvent.ModeSet m) {
      v.put("subject", m.subject());
      v.put("mode", m.mode() == null ? null : m.mode().name());
    }
    return Json.write(v);
  }

  static Decoded decode(byte[] value) {
    JsonNode v;
    try {
      v = Json.MAPPER.readTree(new String(value, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    long expected = v.path("expectedOffset").asLong(-1);
    String batch = v.path("batch").isTextual() ? v.get("batch").asText() : null;
    int batchIndex = batch == null ? 0 : v.path("batchIndex").asInt(-1);
    String subject = v.path("subject").isTextual() ? v.get("subject").asText() : null;
    LogEvent event = switch (v.path("keytype").asText()) {
      case "SCHEMA" -> {
        List<SchemaReference> refs = new ArrayList<>();
        for (JsonNode r : v.path("references")) {
          refs.add(new SchemaReference(r.path("name").asText(), r.path("subject").asText(), r.path("version").asInt()));
        }
        yield new LogEvent.Registered(subject, v.path("version").asInt(), v.path("id").asInt(),
            SchemaType.valueOf(v.path("schemaType").asText("AVRO")), v.path("schema").asText(), refs);
      }
      case "DELETE_VERSION" -> new LogEvent.VersionDeleted(subject, v.path("version").asInt(),
          v.path("permanent").asBoolean());
      case "DELETE_SUBJECT" -> new LogEvent.SubjectDeleted(subject, v.path("permanent").asBoolean());
      case "CONFIG" -> new LogEvent.ConfigSet(subject,
          v.path("compatibilityLevel").isTextual() ? CompatibilityLevel.valueOf(v.get("compatibilityLevel").asText()) : null,
          v.path("compatibilityPolicy").isTextual()
              ? CompatibilityPolicy.valueOf(v.get("compatibilityPolicy").asText()) : null);
      case "MODE" -> new LogEvent.ModeSet(subject,
          v.path("mode").isTextual() ? Mode.valueOf(v.get("mode").asText()) : null);
      default -> null;
    };
    return new Decoded(expected, batch, batchIndex, event);
  }

  private static String kind(LogEvent event) {
    if (event instanceof LogEvent.Registered) {
      return "SCHEMA";
    } else if (event instanceof LogEvent.VersionDeleted) {
      return "DELETE_VERSION";
    } else if (event instanceof LogEvent.SubjectDeleted) {
      return "DELETE_SUBJECT";
    } else if (event instanceof LogEvent.ConfigSet) {
      return "CONFIG";
    }
    return "MODE";
  }

  private static String subject(LogEvent event) {
    if (event instanceof LogEvent.Registered r) {
      return r.subject();
    } else if (event instanceof LogEvent.VersionDeleted d) {
      return d.subject();
    } else if (event instanceof LogEvent.SubjectDeleted d) {
      return d.subject();
    } else if (event instanceof LogEvent.ConfigSet c) {
      return c.subject();
    }
    return ((LogEvent.ModeSet) event).subject();
  }
}
