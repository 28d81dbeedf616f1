package io.sluice.console.web;

import static io.sluice.console.web.ConsoleReply.error;
import static io.sluice.console.web.ConsoleReply.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.client.HttpTransport;
import io.sluice.console.alerts.SilenceDraft;
import io.sluice.http.HttpResponse;
import io.sluice.http.web.Role;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The console's alerts and silences, over the alert router's Alertmanager API v2 on the path the console's
 * pause-with-silence takes (the router to silence on, with its credentials): the alerts grouped as the router groups
 * them ({@code /api/v2/alerts/groups}), an inhibited alert with the alerts that inhibit it, a silenced one with its
 * silences; the silences ({@code /api/v2/silences}); a silence created or edited ({@link SilenceDraft}, checked as
 * Alertmanager's form checks it) and expired ({@code DELETE /api/v2/silence/{id}}). The router's refusals are passed
 * on with its words and status.
 */
final class AlertConsole {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpTransport router;
  private final Clock clock;

  /** {@code router} null: no alert router to read or silence on, and these endpoints say so. */
  AlertConsole(HttpTransport router, Clock clock) {
    this.router = router;
    this.clock = clock;
  }

  /** The role an action needs, or null for no such action. */
  static Role roleFor(String action) {
    return switch (action) {
      case "add", "update", "expire" -> Role.OPERATE;
      default -> null;
    };
  }

  /** How the audit names an action, as amtool's command that does the same. */
  static String auditName(String action) {
    return "silence " + action;
  }

  /**
   * The router's alert groups, and for every alert an inhibited one names, its labels (so the page says what
   * inhibits it): inhibiting alerts are looked up among all the router's alerts, silenced and inhibited included.
   */
  HttpResponse groups(Role role) {
    if (router == null) {
      return error(503, "this console has no alert router configured");
    }
    try {
      HttpTransport.Reply groups = router.send("GET", "/api/v2/alerts/groups", null, true);
      if (!groups.ok()) {
        return upstream(groups);
      }
      JsonNode list = JSON.readTree(groups.body());
      Set<String> wanted = new HashSet<>();
      for (JsonNode g : list) {
        for (JsonNode a : g.path("alerts")) {
          a.path("status").path("inhibitedBy").forEach(f -> wanted.add(f.asText()));
        }
      }
      ObjectNode inhibitors = JSON.createObjectNode();
      if (!wanted.isEmpty()) {
        HttpTransport.Reply all = router.send("GET", "/api/v2/alerts", null, true);
        if (all.ok()) {
          for (JsonNode a : JSON.readTree(all.body())) {
            if (wanted.contains(a.path("fingerprint").asText())) {
              inhibitors.putObject(a.path("fingerprint").asText()).set("labels", a.path("labels"));
            }
          }
        }
      }
      ObjectNode out = JSON.createObjectNode();
      out.set("groups", list);
      out.set("inhibitors", inhibitors);
      out.putObject("may").put("operate", role.allows(Role.OPERATE));
      return json(200, out);
    } catch (IOException e) {
      return error(502, "the alert router answered something that is not JSON: " + e.getMessage());
    } catch (HttpTransport.UnreachableException e) {
      return error(502, e.getMessage());
    }
  }

  /** The router's silences: active first, then pending, then expired, as Alertmanager's page orders them. */
  HttpResponse silences(Role role) {
    if (router == null) {
      return error(503, "this console has no alert router configured");
    }
    try {
      HttpTransport.Reply r = router.send("GET", "/api/v2/silences", null, true);
      if (!r.ok()) {
        return upstream(r);
      }
      List<JsonNode> list = new ArrayList<>();
      JSON.readTree(r.body()).forEach(list::add);
      List<String> order = List.of("active", "pending", "expired");
      list.sort((a, b) -> {
        int c = Integer.compare(order.indexOf(a.path("status").path("state").asText()),
            order.indexOf(b.path("status").path("state").asText()));
        // Active and pending: the soonest to end first; expired: the latest to have ended first.
        boolean expired = "expired".equals(a.path("status").path("state").asText());
        int t = a.path("endsAt").asText().compareTo(b.path("endsAt").asText());
        return c != 0 ? c : expired ? -t : t;
      });
      ObjectNode out = JSON.createObjectNode();
      ArrayNode silences = out.putArray("silences");
      list.forEach(silences::add);
      out.putObject("may").put("operate", role.allows(Role.OPERATE));
      return json(200, out);
    } catch (IOException e) {
      return error(502, "the alert router answered something that is not JSON: " + e.getMessage());
    } catch (HttpTransport.UnreachableException e) {
      return error(502, e.getMessage());
    }
  }

  /**
   * {@code add} a silence, {@code update} the one {@code name} names (its id), or {@code expire} it; the form's
   * fields as {@link SilenceDraft} reads them, the creator the console's user.
   */
  HttpResponse act(String action, JsonNode body, String user) {
    if (router == null) {
      return error(503, "this console has no alert router configured");
    }
    try {
      return switch (action) {
        case "add", "update" -> {
          ObjectNode form = body.deepCopy();
          if (action.equals("add")) {
            form.remove("id");
          } else if (body.path("name").asText("").isBlank()) {
            yield error(400, "a silence id is required");
          } else {
            form.put("id", body.path("name").asText().trim());
          }
          SilenceDraft draft = SilenceDraft.of(form, user, clock.instant());
          if (!draft.errors().isEmpty()) {
            ObjectNode out = JSON.createObjectNode().put("error", "the silence is not complete: "
                + String.join("; ", draft.errors().entrySet().stream().map(e -> e.getKey() + ": " + e.getValue())
                .toList()));
            out.set("errors", JSON.valueToTree(draft.errors()));
            yield json(400, out);
          }
          HttpTransport.Reply r = router.send("POST", "/api/v2/silences", draft.body().toString(), false);
          if (!r.ok()) {
            yield upstream(r);
          }
          String id = JSON.readTree(r.body()).path("silenceID").asText();
          yield json(200, JSON.createObjectNode().put("silenceID", id)
              .put("result", draft.id() == null ? "created" : draft.id().equals(id) ? "updated" : "replaced"));
        }
        case "expire" -> {
          String id = body.path("name").asText("").trim();
          if (id.isEmpty()) {
            yield error(400, "a silence id is required");
          }
          HttpTransport.Reply r = router.send("DELETE", "/api/v2/silence/" + HttpTransport.segment(id), null, false);
          yield r.ok() ? json(200, JSON.createObjectNode().put("silenceID", id).put("result", "expired"))
              : upstream(r);
        }
        default -> error(404, "no action " + action);
      };
    } catch (IOException e) {
      return error(502, "the alert router answered something that is not JSON: " + e.getMessage());
    } catch (HttpTransport.UnreachableException e) {
      return error(502, e.getMessage());
    }
  }

  /** The router's refusal with its status (a client's error) and words: Alertmanager answers a JSON string or text. */
  private static HttpResponse upstream(HttpTransport.Reply r) {
    String words = r.body().strip();
    try {
      JsonNode j = JSON.readTree(words);
      words = j.isTextual() ? j.asText() : j.path("message").asText(j.path("error").asText(words));
    } catch (IOException notJson) {
      // Text as it came.
    }
    return error(r.status() >= 400 && r.status() < 500 ? r.status() : 502, "the alert router answered "
        + r.status() + ": " + words);
  }
}
