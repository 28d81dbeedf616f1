package io.sluice.connect.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.client.ClientOptions;
import io.sluice.connect.client.ConnectApiException;
import io.sluice.connect.client.ConnectRestClient;
import io.sluice.connect.offsets.OffsetBackup;
import io.sluice.connect.offsets.OffsetsSnapshot;
import io.sluice.connect.offsets.OffsetsTopic;
import io.sluice.connect.secrets.KafkaClientConfigProvider;
import io.sluice.connect.secrets.SecretConfigProvider;
import io.sluice.connect.secrets.SecretMask;
import io.sluice.connect.secrets.SecretStore;
import io.sluice.connect.defaults.SignalChannel;
import io.sluice.connect.defaults.SnapshotModes;
import io.sluice.connect.defaults.ConnectorDefaults;
import io.sluice.connect.defaults.ExactlyOnce;
import io.sluice.connect.preflight.BinlogColumnCheck;
import io.sluice.connect.preflight.BinlogSinkValueCheck;
import io.sluice.connect.preflight.BinlogZeroDateCheck;
import io.sluice.connect.preflight.ColumnCheckOutcome;
import io.sluice.connect.preflight.ColumnFinding;
import io.sluice.connect.preflight.PostgresColumnCheck;
import io.sluice.connect.preflight.PublicationCheck;
import io.sluice.http.RefusedBody;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.PathSegment;
import jakarta.ws.rs.core.Response;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What Sluice adds to Connect's REST API, applied before Connect's own resources see the request:
 *
 * <ul>
 *   <li>connector configs, whichever way they are written ({@code POST /connectors}, {@code PUT} and {@code PATCH
 *       /connectors/{name}/config}, and validation): {@code initial.snapshot.mode} translated to Debezium's
 *       {@code snapshot.mode} (refused with Connect's 400 body when unknown), {@code *.password} values moved to the
 *       secret store, leaving a config-provider reference in their place, and Sluice's throughput defaults
 *       ({@link ConnectorDefaults}), a Debezium source's Kafka signal channel ({@link SignalChannel}) and, on a worker with
 *       exactly-once source support, {@code exactly.once.support=required} for a source that supports it
 *       ({@link ExactlyOnce}) filled in where the config sets no value of its own;
 *   <li>{@code DELETE /connectors/{name}}: the connector is stopped, its offsets backed up to a file and removed, and
 *       only then deleted, so a connector recreated under the same name starts fresh;
 *   <li>request bodies larger than {@code sluice.rest.max.request.bytes} answered 413 before they are read, and
 *       bodies that are not JSON answered 400, both in Connect's error shape;
 *   <li>a source's preflight: columns the pipeline cannot carry refuse the config ({@link PostgresColumnCheck}, and
 *       for MariaDB and MySQL {@link BinlogColumnCheck}); a risky set-up it may keep ({@link PublicationCheck}) is a
 *       warning, logged and sent as an HTTP {@code Warning} header (code 299) on the answer, which leaves Connect's
 *       bodies as they are; a MariaDB or MySQL source's captured date columns that can hold a zero date are such a
 *       warning ({@link BinlogZeroDateCheck}), as are, for a Sluice JDBC sink into MariaDB or MySQL, its topics'
 *       fields from PostgreSQL columns that can hold NaN, ±Infinity or an infinite date
 *       ({@link BinlogSinkValueCheck}).
 * </ul>
 *
 * <p>Connect forwards a request between its workers with a {@code forward} parameter. That parameter is not
 * consulted here: every addition is idempotent (a secret already replaced by its reference stays a reference, a
 * translated mode translates to itself, a connector whose offsets are gone needs no backup), so a forwarded request
 * goes through them again harmlessly, and a client cannot skip them by adding the parameter itself.
 */
