package io.sluice.alerts.silence;

import io.sluice.alerts.labels.Matcher;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/** A silence: alerts matching all matchers are muted between startsAt and endsAt. */
public record Silence(
    String id,
    List<Matcher> matchers,
    Instant startsAt,
    Instant endsAt,
    Instant updatedAt,
    String createdBy,
    String comment) {

  public enum State {
    PENDING, ACTIVE, EXPIRED;

    public String apiName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public Silence {
    matchers = List.copyOf(matchers);
  }

  public State state(Instant now) {
    if (now.isBefore(startsAt)) {
      return State.PENDING;
    }
    return now.isBefore(endsAt) ? State.ACTIVE : State.EXPIRED;
  }

  Silence withId(String newId) {
    return new Silence(newId, matchers, startsAt, endsAt, updatedAt, createdBy, comment);
  }

  Silence withTimes(Instant start, Instant end, Instant updated) {
    return new Silence(id, matchers, start, end, updated, createdBy, comment);
  }
}
