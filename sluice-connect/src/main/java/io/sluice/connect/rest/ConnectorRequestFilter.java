package io.sluice.connect.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.connect.offsets.OffsetBackup;
import io.sluice.connect.offsets.OffsetsSnapshot;
import io.sluice.connect.offsets.OffsetsTopic;
import io.sluice.connect.secrets.SecretConfigProvider;
import io.sluice.connect.secrets.SecretStore;
import io.sluice.connect.snapshot.SnapshotModes;
import io.sluice.connect.tuning.ConnectorDefaults;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.PathSegment;
import jakarta.ws.rs.core.Response;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What Sluice adds to Connect's REST API, applied before Connect's own resources see the request:
 *
 * <ul>
 *   <li>connector configs: {@code initial.snapshot.mode} translated to Debezium's {@code snapshot.mode} (refused with
 *       Connect's 400 body when unknown), and {@code *.password} values moved to the secret store, leaving a
 *       config-provider reference in their place; Sluice's throughput defaults ({@link ConnectorDefaults}) filled in
 *       where the config sets no value of its own;
 *   <li>{@code DELETE /connectors/{name}}: the connector is stopped, its offsets backed up to a file and removed, and
 *       only then deleted, so a connector recreated under the same name starts fresh.
 * </ul>
 *
 * <p>Requests Connect forwards between workers carry a {@code forward} parameter; the worker that first received the
 * request has already done this work, so forwarded ones pass untouched.
 */
final class ConnectorRequestFilter implements ContainerRequestFilter, ContainerResponseFilter {
  private static final Logger log = LoggerFactory.getLogger(ConnectorRequestFilter.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);
  private static final String DELETED_CONNECTOR = "sluice.deleted.connector";

  private final WorkerSettings settings;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  ConnectorRequestFilter(WorkerSettings settings) {
    this.settings = settings;
  }

  @Override
  public void filter(ContainerRequestContext request) throws IOException {
    if (request.getUriInfo().getQueryParameters().containsKey("forward")) {
      return;
    }
    List<String> path = request.getUriInfo().getPathSegments(true).stream()
        .map(PathSegment::getPath).filter(s -> !s.isEmpty()).toList();
    String method = request.getMethod();
    try {
      if (method.equals("POST") && path.equals(List.of("connectors"))) {
        rewriteBody(request, true, null);
      } else if (method.equals("PUT") && path.size() == 3 && path.get(0).equals("connectors")
          && path.get(2).equals("config")) {
        rewriteBody(request, false, path.get(1));
      } else if (method.equals("PUT") && path.size() == 4 && path.get(0).equals("connector-plugins")
          && path.get(2).equals("config") && path.get(3).equals("validate")) {
        rewriteBody(request, false, null);
      } else if (method.equals("PATCH") && path.size() == 3 && path.get(0).equals("connectors")
          && path.get(2).equals("offsets")) {
        requireJson(request);
      } else if (method.equals("DELETE") && path.size() == 2 && path.get(0).equals("connectors")) {
        prepareDelete(request, path.get(1));
      }
    } catch (Refusal r) {
      request.abortWith(error(r.status, r.getMessage()));
    }
  }

  @Override
  public void filter(ContainerRequestContext request, ContainerResponseContext response) {
    Object deleted = request.getProperty(DELETED_CONNECTOR);
    if (deleted != null && response.getStatus() / 100 == 2) {
      try {
        SecretStore.of(settings.bootstrapServers(), settings.secretsTopic()).forget(deleted.toString());
      } catch (RuntimeException e) {
        log.warn("connector {} deleted, but its secrets could not be forgotten: {}", deleted, e.getMessage());
      }
    }
  }

  /** Connect answers a malformed offsets body with a 500; it is the client's mistake, so it gets a 400. */
  private static void requireJson(ContainerRequestContext request) throws IOException {
    byte[] body = request.getEntityStream().readAllBytes();
    try {
      JsonNode node = JSON.readTree(body);
      if (node == null || !node.isObject()) {
        throw new Refusal(400, "Request body must be a JSON object with an \"offsets\" array");
      }
    } catch (IOException e) {
      throw new Refusal(400, "Request body is not valid JSON: " + e.getMessage());
    }
    request.setEntityStream(new ByteArrayInputStream(body));
  }

  /**
   * Applies the config rewrites to a body that is either {@code {"name":…,"config":{…}}} (create) or the config object
   * itself (update, validate). {@code connector} is the name from the path for updates; null otherwise.
   */
  private void rewriteBody(ContainerRequestContext request, boolean wrapped, String connector) throws IOException {
    byte[] body = request.getEntityStream().readAllBytes();
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (IOException e) {
      // Not JSON: Connect answers malformed bodies itself, in its own words.
      request.setEntityStream(new ByteArrayInputStream(body));
      return;
    }
    JsonNode configNode = wrapped && root != null ? root.get("config") : root;
    if (!(configNode instanceof ObjectNode config)) {
      request.setEntityStream(new ByteArrayInputStream(body));
      return;
    }
    translateSnapshotMode(config);
    ConnectorDefaults.forClass(text(config, "connector.class")).forEach((k, v) -> {
      if (!config.has(k)) {
        config.put(k, v);
      }
    });
    String name = connector != null ? connector : wrapped && root.hasNonNull("name") ? root.get("name").asText() : null;
    boolean validateOnly = connector == null && !wrapped;
    if (name != null && !validateOnly) {
      hideSecrets(name, config);
    }
    request.setEntityStream(new ByteArrayInputStream(JSON.writeValueAsBytes(root)));
  }