final class ConnectorRequestFilter implements ContainerRequestFilter, ContainerResponseFilter {
  private static final Logger log = LoggerFactory.getLogger(ConnectorRequestFilter.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);
  /** Marks this worker's own calls to itself, which need no additions; outside clients cannot know the value. */
  static final String INTERNAL = WorkerSettings.INTERNAL_HEADER;
  /** The request property that carries the preflight's warnings to the answer. */
  private static final String WARNINGS = "sluice.preflight.warnings";

  private final WorkerSettings settings;
  private final String internalToken;
  private final ClientOptions self;
  /** The client for this worker's calls to itself, made again when the REST certificate it trusts is renewed. */
  private volatile SelfClient selfClient;

  private record SelfClient(FileTime certificate, ConnectRestClient client) {}

  ConnectorRequestFilter(WorkerSettings settings) {
    this.settings = settings;
    this.internalToken = settings.internalToken();
    this.self = ClientOptions.defaults()
        .withRequestTimeout(Duration.ofSeconds(90)).withAttempts(20, Duration.ofMillis(500))
        .withHeader(INTERNAL, internalToken);
  }

  private ConnectRestClient connect() {
    FileTime stamp = null;
    if (settings.serverCertificate().isPresent()) {
      try {
        stamp = Files.getLastModifiedTime(settings.serverCertificate().get());
      } catch (IOException e) {
        // Missing for a moment while it is replaced: keep the client made last.
        stamp = selfClient == null ? null : selfClient.certificate();
      }
    }
    SelfClient c = selfClient;
    if (c == null || !Objects.equals(c.certificate(), stamp)) {
      c = new SelfClient(stamp, new ConnectRestClient(settings.restUrl(),
          settings.serverCertificate().map(self::withCaFile).orElse(self)));
      selfClient = c;
    }
    return c.client();
  }

  @Override
  public void filter(ContainerRequestContext request) throws IOException {
    if (internalToken.equals(request.getHeaderString(INTERNAL))) {
      return;
    }
    List<String> path = request.getUriInfo().getPathSegments(true).stream()
        .map(PathSegment::getPath).filter(s -> !s.isEmpty()).toList();
    String method = request.getMethod();
    List<String> warnings = new ArrayList<>();
    try {
      byte[] body = method.equals("POST") || method.equals("PUT") || method.equals("PATCH") ? body(request) : null;
      boolean connectorPath = path.size() >= 2 && path.get(0).equals("connectors");
      if (method.equals("POST") && path.equals(List.of("connectors"))) {
        ObjectNode root = object(body);
        JsonNode config = root.get("config");
        if (config instanceof ObjectNode c) {
          String name = root.hasNonNull("name") ? root.get("name").asText() : null;
          applyAdditions(c, name, warnings);
        }
        body = JSON.writeValueAsBytes(root);
      } else if (method.equals("PUT") && connectorPath && path.size() == 3 && path.get(2).equals("config")) {
        ObjectNode config = object(body);
        applyAdditions(config, path.get(1), warnings);
        body = JSON.writeValueAsBytes(config);
      } else if (method.equals("PATCH") && connectorPath && path.size() == 3 && path.get(2).equals("config")) {
        body = patch(path.get(1), object(body), warnings);
      } else if (method.equals("PUT") && path.size() == 4 && path.get(0).equals("connector-plugins")
          && path.get(2).equals("config") && path.get(3).equals("validate")) {
        ObjectNode config = object(body);
        if (!config.hasNonNull("connector.class")) {
          // Connect refuses it too, but as a 500 that quotes the whole config, passwords included.
          throw new Refusal(400, "Connector config contains no connector type (connector.class)");
        }
        applyAdditions(config, null, warnings);
        List<ColumnError> columns = columnErrors(config, null, warnings);
        if (!columns.isEmpty()) {
          request.abortWith(Response.ok(withColumnErrors(connect().validate(config.get("connector.class").asText(),
              config), columns).toString(), MediaType.APPLICATION_JSON_TYPE).build());
          return;
        }
        body = JSON.writeValueAsBytes(config);
      } else if (method.equals("PATCH") && connectorPath && path.size() == 3 && path.get(2).equals("offsets")) {
        requireOffsets(body);
      } else if (method.equals("DELETE") && connectorPath && path.size() == 2) {
        prepareDelete(request, path.get(1));
      }
      if (body != null) {
        request.setEntityStream(new ByteArrayInputStream(body));
      }
    } catch (Refusal r) {
      request.abortWith(ConnectError.response(r.status, r.getMessage()));
    } catch (ConnectApiException e) {
      request.abortWith(ConnectError.response(e.status(), e.connectMessage()));
    } catch (IllegalStateException e) {
      request.abortWith(ConnectError.response(500, e.getMessage()));
    } finally {
      if (!warnings.isEmpty()) {
        request.setProperty(WARNINGS, List.copyOf(warnings));
      }
    }
  }

