package io.sluice.metrics.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.metrics.model.Labels;
import io.sluice.metrics.promql.Engine;
import io.sluice.metrics.storage.Appender;
import io.sluice.metrics.tsdb.Db;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** After a restart, alerts get back their activation time from ALERTS_FOR_STATE, as Prometheus restores them. */
class RestoreForStateTest {
  static final long MIN = 60_000;

  @TempDir
  Path dir;

  private Group load() throws Exception {
    Path f = dir.resolve("r.yml");
    Files.writeString(f, """
        groups:
          - name: g
            rules:
              - alert: Saturated
                expr: ratio < 0.7
                for: 15m
        """);
    return Ruler.loadGroups(List.of(f), Duration.ofMinutes(1)).get(0);
  }

  private static Db saturatedForAnHour() {
    Db db = Db.inMemory();
    Appender app = db.appender();
    for (long t = 0; t <= 60 * MIN; t += MIN) {
      app.append(Labels.of("__name__", "ratio", "task", "0"), t, 0.5);
    }
    app.commit();
    return db;
  }

  private static void evalEach(Group g, Db db, long from, long to) {
    Engine engine = Engine.builder().build();
    Rule.RuleContext ctx = new Rule.RuleContext(Labels.EMPTY, "", 0, Ruler.templateQuery(engine, db));
    for (long t = from; t <= to; t += MIN) {
      g.eval(t, db, Ruler.queryFunction(engine, db), ctx, MIN, Group.AlertSender.NONE);
    }
  }

  private static Alert only(Group g) {
    List<Alert> a = ((AlertingRule) g.rules().get(0)).activeAlerts();
    assertEquals(1, a.size(), a.toString());
    return a.get(0);
  }

  @Test
  void restoresFiringAndPendingAlerts() throws Exception {
    try (Db db = saturatedForAnHour()) {
      Group before = load();
      evalEach(before, db, 0, 16 * MIN);
      assertEquals(Alert.State.FIRING, only(before).state());

      // Restart at 18m: the alert was firing, so it fires again at once.
      Group after = load();
      after.awaitRestore();
      evalEach(after, db, 18 * MIN, 18 * MIN);
      after.restoreForState(18 * MIN, db, 60 * MIN, 10 * MIN);
      assertEquals(0, only(after).activeAt());
      evalEach(after, db, 19 * MIN, 19 * MIN);
      assertEquals(Alert.State.FIRING, only(after).state());
    }
  }

  @Test
  void aPendingAlertKeepsItsTimeButWaitsTheGracePeriod() throws Exception {
    try (Db db = saturatedForAnHour()) {
      Group before = load();
      evalEach(before, db, 0, 2 * MIN);
      assertEquals(Alert.State.PENDING, only(before).state());
      // Down from 2m to 10m: 13m of `for` remain, more than the grace period; activeAt moves by the downtime.
      Group after = load();
      after.awaitRestore();
      evalEach(after, db, 10 * MIN, 10 * MIN);
      after.restoreForState(10 * MIN, db, 60 * MIN, 10 * MIN);
      assertEquals(8 * MIN, only(after).activeAt());
      evalEach(after, db, 11 * MIN, 22 * MIN);
      assertEquals(Alert.State.PENDING, only(after).state());
      evalEach(after, db, 23 * MIN, 23 * MIN);
      assertEquals(Alert.State.FIRING, only(after).state());
      assertTrue(db.querier(0, 30 * MIN).select(List.of(io.sluice.metrics.model.Matcher.eq("__name__", "ALERTS")))
          .size() > 0);
    }
  }
}
