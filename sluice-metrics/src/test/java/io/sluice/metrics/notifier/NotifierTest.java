package io.sluice.metrics.notifier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.metrics.model.Labels;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NotifierTest {
  private static Notifier.Alert alert(int i) {
    return new Notifier.Alert(Labels.of("alertname", "A" + i, "connector", "c"), Map.of("summary", "s" + i),
        Instant.parse("2026-11-23T10:00:00Z"), Instant.parse("2026-11-23T10:04:00.5Z"), "http://x/graph");
  }

  @Test
  void sendsBatchesOfAtMost64InAlertmanagersV2ShapeWithExternalLabels() throws Exception {
    try (AlertReceiver rx = new AlertReceiver();
        Notifier n = Notifier.builder().alertmanagers(List.of(rx.url())).externalLabels(Labels.of("cluster", "eu",
            "connector", "ignored")).build()) {
      List<Notifier.Alert> alerts = new ArrayList<>();
      for (int i = 0; i < 150; i++) {
        alerts.add(alert(i));
      }
      n.send(alerts);
      rx.awaitAlert(a -> a.path("labels").path("alertname").asText().equals("A149"), 60_000);
      int total = 0;
      for (JsonNode post : rx.posts()) {
        assertTrue(post.size() <= 64, "batch of " + post.size());
        total += post.size();
      }
      assertEquals(150, total);
      assertTrue(rx.posts().size() >= 3);
      JsonNode first = rx.posts().get(0).get(0);
      assertEquals("A0", first.path("labels").path("alertname").asText());
      assertEquals("eu", first.path("labels").path("cluster").asText());
      // An external label never overrides the alert's own.
      assertEquals("c", first.path("labels").path("connector").asText());
      assertEquals("s0", first.path("annotations").path("summary").asText());
      assertEquals("2026-11-23T10:00:00.000Z", first.path("startsAt").asText());
      assertEquals("2026-11-23T10:04:00.500Z", first.path("endsAt").asText());
      assertEquals("http://x/graph", first.path("generatorURL").asText());
      // The router saw the post before the notifier saw the answer.
      await(() -> n.stats().sent() == 150);
      assertEquals(150, n.stats().sent());
    }
  }

  @Test
  void retriesAFailedPost() throws Exception {
    try (AlertReceiver rx = new AlertReceiver();
        Notifier n = Notifier.builder().alertmanagers(List.of(rx.url())).retries(2, Duration.ofMillis(50)).build()) {
      rx.failFirst(2);
      n.send(List.of(alert(1)));
      rx.awaitAlert(a -> a.path("labels").path("alertname").asText().equals("A1"), 60_000);
      await(() -> n.stats().sent() == 1);
      assertEquals(3, rx.attempts());
      assertEquals(1, n.stats().sent());
      assertEquals(0, n.stats().dropped());
    }
  }

  @Test
  void dropsABatchNoRouterAccepts() throws Exception {
    try (AlertReceiver rx = new AlertReceiver();
        Notifier n = Notifier.builder().alertmanagers(List.of(rx.url())).retries(1, Duration.ofMillis(10)).build()) {
      rx.failFirst(2);
      n.send(List.of(alert(1)));
      await(() -> n.stats().dropped() > 0);
      assertEquals(1, n.stats().dropped());
      assertEquals(2, rx.attempts());
      // The next alert goes through: the router is back.
      n.send(List.of(alert(2)));
      rx.awaitAlert(a -> a.path("labels").path("alertname").asText().equals("A2"), 60_000);
    }
  }

  static void await(java.util.function.BooleanSupplier condition) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 60_000;
    while (!condition.getAsBoolean() && System.currentTimeMillis() < deadline) {
      Thread.sleep(20);
    }
  }
}
