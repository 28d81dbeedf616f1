package io.sluice.app.up;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.sluice.client.ClientOptions;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What the supervisor tells a router (a listener of the test's, over loopback) of a plane that is down. */
class ComponentAlertTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private HttpServer router;
  private final List<JsonNode> posted = new CopyOnWriteArrayList<>();
  private final AtomicInteger refuseFirst = new AtomicInteger();

  @BeforeEach
  void start() throws Exception {
    router = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    router.createContext("/api/v2/alerts", exchange -> {
      byte[] body = exchange.getRequestBody().readAllBytes();
      boolean refuse = refuseFirst.getAndDecrement() > 0;
      if (!refuse) {
        posted.add(JSON.readTree(body).get(0));
      }
      byte[] answer = (refuse ? "busy" : "").getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(refuse ? 503 : 200, answer.length == 0 ? -1 : answer.length);
      exchange.close();
    });
    router.start();
  }

  @AfterEach
  void stop() {
    router.stop(0);
  }

  private String url() {
    return "http://127.0.0.1:" + router.getAddress().getPort();
  }

  /**
   * A firing alert the router did not take is sent again within seconds, not at the next minute's resend: an outage
   * shorter than that would otherwise reach the router only as resolved, which it never notifies.
   */
  @Test
  void aFiringAlertTheRouterRefusedIsSentAgainSoon() throws Exception {
    // Two refusals: whether the first send was the firing's own or the router's first resend, the alert reaches the
    // router only through a retry, seconds later, well before the minute's resend.
    refuseFirst.set(2);
    try (ComponentAlert alert = new ComponentAlert(ClientOptions.defaults(), "host-1")) {
      alert.routerReady(url());
      alert.fire("data-plane", "the data plane");
      // 40 s: short of the minute's resend, so only a retry can bring it.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
      while (posted.isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertTrue(!posted.isEmpty() && refuseFirst.get() < 0, "after both refusals a retry reached the router: "
          + posted + ", refusals left " + Math.max(0, refuseFirst.get()));
      JsonNode a = posted.get(0);
      assertEquals("SluiceComponentDown", a.path("labels").path("alertname").asText(), a.toString());
      assertEquals("data-plane", a.path("labels").path("component").asText(), a.toString());
      assertTrue(Instant.parse(a.path("endsAt").asText()).isAfter(Instant.now()), "firing: " + a);

      alert.resolve("data-plane");
      deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (posted.stream().noneMatch(ComponentAlertTest::resolved) && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertTrue(posted.stream().anyMatch(ComponentAlertTest::resolved), posted::toString);
    }
  }

  /** An alert whose end is now or past. */
  private static boolean resolved(JsonNode alert) {
    return !Instant.parse(alert.path("endsAt").asText()).isAfter(Instant.now());
  }
}
