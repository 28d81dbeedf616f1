package io.sluice.connect.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.client.ClientOptions;
import io.sluice.client.HttpTransport;
import io.sluice.client.HttpTransport.Reply;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The one client of Kafka Connect's REST API in Sluice: the operator tools, the {@code sluice connectors} command and
 * the worker's own REST additions use it. Timeouts, credentials and retries come from {@link ClientOptions}; reads and
 * idempotent writes are retried on connection failures, 5xx and Connect's 409 (a rebalance in progress), creation is
 * not. A refusal comes back as a {@link ConnectApiException} carrying Connect's {@code error_code} and message.
 *
 * <p>Stop and offsets endpoints exist from Kafka 3.5/3.6 on; older runtimes answer 404 or 405 for an existing
 * connector, which the methods that use them report as "not available" instead of failing.
 */
public final class ConnectRestClient {
  private static final ObjectMapper JSON = new ObjectMapper();
  /**
   * Connect's answers while its group rebalances, after which the same request succeeds: 409 to config changes and
   * restarts, and "Request cannot be completed because a rebalance is expected" (a 500 to a create, from the herder's
   * check before it acts). A rebalance lasts as long as the tasks it stops take (up to the worker's
   * {@code task.shutdown.graceful.timeout.ms}), so these are asked again until the request timeout, not a few times.
   */
  private static final Predicate<Reply> REBALANCING = r -> r.status() == 409 || rebalanceExpected(r);
  /** A create's 409 says the connector exists; only the herder's rebalance answer is worth asking again. */
  private static final Predicate<Reply> CREATE_REBALANCING = ConnectRestClient::rebalanceExpected;

  private final HttpTransport http;

  public ConnectRestClient(String baseUrl, ClientOptions options) {
    this.http = new HttpTransport(baseUrl, options, "Kafka Connect");
  }

