package io.sluice.app.up;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.client.ClientOptions;
import io.sluice.client.HttpTransport;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code SluiceComponentDown} (critical): a plane of this {@code sluice up} has ended and is being started again. The
 * supervisor is the one that knows at once, so it sends the alert to the router itself, as Prometheus sends the alerts
 * of its rules ({@code POST /api/v2/alerts}, repeated while it holds, with an end a few minutes ahead so that the alert
 * resolves by itself should the supervisor die), and sends it resolved once the plane is back. A scrape-based rule
 * would notice an outage of a few seconds only by luck.
 */
final class ComponentAlert implements AutoCloseable {
  static final String NAME = "SluiceComponentDown";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration RESEND = Duration.ofSeconds(60);
  private static final Duration HOLD = Duration.ofMinutes(3);
  private static final Duration RETRY = Duration.ofSeconds(5);
  private static final int RETRIES = 3;

  private final ClientOptions client;
  /**
   * Built on the resend thread, the only one that sends, once the router first answers: building an HTTP client (and
   * TLS, for a router over https) is time the supervisor would otherwise spend before it starts the planes, and which
   * the first alert, sent with a 5 s deadline by a JVM that compiles with C1 alone, should not spend either.
   */
  private HttpTransport router;
  private final String instance;
  /** What is down now: the component's description and since when. */
  private final Map<String, Firing> firing = new ConcurrentHashMap<>();
  private final ScheduledExecutorService resend = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "sluice-component-alert");
    t.setDaemon(true);
    return t;
  });

  /** Made when first used, once the planes are ready (see Supervisor). */
  private static Logger log() {
    return LoggerFactory.getLogger(ComponentAlert.class);
  }

  private record Firing(String description, Instant since) {}

  private volatile String routerUrl;

  ComponentAlert(ClientOptions client, String instance) {
    // One try a send: a firing alert that fails is asked again RETRIES times, RETRY apart, then at each resend.
    this.client = client.withConnectTimeout(Duration.ofSeconds(2)).withRequestTimeout(Duration.ofSeconds(5))
        .withAttempts(1, Duration.ZERO);
    this.instance = instance;
    resend.scheduleWithFixedDelay(this::resendAll, RESEND.toMillis(), RESEND.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The router answers at {@code url} (again): what is down is told to it now. */
  void routerReady(String url) {
    routerUrl = url;
    resend.execute(() -> {
      transport(url);
      resendAll();
    });
  }

  /** {@code component} is down. */
  void fire(String component, String description) {
    Firing f = firing.compute(component, (k, old) -> new Firing(description, old == null ? Instant.now() : old.since()));
    resend.execute(() -> send(component, f, false));
  }

  /** {@code component} is back: resolved, if it was said to be down. */
  void resolve(String component) {
    Firing f = firing.remove(component);
    if (f != null) {
      resend.execute(() -> send(component, f, true));
    }
  }

  private void resendAll() {
    firing.forEach((component, f) -> send(component, f, false));
  }

  private void send(String component, Firing f, boolean resolved) {
    send(component, f, resolved, RETRIES);
  }

  private void send(String component, Firing f, boolean resolved, int retries) {
    String url = routerUrl;
    if (url == null) {
      return;
    }
    Instant now = Instant.now();
    ArrayNode body = JSON.createArrayNode();
    ObjectNode a = body.addObject();
    ObjectNode labels = a.putObject("labels");
    labels.put("alertname", NAME);
    labels.put("severity", "critical");
    labels.put("component", component);
    labels.put("instance", instance);
    ObjectNode annotations = a.putObject("annotations");
    annotations.put("summary", "Sluice " + component + " is down");
    annotations.put("description", f.description() + " ended and is being started again by sluice up");
    a.put("startsAt", f.since().toString());
    a.put("endsAt", (resolved ? now : now.plus(HOLD)).toString());
    boolean told = false;
    try {
      HttpTransport.Reply r = transport(url).send("POST", "/api/v2/alerts", body.toString(), false);
      told = r.ok();
      if (!told) {
        log().warn("the router refused {} for {}: {} {}", NAME, component, r.status(), r.body());
      }
    } catch (HttpTransport.UnreachableException e) {
      log().warn("cannot tell the router that {} is {}: {}", component, resolved ? "back" : "down", e.getMessage());
    }
    if (!told && !resolved && retries > 0) {
      // An outage shorter than the resend interval would otherwise go untold: the router never notifies an alert it
      // first hears of as resolved. Asked again soon, a few times, while it is down; then at the resend interval.
      resend.schedule(() -> {
        Firing still = firing.get(component);
        if (still != null) {
          send(component, still, false, retries - 1);
        }
      }, RETRY.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  private HttpTransport transport(String url) {
    if (router == null || !router.baseUrl().equals(url)) {
      router = new HttpTransport(url, client, "the alert router");
    }
    return router;
  }

  @Override
  public void close() {
    resend.shutdownNow();
  }
}
