package io.sluice.exporter;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.kafka.connect.errors.NotFoundException;
import org.apache.kafka.connect.runtime.Herder;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorType;

/**
 * The connectors of the cluster as the worker holds them in memory (its config snapshot and status store): reading
 * them never waits for Kafka, so a scrape can call this.
 */
final class ConnectorCatalog {
  private final Herder herder;

  ConnectorCatalog(Herder herder) {
    this.herder = herder;
  }

  enum Kind { SOURCE, SINK, UNKNOWN }

  /** One task's state as the status store has it. */
  record Task(int id, String state) {}

  /** One connector with what the exporter derives from its config. */
  record Connector(String name, Kind kind, Map<String, String> config, String state, List<Task> tasks,
      String pipeline, Collection<String> activeTopics) {

    String connectorClass() {
      return config.getOrDefault("connector.class", "");
    }

    /** The dead-letter topic of a sink, or null. */
    String dlqTopic() {
      String t = config.get("errors.deadletterqueue.topic.name");
      return t == null || t.isBlank() ? null : t.trim();
    }

    /** The consumer group of a sink's tasks: Connect's {@code connect-<name>} unless overridden. */
    String consumerGroup() {
      return config.getOrDefault("consumer.override.group.id", "connect-" + name);
    }

    /** A sink's {@code topics} list; {@code topics.regex} is resolved by the caller against the topic list. */
    List<String> sinkTopics() {
      String topics = config.get("topics");
      List<String> out = new ArrayList<>();
      if (topics != null) {
        for (String t : topics.split(",")) {
          if (!t.isBlank()) {
            out.add(t.trim());
          }
        }
      }
      return out;
    }

    Pattern sinkTopicsRegex() {
      String regex = config.get("topics.regex");
      return regex == null || regex.isBlank() ? null : Pattern.compile(regex.trim());
    }
  }

  /**
   * The names of the connectors in the worker's config, and nothing else: a connector is deleted when it leaves this
   * list, not when its status cannot be read for a moment (while the worker stops, say).
   */
  Set<String> configured() {
    return new HashSet<>(herder.connectors());
  }

  /** Every connector that exists now; one that disappears while being read is left out. */
  List<Connector> connectors() {
    List<Raw> raw = new ArrayList<>();
    for (String name : herder.connectors()) {
      try {
        ConnectorStateInfo status = herder.connectorStatus(name);
        List<Task> tasks = new ArrayList<>();
        for (ConnectorStateInfo.TaskState t : status.tasks()) {
          tasks.add(new Task(t.id(), t.state()));
        }
        Kind kind = status.type() == ConnectorType.SOURCE ? Kind.SOURCE
            : status.type() == ConnectorType.SINK ? Kind.SINK : Kind.UNKNOWN;
        Map<String, String> config = Map.of();
        try {
          config = herder.connectorInfo(name).config();
        } catch (NotFoundException e) {
          throw e;
        } catch (RuntimeException e) {
          // A connector whose plugin cannot be loaded still has a state worth exporting (FAILED, usually).
        }
        Collection<String> active = List.of();
        try {
          active = herder.connectorActiveTopics(name).topics();
        } catch (RuntimeException e) {
          // Topic tracking may be disabled; the topics are then simply not listed.
        }
        raw.add(new Raw(name, kind, config, status.connector().state(), tasks, active));
      } catch (NotFoundException e) {
        // Deleted between the listing and the read.
      }
    }
    Map<String, String> prefixToSource = new HashMap<>();
    for (Raw r : raw) {
      String prefix = r.config.get("topic.prefix");
      if (r.kind == Kind.SOURCE && prefix != null && !prefix.isBlank()) {
        prefixToSource.put(prefix.trim(), r.name);
      }
    }
    List<Connector> out = new ArrayList<>(raw.size());
    for (Raw r : raw) {
      Connector c = new Connector(r.name, r.kind, r.config, r.state, r.tasks, null, r.active);
      out.add(new Connector(r.name, r.kind, r.config, r.state, r.tasks, pipelineOf(c, prefixToSource), r.active));
    }
    return out;
  }

  /**
   * The label that joins a source's and a sink's series for lag: a source is its own pipeline; a sink belongs to the
   * source whose {@code topic.prefix} its topics carry, else to {@code sluice.pipeline}, else to itself. A sink
   * subscribed by {@code topics.regex} is matched through the topics Connect saw it consume.
   */
  static String pipelineOf(Connector c, Map<String, String> prefixToSource) {
    if (c.kind() != Kind.SINK) {
      return c.name();
    }
    List<String> topics = new ArrayList<>(c.sinkTopics());
    topics.addAll(c.activeTopics());
    for (String topic : topics) {
      for (Map.Entry<String, String> e : prefixToSource.entrySet()) {
        if (topic.equals(e.getKey()) || topic.startsWith(e.getKey() + ".")) {
          return e.getValue();
        }
      }
    }
    String explicit = c.config().get("sluice.pipeline");
    return explicit == null || explicit.isBlank() ? c.name() : explicit.trim();
  }

  private record Raw(String name, Kind kind, Map<String, String> config, String state, List<Task> tasks,
      Collection<String> active) {}
}
