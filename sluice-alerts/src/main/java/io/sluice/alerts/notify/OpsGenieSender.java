package io.sluice.alerts.notify;

import io.sluice.alerts.config.Config;
import io.sluice.alerts.types.Alert;
import io.sluice.http.Json;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Opsgenie's Alert API v2. A firing group creates (or, Opsgenie deduplicating on the alias, updates) one alert whose
 * alias is the SHA-256 of the group key; a resolved group closes it by that alias. With {@code update_alerts} the
 * message and description of an open alert are replaced as well.
 */
record OpsGenieSender(Config.OpsGenie conf, HttpClient client, Duration timeout, Templates templates)
    implements Sender {
  /** Opsgenie's limit for the message, in characters. */
  static final int MAX_MESSAGE = 130;

  @Override
  public void send(TemplateData d, List<Alert> alerts) throws SendException {
    // The key may itself be a template, as in Alertmanager (one key per team, picked by a label).
    Map<String, String> auth = Map.of("Authorization",
        "GenieKey " + templates.render(conf.apiKey().reveal(), d).strip());
    for (ServiceCall call : calls(conf, d, templates, auth)) {
      call.send(client, conf.http(), timeout, Retry.SERVER_ERRORS_AND_RATE_LIMITS);
    }
  }

  /** The requests of one notification, in order; the first that fails ends it. */
  static List<ServiceCall> calls(Config.OpsGenie c, TemplateData d, Templates templates, Map<String, String> auth) {
    String alias = d.groupKeyHash();
    String alertUrl = "v2/alerts/" + alias;
    if (d.status().equals("resolved")) {
      return List.of(call("POST", endpoint(c, alertUrl + "/close", true),
          Map.of("source", templates.render(c.source(), d)), auth));
    }
    Map<String, Object> create = create(c, d, templates, alias);
    List<ServiceCall> calls = new ArrayList<>();
    calls.add(call("POST", endpoint(c, "v2/alerts", false), create, auth));
    if (c.updateAlerts()) {
      calls.add(call("PUT", endpoint(c, alertUrl + "/message", true), only("message", create), auth));
      calls.add(call("PUT", endpoint(c, alertUrl + "/description", true), only("description", create), auth));
    }
    return calls;
  }

  static Map<String, Object> create(Config.OpsGenie c, TemplateData d, Templates templates, String alias) {
    // Opsgenie gets the common labels as details, then the configured ones over them.
    Map<String, String> details = new TreeMap<>(d.commonLabels());
    c.details().forEach((k, v) -> details.put(k, templates.render(v, d)));
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("alias", alias);
    m.put("message", Truncation.toRunes(templates.render(c.message(), d), MAX_MESSAGE));
    putIfSet(m, "description", templates.render(c.description(), d));
    m.put("details", details);
    m.put("source", templates.render(c.source(), d));
    putIfSet(m, "responders", responders(c, d, templates));
    putIfSet(m, "tags", split(templates.render(c.tags(), d)));
    putIfSet(m, "note", templates.render(c.note(), d));
    putIfSet(m, "priority", templates.render(c.priority(), d));
    putIfSet(m, "entity", templates.render(c.entity(), d));
    putIfSet(m, "actions", split(templates.render(c.actions(), d)));
    return m;
  }

  /**
   * The rendered responders. One whose fields all render empty is left out (responders picked by labels some groups
   * lack); type {@code teams} names several teams, comma-separated, and becomes one {@code team} responder each.
   */
  private static List<Map<String, String>> responders(Config.OpsGenie c, TemplateData d, Templates templates) {
    List<Map<String, String>> out = new ArrayList<>();
    for (Config.Responder r : c.responders()) {
      String id = templates.render(r.id(), d);
      String name = templates.render(r.name(), d);
      String username = templates.render(r.username(), d);
      String type = templates.render(r.type(), d);
      if (id.isEmpty() && name.isEmpty() && username.isEmpty() && type.isEmpty()) {
        continue;
      }
      if (type.equals("teams")) {
        for (String team : split(name)) {
          out.add(responder("", templates.render(team, d), "", "team"));
        }
        continue;
      }
      out.add(responder(id, name, username, type));
    }
    return out;
  }

  private static Map<String, String> responder(String id, String name, String username, String type) {
    Map<String, String> m = new LinkedHashMap<>();
    putIfSet(m, "id", id);
    putIfSet(m, "name", name);
    putIfSet(m, "username", username);
    m.put("type", type);
    return m;
  }

  /** Comma-separated values without the empty ones; values keep their spaces, as Alertmanager sends them. */
  private static List<String> split(String s) {
    List<String> out = new ArrayList<>();
    for (String x : s.strip().split(",", -1)) {
      if (!x.isEmpty()) {
        out.add(x);
      }
    }
    return out;
  }

  /** {@code path} under the API URL (which ends with a slash), the alias named as such where {@code byAlias}. */
  static String endpoint(Config.OpsGenie c, String path, boolean byAlias) {
    String base = c.apiUrl();
    String query = "";
    int q = base.indexOf('?');
    if (q >= 0) {
      query = base.substring(q + 1);
      base = base.substring(0, q);
    }
    if (byAlias) {
      query = query.isEmpty() ? "identifierType=alias" : query + "&identifierType=alias";
    }
    return base + path + (query.isEmpty() ? "" : "?" + query);
  }

  private static ServiceCall call(String method, String url, Object body, Map<String, String> auth) {
    return new ServiceCall(method, url, "application/json", Json.write(body), auth);
  }

  private static Map<String, Object> only(String key, Map<String, Object> create) {
    Map<String, Object> m = new LinkedHashMap<>();
    putIfSet(m, key, create.get(key));
    return m;
  }

  private static <V> void putIfSet(Map<String, V> m, String k, V v) {
    if (v instanceof String s ? !s.isEmpty() : v instanceof List<?> l ? !l.isEmpty() : v != null) {
      m.put(k, v);
    }
  }
}
