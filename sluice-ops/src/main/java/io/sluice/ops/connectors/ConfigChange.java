package io.sluice.ops.connectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.connect.client.ConnectRestClient;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A connector config about to be written, as {@code sluice connectors apply} and the console's editor both check it:
 * Connect's verdict first ({@code PUT /connector-plugins/{class}/config/validate}, each refusal with its key), then
 * what changes against the connector's current config. Nothing is written until {@link #apply} is called, and a
 * refused config is never written.
 *
 * @param current the connector's config now, empty when it does not exist yet
 * @param warnings what a Sluice worker warns about without refusing it (a risky set-up the config may keep)
 */
public record ConfigChange(String name, Map<String, String> wanted, List<Problem> problems,
    Optional<Map<String, String>> current, ConfigDiff diff, List<String> warnings) {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One of Connect's refusals: the key it concerns and Connect's words. */
  public record Problem(String key, String error) {}

  /** What the change does: create the connector, update its config, or nothing. */
  public enum Action { CREATE, UPDATE, UNCHANGED }

  public ConfigChange {
    wanted = Map.copyOf(wanted);
    problems = List.copyOf(problems);
    warnings = List.copyOf(warnings);
  }

  /** Asks Connect about {@code wanted} (which must hold {@code connector.class}) and reads the current config. */
  public static ConfigChange plan(ConnectRestClient connect, String name, Map<String, String> wanted) {
    Map<String, String> config = new LinkedHashMap<>(wanted);
    config.putIfAbsent("name", name);
    String connectorClass = config.get("connector.class");
    if (connectorClass == null || connectorClass.isBlank()) {
      throw new IllegalArgumentException("connector.class is missing");
    }
    ConnectRestClient.Validation validation = connect.validation(connectorClass, JSON.valueToTree(config));
    JsonNode verdict = validation.verdict();
    List<Problem> problems = new ArrayList<>();
    for (JsonNode c : verdict.path("configs")) {
      JsonNode v = c.path("value");
      for (JsonNode e : v.path("errors")) {
        problems.add(new Problem(v.path("name").asText(), e.asText()));
      }
    }
    if (problems.isEmpty() && verdict.path("error_count").asInt() > 0) {
      problems.add(new Problem("", verdict.path("error_count").asInt() + " error(s) without a key"));
    }
    Optional<Map<String, String>> current = connect.config(name).map(ConfigChange::strings);
    return new ConfigChange(name, config, problems, current,
        ConfigDiff.between(current.orElse(Map.of()), config), validation.warnings());
  }

  public boolean refused() {
    return !problems.isEmpty();
  }

  /**
   * What {@link #apply} does; a change of secrets alone counts as none unless {@code resendSecrets} (a Sluice worker
   * keeps them as references, which cannot be compared with the clear values).
   */
  public Action action(boolean resendSecrets) {
    if (current.isEmpty()) {
      return Action.CREATE;
    }
    return !diff.isEmpty() && (resendSecrets || !diff.onlyResent()) ? Action.UPDATE : Action.UNCHANGED;
  }

  /** Writes the config (refused when Connect refused it); returns what was done. */
  public Action apply(ConnectRestClient connect, boolean resendSecrets) {
    if (refused()) {
      throw new IllegalStateException("Kafka Connect refused the config of " + name + "; nothing was changed");
    }
    Action action = action(resendSecrets);
    ObjectNode body = JSON.valueToTree(wanted);
    switch (action) {
      case CREATE -> connect.create(name, body);
      case UPDATE -> connect.putConfig(name, body);
      case UNCHANGED -> { }
    }
    return action;
  }

  private static Map<String, String> strings(ObjectNode config) {
    Map<String, String> out = new LinkedHashMap<>();
    config.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asText()));
    return out;
  }
}
