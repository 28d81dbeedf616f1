package io.sluice.alerts.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import io.sluice.alerts.labels.LabelMap;
import io.sluice.alerts.labels.SharedStrings;
import io.sluice.http.Json;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Streams a POSTed JSON array of alerts into plain values without building a JSON tree: alert ingestion is the
 * router's hot path. A malformed alert (a label that is not a string, say) is kept with its problem so the batch can
 * store the others and report it, as Alertmanager does.
 */
final class PostedAlerts {
  /** Labels come without their empty values (Alertmanager drops them); annotations as posted. */
  record Posted(LabelMap labels, LabelMap annotations, String startsAt, String endsAt, String generatorURL,
      String problem) {}

  private PostedAlerts() {}

  /** Throws {@link Json.MalformedJsonException} when the body is not a JSON array of objects. */
  static List<Posted> parse(byte[] body) {
    try (JsonParser p = Json.MAPPER.getFactory().createParser(body)) {
      if (p.nextToken() != JsonToken.START_ARRAY) {
        throw new Json.MalformedJsonException("expected a JSON array of alerts");
      }
      List<Posted> out = new ArrayList<>();
      LabelMap.Builder labels = new LabelMap.Builder();
      LabelMap.Builder annotations = new LabelMap.Builder();
      JsonToken t;
      while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
        if (t != JsonToken.START_OBJECT) {
          throw new Json.MalformedJsonException("expected an alert object");
        }
        out.add(alert(p, labels, annotations));
      }
      if (p.nextToken() != null) {
        throw new Json.MalformedJsonException("unexpected data after the alerts array");
      }
      return out;
    } catch (IOException e) {
      String msg = e instanceof JsonProcessingException j ? j.getOriginalMessage()
          : e.getMessage();
      throw new Json.MalformedJsonException(msg);
    }
  }

  private static Posted alert(JsonParser p, LabelMap.Builder labels, LabelMap.Builder annotations)
      throws IOException {
    String startsAt = "";
    String endsAt = "";
    String generatorURL = "";
    String problem = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken v = p.nextToken();
      switch (field) {
        case "labels", "annotations" -> {
          LabelMap.Builder target = field.equals("labels") ? labels : annotations;
          if (v == JsonToken.VALUE_NULL) {
            break;
          }
          if (v != JsonToken.START_OBJECT) {
            problem = problem != null ? problem : field + " must be an object of strings";
            p.skipChildren();
            break;
          }
          while (p.nextToken() == JsonToken.FIELD_NAME) {
            // Field names come from the parser's symbol table, already one instance per distinct name.
            String name = p.currentName();
            if (p.nextToken() == JsonToken.VALUE_STRING) {
              target.put(name, SharedStrings.share(p.getTextCharacters(), p.getTextOffset(), p.getTextLength()));
            } else {
              problem = problem != null ? problem : field + "." + name + " must be a string";
              p.skipChildren();
            }
          }
        }
        case "startsAt", "endsAt", "generatorURL" -> {
          String s = v == JsonToken.VALUE_NULL ? "" : v.isScalarValue() ? p.getText() : null;
          if (s == null) {
            problem = problem != null ? problem : field + " must be a string";
            p.skipChildren();
            s = "";
          }
          if (field.equals("startsAt")) {
            startsAt = s;
          } else if (field.equals("endsAt")) {
            endsAt = s;
          } else {
            generatorURL = s;
          }
        }
        default -> p.skipChildren();
      }
    }
    return new Posted(labels.build(true), annotations.buildShared(), startsAt, endsAt, generatorURL, problem);
  }
}
