package io.sluice.alerts;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;
import org.junit.jupiter.api.Test;

/**
 * Alert posts are machine traffic: a sender's successful posts are one audit line and a count per window, not a line
 * each (a line cost about a quarter of the router's CPU per post), while every refusal is still a line of its own,
 * and the count of a window cut short by a stop is written before the server goes.
 */
class AuditRepeatsTest {
  @Test
  void successfulPostsAreOneLineAndACountRefusalsOneLineEach() throws Exception {
    List<String> lines = new CopyOnWriteArrayList<>();
    Logger audit = (Logger) LogManager.getLogger("io.sluice.audit");
    AbstractAppender capture = new AbstractAppender("audit-capture", null, null, true, Property.EMPTY_ARRAY) {
      @Override
      public void append(LogEvent event) {
        lines.add(event.getMessage().getFormattedMessage());
      }
    };
    capture.start();
    audit.addAppender(capture);
    try {
      AlertRouter r = AlertRouter.builder().port(0).configYaml("""
          route: {receiver: none}
          receivers: [{name: none}]
          """).manualTicks().start();
      try {
        for (int i = 0; i < 5; i++) {
          AlertRouterTest.postAlerts(r, AlertRouterTest.alert("Lag", "orders-sink", AlertRouterTest.T0, null));
        }
        for (int i = 0; i < 2; i++) {
          assertEquals(400, Http.post(r.url() + "/api/v2/alerts", "{not json").statusCode());
        }
      } finally {
        r.close();
      }
      String ok = "alerts POST /api/v2/alerts user=- address=127.0.0.1 status=200";
      String bad = "alerts POST /api/v2/alerts user=- address=127.0.0.1 status=400";
      assertEquals(List.of(ok, bad, bad, ok + " repeated=4"), lines, lines::toString);
    } finally {
      audit.removeAppender(capture);
      capture.stop();
    }
  }
}