  /** The preflight's warnings, one {@code Warning: 299 sluice "…"} header each (RFC 9110's quoted-string). */
  @Override
  public void filter(ContainerRequestContext request, ContainerResponseContext response) {
    if (request.getProperty(WARNINGS) instanceof List<?> warnings) {
      warnings.forEach(w -> response.getHeaders().add("Warning",
          "299 sluice \"" + w.toString().replace("\\", "\\\\").replace("\"", "\\\"") + "\""));
    }
  }

  /**
   * The request body, read only up to the limit: a larger one (by its Content-Length, or by counting a chunked one
   * as it arrives) is refused before it can fill the heap the worker and the broker share.
   */
  private byte[] body(ContainerRequestContext request) throws IOException {
    long limit = settings.maxRequestBytes();
    String declared = request.getHeaderString("Content-Length");
    if (declared != null) {
      long length;
      try {
        length = Long.parseLong(declared.trim());
      } catch (NumberFormatException e) {
        throw new Refusal(400, "Content-Length is not a number: " + declared);
      }
      if (length > limit) {
        RefusedBody.drain(request.getEntityStream(), length);
        throw tooLarge(limit);
      }
    }
    byte[] body = request.getEntityStream().readNBytes((int) Math.min(Integer.MAX_VALUE - 8, limit + 1));
    if (body.length > limit) {
      RefusedBody.drain(request.getEntityStream(), -1);
      throw tooLarge(limit);
    }
    return body;
  }

  private static Refusal tooLarge(long limit) {
    return new Refusal(413, "Request body is larger than " + limit + " bytes, the limit this worker accepts ("
        + WorkerSettings.MAX_REQUEST_BYTES + ")");
  }

  /** The body as a JSON object; Connect answers a malformed one 500, but it is the client's mistake: 400. */
  private static ObjectNode object(byte[] body) {
    JsonNode node;
    try {
      node = JSON.readTree(body);
    } catch (IOException e) {
      throw new Refusal(400, "Request body is not valid JSON: " + firstLine(e.getMessage()));
    }
    if (!(node instanceof ObjectNode o)) {
      throw new Refusal(400, "Request body must be a JSON object");
    }
    return o;
  }

  private static String firstLine(String message) {
    return message == null ? "" : message.lines().findFirst().orElse("");
  }

  private static void requireOffsets(byte[] body) {
    try {
      JsonNode node = JSON.readTree(body);
      if (node == null || !node.isObject()) {
        throw new Refusal(400, "Request body must be a JSON object with an \"offsets\" array");
      }
    } catch (IOException e) {
      throw new Refusal(400, "Request body is not valid JSON: " + firstLine(e.getMessage()));
    }
  }

