package io.sluice.console.web;

import static io.sluice.console.web.ConsoleReply.error;
import static io.sluice.console.web.ConsoleReply.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.client.ClientOptions;
import io.sluice.client.HttpTransport;
import io.sluice.connect.client.ConnectRestClient;
import io.sluice.http.HttpRequest;
import io.sluice.http.HttpResponse;
import io.sluice.http.web.Role;
import io.sluice.registry.client.RegistryApiException;
import io.sluice.registry.client.SchemaRegistryClient;
import io.sluice.serde.view.PayloadDecoder;
import io.sluice.serde.view.PayloadDecoder.Decoded;
import io.sluice.topics.KafkaCluster;
import io.sluice.console.schemas.SchemaConsole;
import io.sluice.console.topics.BrowsePosition;
import io.sluice.console.topics.KafkaInventory;
import io.sluice.console.topics.MessageBrowser;
import java.io.IOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The console's data endpoints for topics, their messages, consumer groups and schemas: each answers the console's
 * JSON, a missing thing 404, bad input 400 with what was expected, and an upstream (Kafka, the registry) that fails
 * 502 with its words. Without a Kafka cluster or a registry configured, their endpoints say so (503).
 */
final class DataConsole implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DataConsole.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Records on one page of the browser unless asked otherwise, and at most. */
  static final int PAGE = 50;
  static final int MAX_PAGE = 500;

  private final ExecutorService pool = Executors.newFixedThreadPool(8, r -> {
    Thread t = new Thread(r, "sluice-console-data");
    t.setDaemon(true);
    return t;
  });
  private final KafkaInventory inventory;
  private final MessageBrowser browser;
  private final SchemaConsole schemas;

  /** {@code kafka} and {@code registryUrl} may be null: those pages then say what is missing. */
  DataConsole(KafkaCluster kafka, ConnectRestClient connect, String registryUrl, ClientOptions registryClient) {
    SchemaRegistryClient registry = registryUrl == null ? null : new SchemaRegistryClient(registryUrl, registryClient);
    this.inventory = kafka == null ? null : new KafkaInventory(kafka, connect, pool);
    this.browser = kafka == null ? null : new MessageBrowser(kafka, new PayloadDecoder(registry));
    this.schemas = registryUrl == null ? null : new SchemaConsole(registryUrl, registryClient, pool);
  }

  /** The role a schema action needs, or null for no such action; a check only asks, as the registry's own does. */
  static Role roleFor(String action) {
    return switch (action) {
      case "compatibility" -> Role.ADMIN;
      case "check" -> Role.READ;
      default -> null;
    };
  }

  // ---- topics

  HttpResponse topics() {
    if (inventory == null) {
      return error(503, "this console has no Kafka cluster configured");
    }
    return kafka(inventory::topics);
  }

  HttpResponse topic(HttpRequest r) {
    if (inventory == null) {
      return error(503, "this console has no Kafka cluster configured");
    }
    return kafka(() -> inventory.topic(r.param("name").orElse("")));
  }

  HttpResponse groups() {
    if (inventory == null) {
      return error(503, "this console has no Kafka cluster configured");
    }
    return kafka(inventory::consumerGroups);
  }

  /** A page of the message browser, as the URL's parameters ask. */
  HttpResponse messages(HttpRequest r) {
    if (browser == null) {
      return error(503, "this console has no Kafka cluster configured");
    }
    String topic = r.param("name").orElse("");
    BrowsePosition position;
    int limit;
    try {
      position = BrowsePosition.parse(r.param("from").orElse(null), r.param("partition").orElse(null),
          r.param("offset").orElse(null), r.param("time").orElse(null), r.param("at").orElse(null),
          r.param("before").orElse(null));
      limit = r.param("limit").map(t -> limit(t, MAX_PAGE)).orElse(PAGE);
    } catch (IllegalArgumentException e) {
      return error(400, e.getMessage());
    }
    MessageBrowser.Filter filter = new MessageBrowser.Filter(r.param("key").orElse(""), r.param("text").orElse(""));
    return kafka(() -> page(browser.read(topic, position, filter, limit)));
  }

  /** A page size from a {@code limit} parameter, 1 to {@code max}; the console's pages all take it this way. */
  static int limit(String text, int max) {
    try {
      int n = Integer.parseInt(text.trim());
      if (n < 1 || n > max) {
        throw new IllegalArgumentException("limit must be 1 to " + max + ", got " + text);
      }
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("limit must be a whole number, got " + text);
    }
  }

  private static ObjectNode page(MessageBrowser.Page p) {
    ObjectNode out = JSON.createObjectNode().put("topic", p.topic()).put("forward", p.forward())
        .put("scanned", p.scanned()).put("budgetSpent", p.budgetSpent()).put("more", p.more());
    if (p.more()) {
      out.put(p.forward() ? "at" : "before", BrowsePosition.format(p.next()));
    }
    ArrayNode parts = out.putArray("partitions");
    p.bounds().forEach((partition, b) -> parts.addObject().put("partition", partition).put("first", b[0])
        .put("next", b[1]));
    ArrayNode list = out.putArray("messages");
    for (MessageBrowser.Message m : p.messages()) {
      ObjectNode o = list.addObject().put("partition", m.partition()).put("offset", m.offset())
          .put("timestamp", m.timestamp()).put("timestampType", m.timestampType()).put("size", m.size())
          .put("cut", m.cut());
      o.set("key", decoded(m.key()));
      o.set("value", decoded(m.value()));
      ArrayNode headers = o.putArray("headers");
      m.headers().forEach(h -> headers.addObject().put("key", h.getKey()).put("value", h.getValue()));
    }
    return out;
  }

  static ObjectNode decoded(Decoded d) {
    ObjectNode o = JSON.createObjectNode().put("format", d.format().name()).put("text", d.text());
    if (d.schemaId() != null) {
      o.put("schemaId", d.schemaId());
    }
    if (d.schemaType() != null) {
      o.put("schemaType", d.schemaType());
    }
    if (d.subject() != null) {
      o.put("subject", d.subject()).put("version", d.version());
    }
    if (d.note() != null) {
      o.put("note", d.note());
    }
    return o;
  }

  @FunctionalInterface
  private interface KafkaCall {
    Object call() throws Exception;
  }

  private static HttpResponse kafka(KafkaCall call) {
    try {
      return json(200, call.call());
    } catch (IllegalArgumentException e) {
      return error(404, e.getMessage());
    } catch (ExecutionException e) {
      return error(502, "Kafka: " + (e.getCause() == null ? e.getMessage() : e.getCause().getMessage()));
    } catch (TimeoutException e) {
      return error(504, "Kafka did not answer in time");
    } catch (org.apache.kafka.common.KafkaException | IllegalStateException e) {
      return error(502, "Kafka: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return error(503, "interrupted");
    } catch (Exception e) {
      log.warn("console data request failed", e);
      return error(500, e.toString());
    }
  }

  // ---- schemas

  HttpResponse subjects(HttpRequest r) {
    if (schemas == null) {
      return error(503, "this console has no schema registry configured");
    }
    int page;
    try {
      page = Integer.parseInt(r.param("page").orElse("1"));
    } catch (NumberFormatException e) {
      return error(400, "page must be a whole number");
    }
    return registry(() -> json(200, schemas.subjects(r.param("q").orElse(""), page)));
  }

  HttpResponse subject(HttpRequest r, Role role) {
    if (schemas == null) {
      return error(503, "this console has no schema registry configured");
    }
    String name = r.param("name").orElse("");
    return registry(() -> schemas.subject(name).map(o -> {
      o.putObject("may").put("admin", role.allows(Role.ADMIN));
      return json(200, o);
    }).orElseGet(() -> error(404, "no subject " + name + " in the registry at " + schemas.url())));
  }

  HttpResponse version(HttpRequest r) {
    if (schemas == null) {
      return error(503, "this console has no schema registry configured");
    }
    String name = r.param("name").orElse("");
    String version = r.param("version").orElse("latest");
    return registry(() -> schemas.version(name, version).map(o -> json(200, o))
        .orElseGet(() -> error(404, "no version " + version + " of subject " + name)));
  }

  HttpResponse diff(HttpRequest r) {
    if (schemas == null) {
      return error(503, "this console has no schema registry configured");
    }
    String name = r.param("name").orElse("");
    String left = r.param("left").orElse("");
    String right = r.param("right").orElse("latest");
    return registry(() -> schemas.diff(name, left, right).map(o -> json(200, o))
        .orElseGet(() -> error(404, "subject " + name + " has no version " + left + " or " + right)));
  }

  /** {@code compatibility} (set a subject's) or {@code check} (a candidate), the body naming the subject. */
  HttpResponse act(String action, JsonNode body) {
    if (schemas == null) {
      return error(503, "this console has no schema registry configured");
    }
    String name = body.path("name").asText("");
    if (name.isBlank()) {
      return error(400, "a subject name is required");
    }
    return registry(() -> switch (action) {
      case "compatibility" -> json(200, schemas.setCompatibility(name, body.path("compatibility").asText("")));
      case "check" -> {
        String schema = body.path("schema").asText("");
        if (schema.isBlank()) {
          yield error(400, "paste a schema to check");
        }
        try {
          yield json(200, schemas.check(name, schema, body.path("type").asText("")));
        } catch (IOException e) {
          yield error(502, e.getMessage());
        }
      }
      default -> error(404, "no action " + action);
    });
  }

  @FunctionalInterface
  private interface RegistryCall {
    HttpResponse call();
  }

  private static HttpResponse registry(RegistryCall call) {
    try {
      return call.call();
    } catch (RegistryApiException e) {
      return json(e.status() >= 400 && e.status() < 500 ? e.status() : 502,
          JSON.createObjectNode().put("error", e.getMessage()).put("error_code", e.errorCode()));
    } catch (HttpTransport.UnreachableException e) {
      return error(502, e.getMessage());
    } catch (IllegalArgumentException e) {
      return error(400, e.getMessage());
    } catch (IllegalStateException e) {
      return error(502, e.getMessage());
    }
  }

  @Override
  public void close() {
    if (inventory != null) {
      inventory.close();
    }
    if (browser != null) {
      browser.close();
    }
    pool.shutdownNow();
  }
}
