package io.sluice.console.alerts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A silence checked as Alertmanager's form checks it, and written as POST /api/v2/silences takes it. */
class SilenceDraftTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant NOW = Instant.parse("2026-11-26T12:00:00Z");

  private static JsonNode form(String json) throws Exception {
    return JSON.readTree(json);
  }

  @Test
  void aCompleteFormBecomesTheRoutersBodyStartingNowForTwoHoursByDefault() throws Exception {
    SilenceDraft d = SilenceDraft.of(form("{\"matchers\":[{\"name\":\"connector\",\"value\":\"orders-sink\"}],"
        + "\"comment\":\"maintenance\"}"), "ops", NOW);
    assertEquals(Set.of(), d.errors().keySet());
    assertNull(d.id());
    assertEquals(JSON.readTree("{\"matchers\":[{\"name\":\"connector\",\"value\":\"orders-sink\",\"isRegex\":false,"
        + "\"isEqual\":true}],\"startsAt\":\"2026-11-26T12:00:00Z\",\"endsAt\":\"2026-11-26T14:00:00Z\","
        + "\"createdBy\":\"ops\",\"comment\":\"maintenance\"}"), d.body());
  }

  @Test
  void anEditKeepsItsIdAndTakesAnEndOrADuration() throws Exception {
    SilenceDraft d = SilenceDraft.of(form("{\"id\":\"4b0b3c7e-0000-4000-8000-000000000001\",\"matchers\":[{\"name\":"
        + "\"alertname\",\"value\":\"Connect.*\",\"isRegex\":true,\"isEqual\":false}],\"startsAt\":"
        + "\"2026-11-26T13:00:00+01:00\",\"duration\":\"90m\",\"comment\":\"c\"}"), "ops", NOW);
    assertEquals(Set.of(), d.errors().keySet());
    assertEquals("4b0b3c7e-0000-4000-8000-000000000001", d.body().path("id").asText());
    assertEquals("2026-11-26T12:00:00Z", d.body().path("startsAt").asText());
    assertEquals("2026-11-26T13:30:00Z", d.body().path("endsAt").asText());
    assertTrue(d.body().path("matchers").get(0).path("isRegex").asBoolean());
    assertEquals(false, d.body().path("matchers").get(0).path("isEqual").asBoolean());
    SilenceDraft end = SilenceDraft.of(form("{\"matchers\":[{\"name\":\"a\",\"value\":\"b\"}],\"endsAt\":"
        + "\"2026-11-27T00:00:00Z\",\"duration\":\"1h\",\"comment\":\"c\"}"), "ops", NOW);
    assertEquals("2026-11-27T00:00:00Z", end.body().path("endsAt").asText(), "an end given wins over a duration");
  }

  @Test
  void whatAlertmanagersFormRequiresIsRequiredFieldByField() throws Exception {
    SilenceDraft d = SilenceDraft.of(form("{\"matchers\":[{\"name\":\"\",\"value\":\"x\"},{\"name\":\"ok\"}],"
        + "\"startsAt\":\"tomorrow\",\"comment\":\" \"}"), "ops", NOW);
    assertEquals(Set.of("comment", "matcher.0", "startsAt"), d.errors().keySet());
    assertNull(d.body());
    assertEquals("at least one matcher required", SilenceDraft.of(form("{\"comment\":\"c\"}"), "ops", NOW)
        .errors().get("matchers"));
    assertEquals("Can't be before the start", SilenceDraft.of(form("{\"matchers\":[{\"name\":\"a\",\"value\":\"b\"}],"
        + "\"startsAt\":\"2026-11-26T12:00:00Z\",\"endsAt\":\"2026-11-26T11:00:00Z\",\"comment\":\"c\"}"), "ops", NOW)
        .errors().get("endsAt"));
    assertTrue(SilenceDraft.of(form("{\"matchers\":[{\"name\":\"a\",\"value\":\"b\"}],\"duration\":\"soon\","
        + "\"comment\":\"c\"}"), "ops", NOW).errors().get("duration").contains("not a duration"));
  }

  @Test
  void anAlertsLabelsBecomeEqualityMatchers() throws Exception {
    assertEquals(JSON.readTree("[{\"name\":\"alertname\",\"value\":\"ConnectHighLag\",\"isRegex\":false,"
        + "\"isEqual\":true},{\"name\":\"connector\",\"value\":\"c1\",\"isRegex\":false,\"isEqual\":true}]"),
        SilenceDraft.matchersOf(form("{\"alertname\":\"ConnectHighLag\",\"connector\":\"c1\"}")));
  }
}
