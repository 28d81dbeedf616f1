package io.sluice.sink.jdbc.types;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class FullDayTimeTypeTest {
  @Test
  void aTimeOutsideADayIsWrittenAsItsDuration() {
    assertEquals("-838:59:59", FullDayTimeType.duration(-838L * 3600 - 59 * 60 - 59, 1));
    assertEquals("-1:02:03.456789", FullDayTimeType.duration(-3_723_456_789L, 1_000_000L));
    assertEquals("12:34:56.789", FullDayTimeType.duration(45_296_789L, 1_000L));
    assertEquals("0:00:00", FullDayTimeType.duration(0, 1_000_000L));
  }
}
