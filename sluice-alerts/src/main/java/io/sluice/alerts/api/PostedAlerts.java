package io.sluice.alerts.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.sluice.http.Json;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Streams a POSTed JSON array of alerts into plain values without building a JSON tree: alert ingestion is the
 * router's hot path. A malformed alert (a label that is not a string, say) is kept with its problem so the batch can
 * store the others and report it, as Alertmanager does.
 */
final class PostedAlerts {
  record Posted(Map<String, String> labels, Map<String, String> annotations, String startsAt, String endsAt,
      String generatorURL, String problem) {}

  private PostedAlerts() {}

  /** Throws {@link Json.MalformedJsonException} when the body is not a JSON array of objects. */
  static List<Posted> parse(byte[] body) {
    try (JsonParser p = Json.MAPPER.getFactory().createParser(body)) {
      if (p.nextToken() != JsonToken.START_ARRAY) {
        throw new Json.MalformedJsonException("expected a JSON array of alerts");
      }
      List<Posted> out = new ArrayList<>();
      JsonToken t;
      while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
        if (t != JsonToken.START_OBJECT) {
          throw new Json.MalformedJsonException("expected an alert object");
        }
        out.add(alert(p));
      }
      if (p.nextToken() != null) {
        throw new Json.MalformedJsonException("unexpected data after the alerts array");
      }
      return out;
    } catch (IOException e) {
      String msg = e instanceof com.fasterxml.jackson.core.JsonProcessingException j ? j.getOriginalMessage()
          : e.getMessage();
      throw new Json.MalformedJsonException(msg);
    }
  }

  private static Posted alert(JsonParser p) throws IOException {
    Map<String, String> labels = new HashMap<>();
    Map<String, String> annotations = new HashMap<>();
    String startsAt = "";
    String endsAt = "";
    String generatorURL = "";
    String problem = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken v = p.nextToken();
      switch (field) {
        case "labels", "annotations" -> {
          Map<String, String> target = field.equals("labels") ? labels : annotations;
          if (v == JsonToken.VALUE_NULL) {
            break;
          }
          if (v != JsonToken.START_OBJECT) {
            problem = problem != null ? problem : field + " must be an object of strings";
            p.skipChildren();
            break;
          }
          while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            if (p.nextToken() == JsonToken.VALUE_STRING) {
              target.put(name, p.getText());
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
    return new Posted(labels, annotations, startsAt, endsAt, generatorURL, problem);
  }
}