  /**
   * Translation, throughput defaults and, for a named connector (not a validation), the preflight (its warnings added
   * to {@code warnings}) and secrets moved to the store.
   */
  private void applyAdditions(ObjectNode config, String connector, List<String> warnings) {
    translateSnapshotMode(config);
    Map<String, String> given = new HashMap<>();
    config.fields().forEachRemaining(e -> given.put(e.getKey(), e.getValue().isNull() ? null : e.getValue().asText()));
    ConnectorDefaults.missing(connector != null ? connector : given.get("name"), given).forEach(config::put);
    ConnectorDefaults.cleared(given).forEach(config::remove);
    SchemaHistoryClients.missing(given, settings.cluster().security().keySet()).forEach(config::put);
    SignalChannel.missing(given, settings.cluster().security().keySet()).forEach(config::put);
    if (settings.exactlyOnceSource()) {
      ExactlyOnce.missing(given).forEach(config::put);
    }
    requireOwnKafkaSettings(config);
    if (connector != null) {
      // Checked while the secrets are still clear values; refused before any of them is stored.
      List<String> columns = columnErrors(config, connector, warnings).stream().map(ColumnError::message).toList();
      hideSecrets(connector, config, columns);
      if (!columns.isEmpty()) {
        throw invalid(columns);
      }
    }
  }

  /**
   * The columns of a PostgreSQL, MariaDB or MySQL source's captured tables that the pipeline cannot carry faithfully, as
   * Connect error messages ({@link PostgresColumnCheck}, {@link BinlogColumnCheck}); none for other connectors, and
   * none (a warning in the log) when the check cannot run. {@code connector} is the connector's name, or null for a
   * validation (which names it in the config). The checks' warnings are logged and added to {@code warnings}: the
   * {@link PublicationCheck}'s beside PostgreSQL's, with the server version the column check read; a binlog source's
   * zero dates ({@link BinlogZeroDateCheck}); and, for a Sluice JDBC sink into MariaDB or MySQL, the fields of its
   * topics that can hold values the database cannot ({@link BinlogSinkValueCheck}).
   */
  private List<ColumnError> columnErrors(ObjectNode config, String connector, List<String> warnings) {
    String connectorClass = text(config, "connector.class");
    boolean binlog = BinlogColumnCheck.appliesTo(connectorClass);
    boolean binlogSink = BinlogSinkValueCheck.appliesTo(connectorClass, text(config, "connection.url"));
    if (!PostgresColumnCheck.appliesTo(connectorClass) && !binlog && !binlogSink) {
      return List.of();
    }
    String name = connector != null ? connector : text(config, "name");
    Map<String, String> clear = new HashMap<>();
    // A sink's check reads the registry as its converter does; a source's, the database.
    String needed = binlogSink ? "value.converter." : "database.";
    Optional<String> unresolved = Optional.empty();
    for (Iterator<Map.Entry<String, JsonNode>> it = config.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (e.getValue() == null || e.getValue().isNull()) {
        continue;
      }
      String value = e.getValue().asText();
      if (e.getKey().startsWith(needed) && REFERENCE.matcher(value).matches()) {
        Optional<String> resolved = resolve(name, e.getKey(), value);
        if (resolved.isEmpty()) {
          unresolved = Optional.of(e.getKey());
          continue;
        }
        value = resolved.get();
      }
      clear.put(e.getKey(), value);
    }
    if (binlogSink) {
      String who = name == null ? "a sink being validated" : "connector " + name;
      if (unresolved.isPresent()) {
        log.info("topics of {} not checked for values the database cannot hold: {} is a reference the check cannot "
            + "resolve", who, unresolved.get());
      } else {
        BinlogSinkValueCheck.warning(clear, reason -> log.info("topics of {} not checked for values the database "
            + "cannot hold: {}", who, reason)).ifPresent(w -> {
              log.warn("{}: {}", who, w);
              warnings.add(w);
            });
      }
      return List.of();
    }
    String who;
    ColumnCheckOutcome outcome;
    Optional<ColumnCheckOutcome> skipped = unresolved.map(key -> new ColumnCheckOutcome.Skipped(key
        + " is a reference the column check cannot resolve"));
    if (binlog) {
      who = name == null ? "a binlog source being validated" : "connector " + name;
      outcome = skipped.orElseGet(() -> BinlogColumnCheck.check(clear));
    } else {
      who = name == null ? "a PostgreSQL source being validated" : "connector " + name;
      outcome = skipped.orElseGet(() -> PostgresColumnCheck.check(clear));
      PublicationCheck.warning(clear, outcome instanceof PostgresColumnCheck.Checked c
          ? OptionalInt.of(c.serverMajor()) : OptionalInt.empty()).ifPresent(w -> {
            log.warn("{}: {}", who, w);
            warnings.add(w);
          });
    }
    if (outcome instanceof ColumnCheckOutcome.Skipped s) {
      log.warn("columns of {} not checked before data flows: {}", who, s.reason());
      return List.of();
    }
    if (outcome instanceof ColumnCheckOutcome.Invalid invalid) {
      return List.of(new ColumnError(invalid.key(), invalid.message()));
    }
    if (outcome instanceof BinlogColumnCheck.Checked binlogChecked) {
      binlogChecked.zeroDates().ifPresent(w -> {
        log.warn("{}: {}", who, w);
        warnings.add(w);
      });
    }
    ColumnCheckOutcome.Checked checked = (ColumnCheckOutcome.Checked) outcome;
    return refusals(who, checked.refused(), checked.accepted());
  }