  private static void translateSnapshotMode(ObjectNode config) {
    Optional<SnapshotModes.Translation> t = SnapshotModes.translate(
        text(config, "connector.class"), text(config, SnapshotModes.KEY), text(config, SnapshotModes.DEBEZIUM_KEY));
    if (t.isEmpty()) {
      return;
    }
    if (t.get() instanceof SnapshotModes.Translation.Refused r) {
      throw new Refusal(400, r.message());
    }
    config.put(SnapshotModes.DEBEZIUM_KEY, ((SnapshotModes.Translation.Mode) t.get()).debeziumValue());
  }

  private void hideSecrets(String connector, ObjectNode config) {
    SecretStore store = null;
    for (Iterator<Map.Entry<String, JsonNode>> it = config.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String key = e.getKey();
      JsonNode value = e.getValue();
      if (!isSecretKey(key) || !value.isTextual() || value.asText().startsWith("${")) {
        continue;
      }
      if (store == null) {
        store = SecretStore.of(settings.bootstrapServers(), settings.secretsTopic());
      }
      store.put(connector, key, value.asText());
      e.setValue(JSON.getNodeFactory().textNode(SecretConfigProvider.reference(connector, key)));
    }
  }

  static boolean isSecretKey(String key) {
    return key.equals("password") || key.endsWith(".password");
  }

  /** Stops the connector, backs up and removes its offsets; Connect then deletes the connector itself. */
  private void prepareDelete(ContainerRequestContext request, String connector) {
    String base = settings.restUrl() + "/connectors/" + URLEncoder.encode(connector, StandardCharsets.UTF_8)
        .replace("+", "%20");
    HttpResponse<String> info = call("GET", base, null);
    if (info.statusCode() == 404) {
      return;
    }
    expect(info, 200, "look up connector " + connector);
    expect(call("PUT", base + "/stop", null), 204, "stop connector " + connector);
    awaitStopped(base, connector);
    OffsetsSnapshot offsets = new OffsetsTopic(settings.bootstrapServers(), settings.offsetsTopic())
        .snapshot(Duration.ofSeconds(30), OffsetsTopic.ReadListener.NONE).forConnector(connector);
    Path backup = new OffsetBackup(settings.backupDir(), Clock.systemUTC()).write(connector, offsets);
    log.info("offsets of connector {} backed up to {} ({} records) before deletion", connector, backup,
        offsets.live().size());
    expect(call("DELETE", base + "/offsets", null), 200, "remove offsets of connector " + connector);
    request.setProperty(DELETED_CONNECTOR, connector);
  }

  private void awaitStopped(String base, String connector) {
    long deadline = System.nanoTime() + STOP_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      HttpResponse<String> status = call("GET", base + "/status", null);
      if (status.statusCode() == 200) {
        try {
          JsonNode s = JSON.readTree(status.body());
          if ("STOPPED".equals(s.path("connector").path("state").asText()) && s.path("tasks").isEmpty()) {
            return;
          }
        } catch (IOException ignored) {
          // A half-written status is read again below.
        }
      }
      sleep(200);
    }
    throw new Refusal(500, "connector " + connector + " did not stop within " + STOP_TIMEOUT.toSeconds()
        + " s; it was not deleted and its offsets are untouched");
  }

  private HttpResponse<String> call(String method, String url, String body) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(90))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    try {
      return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new Refusal(500, method + " " + url + " failed: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Refusal(500, "interrupted");
    }
  }

  private static void expect(HttpResponse<String> r, int status, String what) {
    if (r.statusCode() != status) {
      String message = r.body();
      try {
        message = JSON.readTree(r.body()).path("message").asText(r.body());
      } catch (IOException ignored) {
        // Keep the raw body.
      }
      throw new Refusal(r.statusCode() >= 400 ? r.statusCode() : 500,
          "cannot " + what + " (HTTP " + r.statusCode() + "): " + message + "; the connector was not deleted");
    }
  }

  private static Response error(int status, String message) {
    ObjectNode body = JSON.createObjectNode().put("error_code", status).put("message", message);
    return Response.status(status).type(MediaType.APPLICATION_JSON_TYPE).entity(body.toString()).build();
  }

  private static String text(ObjectNode config, String key) {
    JsonNode v = config.get(key);
    return v == null || v.isNull() ? null : v.asText();
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Refusal(500, "interrupted");
    }
  }

  /** Ends the request with Connect's error body. */
  private static final class Refusal extends RuntimeException {
    final int status;

    Refusal(int status, String message) {
      super(message);
      this.status = status;
    }
  }
}
