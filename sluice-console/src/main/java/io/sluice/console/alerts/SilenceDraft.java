package io.sluice.console.alerts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.gofmt.GoDuration;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A silence as the console's form gives it, checked as Alertmanager's own silence form checks it before it posts
 * (a comment and a creator, each matcher with a name, a start and an end that is not before it; the end given or
 * the start plus a duration such as {@code 2h}), then written as the body of {@code POST /api/v2/silences}. The
 * router checks the rest (label names, a matcher that matches the empty string, an end in the past) and its words
 * are shown as it gives them. An {@code id} edits that silence, as Alertmanager's form does: the router updates it in
 * place or expires it and creates a new one, as Alertmanager decides.
 *
 * @param id the silence edited, or null for a new one
 * @param body the body to post, when {@code errors} is empty
 * @param errors what is wrong, by the form's field ({@code comment}, {@code matchers}, {@code matcher.N},
 *     {@code startsAt}, {@code endsAt}, {@code duration})
 */
public record SilenceDraft(String id, ObjectNode body, Map<String, String> errors) {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Alertmanager's form proposes two hours. */
  public static final Duration DEFAULT_DURATION = Duration.ofHours(2);

  /** Reads the form's JSON ({@code matchers}, {@code startsAt}, {@code endsAt} or {@code duration}, {@code comment}). */
  public static SilenceDraft of(JsonNode form, String createdBy, Instant now) {
    Map<String, String> errors = new LinkedHashMap<>();
    String id = form.path("id").asText("").trim();
    String comment = form.path("comment").asText("").trim();
    if (comment.isEmpty()) {
      errors.put("comment", "Required: say why, for whoever sees the silence");
    }
    if (createdBy == null || createdBy.isBlank()) {
      errors.put("createdBy", "Required");
    }
    ArrayNode matchers = JSON.createArrayNode();
    List<JsonNode> given = new ArrayList<>();
    form.path("matchers").forEach(given::add);
    if (given.isEmpty()) {
      errors.put("matchers", "at least one matcher required");
    }
    for (int i = 0; i < given.size(); i++) {
      JsonNode m = given.get(i);
      String name = m.path("name").asText("").trim();
      if (name.isEmpty()) {
        errors.put("matcher." + i, "Required: a label name");
        continue;
      }
      matchers.addObject().put("name", name).put("value", m.path("value").asText(""))
          .put("isRegex", m.path("isRegex").asBoolean(false)).put("isEqual", m.path("isEqual").asBoolean(true));
    }
    Instant starts = time(form.path("startsAt").asText(""), now, "startsAt", errors);
    Instant ends = null;
    String endsText = form.path("endsAt").asText("").trim();
    String durationText = form.path("duration").asText("").trim();
    if (!endsText.isEmpty()) {
      ends = time(endsText, null, "endsAt", errors);
    } else if (starts != null) {
      try {
        Duration d = durationText.isEmpty() ? DEFAULT_DURATION : GoDuration.parse(durationText);
        if (d.isNegative() || d.isZero()) {
          errors.put("duration", "must be longer than 0");
        } else {
          ends = starts.plus(d);
        }
      } catch (IllegalArgumentException e) {
        errors.put("duration", "'" + durationText + "' is not a duration such as 2h or 30m");
      }
    }
    if (starts != null && ends != null && ends.isBefore(starts)) {
      errors.put("endsAt", "Can't be before the start");
    }
    if (!errors.isEmpty()) {
      return new SilenceDraft(id.isEmpty() ? null : id, null, errors);
    }
    ObjectNode body = JSON.createObjectNode();
    if (!id.isEmpty()) {
      body.put("id", id);
    }
    body.set("matchers", matchers);
    body.put("startsAt", starts.toString()).put("endsAt", ends.toString()).put("createdBy", createdBy)
        .put("comment", comment);
    return new SilenceDraft(id.isEmpty() ? null : id, body, Map.of());
  }

  /** An RFC 3339 time; empty for {@code absent} (null: required). */
  private static Instant time(String text, Instant absent, String field, Map<String, String> errors) {
    if (text.isBlank()) {
      if (absent == null) {
        errors.put(field, "Required");
      }
      return absent;
    }
    try {
      return Instant.parse(text.trim());
    } catch (DateTimeParseException e) {
      try {
        return java.time.OffsetDateTime.parse(text.trim()).toInstant();
      } catch (DateTimeParseException again) {
        errors.put(field, "'" + text + "' is not a time such as 2026-11-26T14:00:00Z");
        return null;
      }
    }
  }

  /**
   * The matchers of a silence for one alert, as Alertmanager's "Silence" button on an alert fills them: each of its
   * labels, equal to its value.
   */
  public static ArrayNode matchersOf(JsonNode labels) {
    ArrayNode out = JSON.createArrayNode();
    labels.fieldNames().forEachRemaining(name -> out.addObject().put("name", name)
        .put("value", labels.path(name).asText()).put("isRegex", false).put("isEqual", true));
    return out;
  }
}
