package io.sluice.alerts.config;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.List;

/**
 * One entry of a named time interval, Alertmanager's semantics: every field that is set must match, an empty field
 * matches everything; {@code times} are [start, end) in minutes of the day; negative days of month count from the
 * month's end; all evaluated in {@code location} (UTC by default).
 */
public record TimeInterval(
    List<Range> times,
    List<Range> weekdays,
    List<Range> daysOfMonth,
    List<Range> months,
    List<Range> years,
    ZoneId location) {

  /** An inclusive range, except {@code times}, whose end is exclusive. */
  public record Range(int begin, int end) {}

  public boolean contains(Instant instant) {
    ZonedDateTime t = instant.atZone(location);
    if (!times.isEmpty()) {
      int minute = t.getHour() * 60 + t.getMinute();
      if (times.stream().noneMatch(r -> minute >= r.begin && minute < r.end)) {
        return false;
      }
    }
    if (!weekdays.isEmpty()) {
      int dow = t.getDayOfWeek().getValue() % 7; // Sunday = 0, as in Alertmanager
      if (weekdays.stream().noneMatch(r -> dow >= r.begin && dow <= r.end)) {
        return false;
      }
    }
    if (!daysOfMonth.isEmpty()) {
      int len = LocalDate.from(t).lengthOfMonth();
      int dom = t.getDayOfMonth();
      boolean any = false;
      for (Range r : daysOfMonth) {
        int b = r.begin < 0 ? len + r.begin + 1 : r.begin;
        int e = r.end < 0 ? len + r.end + 1 : r.end;
        if (b <= len && dom >= b && dom <= Math.min(e, len)) {
          any = true;
          break;
        }
      }
      if (!any) {
        return false;
      }
    }
    if (!months.isEmpty()) {
      int m = t.getMonthValue();
      if (months.stream().noneMatch(r -> m >= r.begin && m <= r.end)) {
        return false;
      }
    }
    if (!years.isEmpty()) {
      int y = t.getYear();
      return years.stream().anyMatch(r -> y >= r.begin && y <= r.end);
    }
    return true;
  }

  public static boolean anyContains(List<TimeInterval> intervals, Instant instant) {
    for (TimeInterval ti : intervals) {
      if (ti.contains(instant)) {
        return true;
      }
    }
    return false;
  }
}
