package io.sluice.sink.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.debezium.connector.jdbc.dialect.DatabaseDialect;
import io.debezium.connector.jdbc.type.SharedTypes;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Sink tasks whose dialects answer alike write at once; while one answers differently (here another database time
 * zone), each write has Debezium's shared column types answering for the writing task's own dialect.
 */
class SinkDialectsTest {

  @Test
  void tasksOfOneZoneWriteAtOnceAndTasksOfTwoZonesEachWriteWithTheirOwnDialect() {
    String url = TestPostgres.createDatabase("sink_dialects");
    ChangeEvents utcEvents = ChangeEvents.ofIntKey("utc.public.orders");
    ChangeEvents sameEvents = ChangeEvents.ofIntKey("same.public.orders");
    ChangeEvents parisEvents = ChangeEvents.ofIntKey("paris.public.orders");
    int before = SinkDialects.live();
    try (DrivenTask utc = new DrivenTask(url, "utc", utcEvents.topic, "orders_utc",
        Map.of("database.time_zone", "UTC"))) {
      DatabaseDialect utcDialect = SharedTypes.boundDialect();
      try (DrivenTask same = new DrivenTask(url, "same", sameEvents.topic, "orders_same",
          Map.of("database.time_zone", "UTC"))) {
        assertFalse(SinkDialects.oneAtATime(), "one database kind and zone: writes at once");
        same.put(List.of(sameEvents.insert(1, sameEvents.row(1))), 1);
      }

      try (DrivenTask paris = new DrivenTask(url, "paris", parisEvents.topic, "orders_paris",
          Map.of("database.time_zone", "Europe/Paris"))) {
        DatabaseDialect parisDialect = SharedTypes.boundDialect();
        assertNotSame(utcDialect, parisDialect);
        assertTrue(SinkDialects.oneAtATime(), "two zones: one write at a time");

        utc.put(List.of(utcEvents.insert(1, utcEvents.row(1))), 1);
        assertSame(utcDialect, SharedTypes.boundDialect(), "the types answered for the task that wrote");
        paris.put(List.of(parisEvents.insert(1, parisEvents.row(1))), 1);
        assertSame(parisDialect, SharedTypes.boundDialect(), "and then for the other");
        utc.put(List.of(utcEvents.insert(2, utcEvents.row(2))), 1);
        assertSame(utcDialect, SharedTypes.boundDialect());
      }
      assertFalse(SinkDialects.oneAtATime(), "the other zone's task stopped: writes at once again");
      assertEquals(before + 1, SinkDialects.live());
    }
    assertEquals(before, SinkDialects.live(), "a stopped task leaves the gate");
  }
}