  /** The refused columns as errors on {@value PostgresColumnCheck#REPORTED_ON}; the accepted ones logged. */
  private static List<ColumnError> refusals(String who, List<ColumnFinding> refused, List<ColumnFinding> accepted) {
    accepted.forEach(f -> log.info("{}: loss accepted by {}: {}", who, PostgresColumnCheck.ACCEPT_LOSS, f.message()));
    return refused.stream().map(f -> new ColumnError(PostgresColumnCheck.REPORTED_ON, f.message())).toList();
  }

  /** One error of the column check and the config key it belongs to. */
  record ColumnError(String key, String message) {}

  /**
   * The clear value of a {@code ${sluice:…}} reference, read from the secret store as Connect's config provider reads
   * it, but only for the reference a connector may hold ({@link #isReferenceToKeep}): its own secret of this key, so a
   * config cannot point the check at another connector's password.
   */
  private Optional<String> resolve(String connector, String key, String reference) {
    if (connector == null || !reference.equals(SecretConfigProvider.reference(connector, key))) {
      return Optional.empty();
    }
    return SecretStore.of(settings.cluster(), settings.secretsTopic()).get(connector, key);
  }

  /**
   * Connect's validate answer with the column check's errors added: on {@value PostgresColumnCheck#REPORTED_ON} (or on
   * Sluice's own key, when that key is wrong), counted in {@code error_count}.
   */
  static JsonNode withColumnErrors(JsonNode verdict, List<ColumnError> errors) {
    ObjectNode out = verdict.deepCopy();
    ArrayNode configs = out.path("configs") instanceof ArrayNode a ? a : out.putArray("configs");
    for (ColumnError error : errors) {
      ObjectNode value = null;
      for (JsonNode c : configs) {
        if (error.key().equals(c.path("value").path("name").asText()) && c.path("value") instanceof ObjectNode v) {
          value = v;
        }
      }
      if (value == null) {
        value = configEntry(configs, error.key());
      }
      (value.path("errors") instanceof ArrayNode list ? list : value.putArray("errors")).add(error.message());
    }
    out.put("error_count", out.path("error_count").asInt() + errors.size());
    return out;
  }

  /** A validate answer's entry for a key the connector does not define (Sluice's own), shaped as Connect's. */
  private static ObjectNode configEntry(ArrayNode configs, String key) {
    ObjectNode entry = configs.addObject();
    entry.putObject("definition").put("name", key).put("type", "LIST").put("required", false)
        .putNull("default_value").put("importance", "MEDIUM")
        .put("documentation", key.equals(PostgresColumnCheck.ACCEPT_LOSS)
            ? "Columns whose loss the pipeline accepts: regular expressions of schema.table.column names"
            : "Columns left out of the change events: regular expressions of schema.table.column names")
        .put("group", "Sluice").put("order", -1).put("width", "LONG").put("display_name", key)
        .putArray("dependents");
    ObjectNode value = entry.putObject("value").put("name", key).putNull("value");
    value.putArray("recommended_values");
    value.putArray("errors");
    value.put("visible", true);
    return value;
  }

