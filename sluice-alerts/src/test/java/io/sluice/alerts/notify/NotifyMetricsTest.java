package io.sluice.alerts.notify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.http.HttpResponse;
import io.sluice.http.MetricsPage;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class NotifyMetricsTest {
  @Test
  void writtenByThePrometheusClientWithHelpAndEscapedLabels() throws Exception {
    NotifyMetrics m = new NotifyMetrics();
    m.inc("alertmanager_notifications_total", "integration", "webhook");
    m.add("alertmanager_notifications_total", "integration", "odd\"name\\with\nnewline", 2);
    assertEquals(1, m.get("alertmanager_notifications_total", "integration", "webhook"));

    HttpResponse page = MetricsPage.render(m.registry(), "");
    String text = new String(page.body(), StandardCharsets.UTF_8);
    assertTrue(page.contentType().startsWith("text/plain; version=0.0.4"), page.contentType());
    assertTrue(text.contains("# HELP alertmanager_notifications_total The total number of attempted notifications.\n"),
        text);
    assertTrue(text.contains("# TYPE alertmanager_notifications_total counter\n"), text);
    assertTrue(text.contains("alertmanager_notifications_total{integration=\"odd\\\"name\\\\with\\nnewline\"} 2"), text);
    assertTrue(text.contains("alertmanager_notifications_total{integration=\"webhook\"} 1"), text);

    String open = new String(MetricsPage.render(m.registry(), "application/openmetrics-text; version=1.0.0").body(),
        StandardCharsets.UTF_8);
    assertTrue(open.endsWith("# EOF\n"), open);

    assertThrows(IllegalArgumentException.class, () -> m.inc("alertmanager_made_up_total", "x", "y"));
  }
}
