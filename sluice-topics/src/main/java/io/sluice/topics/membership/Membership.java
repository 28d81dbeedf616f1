package io.sluice.topics.membership;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.topics.KafkaCluster;
import io.sluice.topics.TopicLog;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The nodes of a Sluice cluster, as each announces itself in one compacted topic ({@code sluice-cluster}): record key
 * = node id, value = the node's {@link Node} card as JSON, rewritten every {@value #HEARTBEAT_MS} ms; a tombstone when
 * the node stops. A node counts as live while its last card, by the record's timestamp, is younger than
 * {@value #TTL_MS} ms, so a node killed without a word drops out on its own.
 *
 * <p>{@link #join} announces a node and follows the others ({@code sluice up} does it in two steps: {@link #open} while
 * its components start, {@link #announce} once they answer); {@link #watch} only follows (what
 * {@code sluice cluster status} does). Every node sees the same cards, so each one can derive the same view:
 * which exporters to scrape, which routers to alert.
 */
public final class Membership implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Membership.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  public static final String DEFAULT_TOPIC = "sluice-cluster";
  static final long HEARTBEAT_MS = 5_000;
  static final long TTL_MS = 3 * HEARTBEAT_MS;
  static final long FORGET_MS = 60 * 60_000;

  /**
   * One node: its id, when it started, and the address of each component it runs ({@code kafka}, {@code connect},
   * {@code registry}, {@code metrics}, {@code alerts}, {@code exporter}, {@code ui}).
   */
  public record Node(String id, Instant started, Map<String, String> components) {
    public Node {
      components = Map.copyOf(components);
    }
  }

  /** A node as last heard of. */
  public record Seen(Node node, Instant lastSeen) {}

  private final Map<String, Seen> nodes = new ConcurrentHashMap<>();
  private final List<Consumer<List<Node>>> listeners = new CopyOnWriteArrayList<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Clock clock;
  /** This node once it has announced itself; null for an observer. */
  private volatile Node self;
  private ScheduledExecutorService timer;
  private List<Node> lastTold = List.of();
  private TopicLog<String, String> topicLog;

  private Membership(Node self, Clock clock) {
    this.self = self;
    this.clock = clock;
  }

  /** Announces {@code self} in {@code topic} (created when missing) and follows every other node's announcements. */
  public static Membership join(KafkaCluster cluster, String topic, Node self, Duration timeout) {
    Membership m = open(cluster, topic, timeout);
    m.announce(self);
    return m;
  }

  /**
   * Follows every node's announcements in {@code topic} (created when missing), read to its end, without announcing
   * this node yet: a node starting reads the topic while its components start, and {@link #announce}s itself once
   * they answer.
   */
  public static Membership open(KafkaCluster cluster, String topic, Duration timeout) {
    Membership m = new Membership(null, Clock.systemUTC());
    m.follow(cluster, topic, timeout, true);
    return m;
  }

  /** Announces {@code self} now and every {@value #HEARTBEAT_MS} ms from now on, until closed. */
  public void announce(Node self) {
    // Not while holding this object's lock, which the follower takes to tell listeners of the card it waits for.
    synchronized (this) {
      if (this.self != null) {
        throw new IllegalStateException("this node is announced already, as " + this.self.id());
      }
      this.self = self;
    }
    timer.scheduleWithFixedDelay(this::heartbeat, HEARTBEAT_MS, HEARTBEAT_MS, TimeUnit.MILLISECONDS);
    // The first card is in the topic before this returns: a node is listed as soon as it says it is ready.
    announceNow();
  }

  /** Follows the announcements without announcing: an observer. Fails when the topic does not exist. */
  public static Membership watch(KafkaCluster cluster, String topic, Duration timeout) {
    Membership m = new Membership(null, Clock.systemUTC());
    m.follow(cluster, topic, timeout, false);
    return m;
  }

  private void follow(KafkaCluster cluster, String topic, Duration timeout, boolean create) {
    timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "sluice-membership");
      t.setDaemon(true);
      return t;
    });
    topicLog = TopicLog.builder(cluster, topic, Serdes.String(), Serdes.String())
        .describedAs("cluster membership topic").clientId("sluice-membership").timeout(timeout)
        .createIfMissing(create).start(this::apply);
    // Nodes that stop announcing leave the view without a record saying so; tell listeners when that happens.
    timer.scheduleWithFixedDelay(this::tell, HEARTBEAT_MS, HEARTBEAT_MS, TimeUnit.MILLISECONDS);
  }

  /** The live nodes, oldest first (then by id): the same order on every node. */
  public List<Node> live() {
    Instant now = clock.instant();
    return nodes.values().stream()
        .filter(s -> now.toEpochMilli() - s.lastSeen().toEpochMilli() < TTL_MS)
        .map(Seen::node)
        .sorted(Comparator.comparing(Node::started).thenComparing(Node::id))
        .toList();
  }

  /**
   * Every node heard of within the last {@value #FORGET_MS} ms, live or not, with when it was last heard of: a node
   * killed without a word is listed as gone for an hour, then forgotten.
   */
  public List<Seen> all() {
    long now = clock.millis();
    return nodes.values().stream().filter(s -> now - s.lastSeen().toEpochMilli() < FORGET_MS).sorted(Comparator.comparing((Seen s) -> s.node().started())
        .thenComparing(s -> s.node().id())).toList();
  }

  /** Calls {@code listener} with the live nodes now and whenever they change. */
  public void onChange(Consumer<List<Node>> listener) {
    listeners.add(listener);
    listener.accept(live());
  }

  private synchronized void tell() {
    List<Node> now = live();
    if (now.equals(lastTold)) {
      return;
    }
    lastTold = now;
    for (Consumer<List<Node>> l : listeners) {
      try {
        l.accept(now);
      } catch (RuntimeException e) {
        log.error("cluster membership listener failed", e);
      }
    }
  }

  private void apply(ConsumerRecord<String, String> r) {
    if (r.key() == null) {
      return;
    }
    if (r.value() == null) {
      nodes.remove(r.key());
    } else {
      try {
        Node n = parse(r.value());
        nodes.put(r.key(), new Seen(n, Instant.ofEpochMilli(r.timestamp())));
      } catch (IOException e) {
        log.warn("ignoring an unreadable card of node {} in {}: {}", r.key(), topicLog.topic(), e.getMessage());
        return;
      }
    }
    tell();
  }

  private static Node parse(String card) throws IOException {
    com.fasterxml.jackson.databind.JsonNode j = JSON.readTree(card);
    Map<String, String> components = new LinkedHashMap<>();
    j.path("components").fields().forEachRemaining(e -> components.put(e.getKey(), e.getValue().asText()));
    try {
      return new Node(j.path("id").asText(), Instant.parse(j.path("started").asText()), components);
    } catch (java.time.format.DateTimeParseException e) {
      throw new IOException("started: " + e.getMessage(), e);
    }
  }

  private void heartbeat() {
    topicLog.appendLater(self.id(), card(), null, "while this node's card cannot be written, the other nodes count it"
        + " as gone " + TTL_MS / 1000 + " s after the last one (it is not scraped, nor sent alerts)");
  }

  private void announceNow() {
    try {
      topicLog.appendAndWait(self.id(), card());
    } catch (TopicLog.TopicLogException e) {
      log.warn("cannot announce this node in {}: {}", topicLog.topic(), e.getMessage());
    }
  }

  private String card() {
    try {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("id", self.id());
      m.put("started", self.started().toString());
      m.put("components", self.components());
      return JSON.writeValueAsString(m);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    if (closed.getAndSet(true)) {
      return;
    }
    if (timer != null) {
      timer.shutdownNow();
    }
    if (topicLog == null) {
      return;
    }
    Node self = this.self;
    if (self != null) {
      try {
        // Leaving: the others drop this node at once instead of after TTL_MS.
        topicLog.append(self.id(), null);
      } catch (TopicLog.TopicLogException e) {
        log.warn("could not announce leaving {}: the other nodes count this node as gone {} s after its last card"
            + " instead of now: {}", topicLog.topic(), TTL_MS / 1000, e.getMessage());
      }
    }
    topicLog.close();
  }
}
