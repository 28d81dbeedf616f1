package io.sluice.alerts.types;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

/** Timestamps as Alertmanager writes them (Go's RFC 3339 with nanoseconds, trailing zeros dropped). */
public final class Times {
  /** Go's zero time, which Alertmanager sends as the end of a firing alert. */
  public static final String ZERO = "0001-01-01T00:00:00Z";

  private Times() {}

  public static String format(Instant t) {
    if (t == null) {
      return ZERO;
    }
    String base = DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(t.truncatedTo(ChronoUnit.SECONDS).atOffset(ZoneOffset.UTC));
    int nanos = t.getNano();
    if (nanos == 0) {
      return base + "Z";
    }
    String frac = String.format("%09d", nanos).replaceAll("0+$", "");
    return base + "." + frac + "Z";
  }

  public static Instant parse(String s) {
    return OffsetDateTime.parse(s).toInstant();
  }
}