  /** Connect's own refusal of an invalid config, with its errors. */
  private static Refusal invalid(List<String> errors) {
    return new Refusal(400, "Connector configuration is invalid and contains the following " + errors.size()
        + " error(s):\n" + String.join("\n", errors) + "\nYou can also find the above list of errors at the "
        + "endpoint `/connector-plugins/{connectorType}/config/validate`");
  }

  /**
   * A {@code PATCH} of a connector's config gets the additions on the config it leads to: the current config with the
   * patch merged in (a null value removes a key, as Connect does), then the additions, then written back as the patch
   * that turns the current config into that one. A patch for an unknown connector passes untouched, for Connect's own
   * 404.
   */
  private byte[] patch(String connector, ObjectNode patch, List<String> warnings) throws IOException {
    Optional<ObjectNode> found = connect().config(connector);
    if (found.isEmpty()) {
      return JSON.writeValueAsBytes(patch);
    }
    ObjectNode current = found.get();
    ObjectNode merged = current.deepCopy();
    // A mode the patch changes is translated afresh, not checked against the one derived from the old mode.
    if (patch.has(SnapshotModes.KEY) && !patch.has(SnapshotModes.DEBEZIUM_KEY)) {
      merged.remove(SnapshotModes.DEBEZIUM_KEY);
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = patch.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (e.getValue() == null || e.getValue().isNull()) {
        merged.remove(e.getKey());
      } else {
        merged.set(e.getKey(), e.getValue());
      }
    }
    applyAdditions(merged, connector, warnings);
    ObjectNode rewritten = JSON.createObjectNode();
    merged.fields().forEachRemaining(e -> {
      if (!e.getValue().equals(current.get(e.getKey()))) {
        rewritten.set(e.getKey(), e.getValue());
      }
    });
    current.fieldNames().forEachRemaining(k -> {
      if (!merged.has(k)) {
        rewritten.putNull(k);
      }
    });
    return JSON.writeValueAsBytes(rewritten);
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

  /**
   * Moves the clear values of secret keys to the secret store, leaving references. Two things are kept out of the
   * store: a config Connect would refuse (it is validated first, with the clear values, so a refused config leaves no
   * secret behind), and a value that merely looks like a reference: only a reference to a configured provider is left
   * as it is, and a {@code ${sluice:…}} reference only to this connector's own secret of this key (another
   * connector's secret is not this connector's to read). Anything else that starts with {@code ${} is a password.
   */
  private void hideSecrets(String connector, ObjectNode config, List<String> columnErrors) {
    Map<String, String> clear = new LinkedHashMap<>();
    config.fields().forEachRemaining(e -> {
      String key = e.getKey();
      JsonNode value = e.getValue();
      if (SecretMask.isSecretKey(key) && value.isTextual() && !isReferenceToKeep(connector, key, value.asText())) {
        clear.put(key, value.asText());
      }
    });
    if (clear.isEmpty() || !config.hasNonNull("connector.class")) {
      return; // without a class Connect refuses the config itself, before storing anything
    }
    // Connect's create puts the connector's name into its config; validation wants it there too.
    ObjectNode named = config.deepCopy();
    named.put("name", connector);
    JsonNode verdict = connect().validate(config.get("connector.class").asText(), named);
    if (verdict.path("error_count").asInt() > 0 || !columnErrors.isEmpty()) {
      List<String> errors = new ArrayList<>();
      verdict.path("configs").forEach(c -> c.path("value").path("errors").forEach(e -> errors.add(e.asText())));
      errors.addAll(columnErrors);
      throw invalid(errors);
    }
    SecretStore store = SecretStore.of(settings.cluster(), settings.secretsTopic());
    clear.forEach((key, value) -> {
      store.put(connector, key, value);
      config.put(key, SecretConfigProvider.reference(connector, key));
    });
  }

  /**
   * A {@code ${sluice-kafka:K}} reference stands only for the setting of the same name (a key ending in {@code K}):
   * the worker's Kafka credentials are for its cluster's clients, not for a database password or a host name, where
   * a connector would send them elsewhere.
   */
  private static void requireOwnKafkaSettings(ObjectNode config) {
    config.fields().forEachRemaining(e -> {
      if (!e.getValue().isTextual()) {
        return;
      }
      Matcher m = KAFKA_REFERENCE.matcher(e.getValue().asText());
      while (m.find()) {
        if (!e.getKey().equals(m.group(1)) && !e.getKey().endsWith("." + m.group(1))) {
          throw new Refusal(400, "Config " + e.getKey() + " refers to " + m.group() + ": a "
              + KafkaClientConfigProvider.NAME + " reference may stand only for the Kafka client setting of its name");
        }
      }
    });
  }

  private static final Pattern KAFKA_REFERENCE = Pattern.compile(
      "\\$\\{" + Pattern.quote(KafkaClientConfigProvider.NAME) + ":(?:[^}:]*:)?([^}:]*)}");

  private boolean isReferenceToKeep(String connector, String key, String value) {
    Matcher m = REFERENCE.matcher(value);
    // Sluice's own provider is always there (ConnectRuntime configures it); others as the worker lists them.
    if (!m.matches() || !(m.group(1).equals(SecretConfigProvider.NAME)
        || settings.configProviders().contains(m.group(1)))) {
      return false;
    }
    if (m.group(1).equals(SecretConfigProvider.NAME) && !value.equals(SecretConfigProvider.reference(connector, key))) {
      throw new Refusal(400, "Config " + key + " refers to the secret " + value + ", which is not this connector's: "
          + "a " + SecretConfigProvider.NAME + " reference may name only " + SecretConfigProvider.reference(connector,
          key) + "; give the password itself and Sluice stores it");
    }
    return true;
  }

  /** {@code ${provider:path:key}} or {@code ${provider:key}}, as Kafka's config transformer reads references. */
  private static final Pattern REFERENCE =
      Pattern.compile("\\$\\{([\\w.-]+):[^}]*\\}");

  /**
   * Stops the connector, backs up and removes its offsets, deletes it (waiting out a rebalance the stop may cause) and
   * forgets its secrets, then answers as Connect does. Nothing to back up (a forwarded repeat of this request, or a
   * connector that never committed) writes no backup file.
   */
  private void prepareDelete(ContainerRequestContext request, String connector) {
    ConnectRestClient connect = connect();
    if (connect.config(connector).isEmpty()) {
      return;
    }
    try {
      connect.stop(connector, STOP_TIMEOUT);
    } catch (IllegalStateException e) {
      throw new Refusal(e instanceof ConnectApiException c ? c.status() : 500, e.getMessage()
          + "; the connector was not deleted and its offsets are untouched");
    }
    OffsetsSnapshot offsets = new OffsetsTopic(settings.cluster(), settings.offsetsTopic())
        .snapshot(Duration.ofSeconds(30), OffsetsTopic.ReadListener.NONE).forConnector(connector);
    if (!offsets.live().isEmpty()) {
      Path backup = new OffsetBackup(settings.backupDir(), Clock.systemUTC()).write(connector, offsets);
      log.info("offsets of connector {} backed up to {} ({} records) before deletion", connector, backup,
          offsets.live().size());
      connect.deleteOffsets(connector);
    }
    connect.delete(connector);
    try {
      SecretStore.of(settings.cluster(), settings.secretsTopic()).forget(connector);
    } catch (RuntimeException e) {
      log.warn("connector {} deleted, but its secrets could not be forgotten: {}", connector, e.getMessage());
    }
    request.abortWith(Response.noContent().build());
  }

  private static String text(ObjectNode config, String key) {
    JsonNode v = config.get(key);
    return v == null || v.isNull() ? null : v.asText();
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