  public ConnectRestClient(String baseUrl) {
    this(baseUrl, ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(120)));
  }

  public String baseUrl() {
    return http.baseUrl();
  }

  private static boolean rebalanceExpected(Reply r) {
    return !r.ok() && rebalancing(r.body());
  }

  /**
   * Whether an error body is one of Connect's rebalance answers, or the herder's refusal to act before it has read its
   * config topic to the end (it waits {@code worker.sync.timeout.ms}, 3 s, which a loaded worker can take): each is
   * given before anything changed, and the next try finds the herder caught up.
   */
  public static boolean rebalancing(String body) {
    return body != null && (body.contains("rebalance is expected")
        || body.contains("conflicting operation (e.g. worker rebalance)")
        || body.contains("likely because a rebalance was underway")
        || body.contains("Failed to read to end of config topic"));
  }

  private static String path(String connector) {
    return "/connectors/" + HttpTransport.segment(connector);
  }

  /** The names of every connector. */
  public Set<String> connectorNames() {
    JsonNode names = json(expect(http.send("GET", "/connectors", null, true), 200, "list connectors"));
    Set<String> out = new LinkedHashSet<>();
    names.forEach(n -> out.add(n.asText()));
    return out;
  }

  /** Every connector with its info and status: {@code GET /connectors?expand=info&expand=status}. */
  public JsonNode connectorsExpanded() {
    return json(expect(http.send("GET", "/connectors?expand=info&expand=status", null, true), 200,
        "list connectors"));
  }

  /** The connector's config, or empty when Connect does not know the connector. */
  public Optional<ObjectNode> config(String connector) {
    Reply r = http.send("GET", path(connector) + "/config", null, true);
    if (r.status() == 404) {
      return Optional.empty();
    }
    return Optional.of((ObjectNode) json(expect(r, 200, "read the config of connector " + connector)));
  }

  /** {@code GET /connectors/{name}/status}. */
  public JsonNode status(String connector) {
    return json(expect(http.send("GET", path(connector) + "/status", null, true), 200,
        "read the status of connector " + connector));
  }

  /** The connector's state: RUNNING, PAUSED, STOPPED, FAILED, UNASSIGNED. */
  public String state(String connector) {
    return status(connector).path("connector").path("state").asText();
  }

  /**
   * Creates a connector; 409 (it exists) is not retried, nor a failure that may have created it; a rebalance answer,
   * given before Connect does anything, is.
   */
  public JsonNode create(String connector, ObjectNode config) {
    ObjectNode body = JSON.createObjectNode();
    body.put("name", connector);
    body.set("config", config);
    return json(expect(http.send("POST", "/connectors", body.toString(), false, CREATE_REBALANCING), 201,
        "create connector " + connector));
  }

  /** Creates or replaces the connector's config. */
  public void putConfig(String connector, ObjectNode config) {
    Reply r = http.send("PUT", path(connector) + "/config", config.toString(), true, REBALANCING);
    if (r.status() != 201) {
      expect(r, 200, "update the config of connector " + connector);
    }
  }

  public void delete(String connector) {
    expect(http.send("DELETE", path(connector), null, true, REBALANCING), 204, "delete connector " + connector);
  }

  /** Stops the connector (tasks shut down, offsets flushed) and waits for it; false when Connect has no stop. */
  public boolean stop(String connector, Duration timeout) {
    Reply r = http.send("PUT", path(connector) + "/stop", null, true, REBALANCING);
    if (r.status() == 404 || r.status() == 405) {
      return false;
    }
    expect(r, 204, "stop connector " + connector);
    awaitStatus(connector, s -> "STOPPED".equals(s.path("connector").path("state").asText())
        && s.path("tasks").isEmpty(), timeout, "STOPPED with no tasks");
    return true;
  }

  /** Pauses the connector and waits until it says PAUSED. */
  public void pause(String connector, Duration timeout) {
    expect(http.send("PUT", path(connector) + "/pause", null, true, REBALANCING), 202, "pause connector " + connector);
    awaitStatus(connector, s -> "PAUSED".equals(s.path("connector").path("state").asText()), timeout, "PAUSED");
  }

  public void resume(String connector) {
    expect(http.send("PUT", path(connector) + "/resume", null, true, REBALANCING), 202,
        "resume connector " + connector);
  }

  /** Restarts the connector, and its tasks too when {@code includeTasks}. */
  public void restart(String connector, boolean includeTasks) {
    restart(connector, includeTasks, false);
  }

  /**
   * Restarts the connector and, with {@code includeTasks}, its tasks; with {@code onlyFailed} only the instances that
   * failed ({@code POST /connectors/{name}/restart?includeTasks=…&onlyFailed=…}, Kafka 3.0 on).
   */
  public void restart(String connector, boolean includeTasks, boolean onlyFailed) {
    Reply r = http.send("POST", path(connector) + "/restart?includeTasks=" + includeTasks + "&onlyFailed="
        + onlyFailed, null, true, REBALANCING);
    if (r.status() != 204) {
      expect(r, 202, "restart connector " + connector);
    }
  }

  /** The configs of the connector's tasks as Connect last generated them: {@code GET /connectors/{name}/tasks}. */
  public List<JsonNode> taskConfigs(String connector) {
    Reply r = http.send("GET", path(connector) + "/tasks", null, true);
    List<JsonNode> out = new ArrayList<>();
    json(expect(r, 200, "read the tasks of connector " + connector)).forEach(t -> out.add(t.path("config")));
    return out;
  }

  /** The topics the connector has used: {@code GET /connectors/{name}/topics}. */
  public List<String> topics(String connector) {
    Reply r = http.send("GET", path(connector) + "/topics", null, true);
    List<String> out = new ArrayList<>();
    json(expect(r, 200, "read the topics of connector " + connector)).path(connector).path("topics")
        .forEach(t -> out.add(t.asText()));
    return out;
  }

  /**
   * Connect's verdict on a config before anything is written ({@code PUT /connector-plugins/{class}/config/validate}):
   * {@code error_count} and, per key, its {@code value.errors}.
   */
  public JsonNode validate(String connectorClass, ObjectNode config) {
    return validation(connectorClass, config).verdict();
  }

  /** Connect's verdict ({@link #validate}) and the warnings a Sluice worker sent with it (HTTP {@code Warning}). */
  public record Validation(JsonNode verdict, List<String> warnings) {}

  /** As {@link #validate}, with the warnings of the answer. */
  public Validation validation(String connectorClass, ObjectNode config) {
    Reply r = http.send("PUT", "/connector-plugins/" + HttpTransport.segment(connectorClass) + "/config/validate",
        config.toString(), true);
    return new Validation(json(expect(r, 200, "validate the config of " + connectorClass)), r.warnings());
  }

  /** The connector's offsets as Connect reports them, or empty when Connect has no offsets API. */
  public Optional<JsonNode> offsets(String connector) {
    Reply r = http.send("GET", path(connector) + "/offsets", null, true);
    if (r.status() == 404 || r.status() == 405) {
      return Optional.empty();
    }
    return Optional.of(json(expect(r, 200, "read the offsets of connector " + connector)));
  }

  public void patchOffsets(String connector, ObjectNode body) {
    expect(http.send("PATCH", path(connector) + "/offsets", body.toString(), true, REBALANCING), 200,
        "write the offsets of connector " + connector);
  }

  public void deleteOffsets(String connector) {
    expect(http.send("DELETE", path(connector) + "/offsets", null, true, REBALANCING), 200,
        "delete the offsets of connector " + connector);
  }

  /** Polls the status until {@code done} holds; fails with the last status after {@code timeout}. */
  public void awaitStatus(String connector, Predicate<JsonNode> done, Duration timeout, String what) {
    long deadline = System.nanoTime() + timeout.toNanos();
    String last = "";
    while (System.nanoTime() < deadline) {
      Reply r = http.send("GET", path(connector) + "/status", null, true);
      if (r.status() == 200) {
        last = r.body();
        if (done.test(json(r))) {
          return;
        }
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted waiting for connector " + connector, e);
      }
    }
    throw new IllegalStateException("connector " + connector + " was not " + what + " within " + timeout.toSeconds()
        + " s; last status: " + last);
  }

  private static Reply expect(Reply r, int status, String doing) {
    if (r.status() == status) {
      return r;
    }
    int code = r.status();
    String message = r.body();
    try {
      JsonNode body = JSON.readTree(r.body());
      if (body != null && body.has("message")) {
        message = body.path("message").asText();
        code = body.path("error_code").asInt(r.status());
      }
    } catch (IOException notJson) {
      // The body as it came is the best message there is.
    }
    throw new ConnectApiException(doing, r.status(), code, message);
  }

  private static JsonNode json(Reply r) {
    try {
      return JSON.readTree(r.body());
    } catch (IOException e) {
      throw new IllegalStateException("Kafka Connect answered with something that is not JSON: " + r.body(), e);
    }
  }
}
