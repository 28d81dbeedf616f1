package io.sluice.alerts.state;

import io.sluice.topics.KafkaCluster;
import io.sluice.topics.TopicLog;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Router state in a compacted single-partition Kafka topic shared by every node of a cluster: record key = snapshot
 * name, value = the snapshot, header {@code node} = who wrote it.
 *
 * <p>A node reads the topic to its end on start (the latest snapshot per name is what {@link #load} returns), then
 * follows it and hands snapshots written by other nodes to whoever registered for them. Two nodes saving at the same
 * moment cannot lose each other's entries for long: the owners merge what they receive (newest entry wins) and save
 * the union again when it added anything, so the topic converges on the union.
 *
 * <p>Nodes also announce themselves: every {@value #HEARTBEAT_MS} ms each writes a record under
 * {@code peer:<node id>} whose value is the address of its API (a tombstone when it closes). A node counts as live while its last announcement, by the
 * record's timestamp, is younger than {@value #PEER_TTL_MS} ms; {@link #peerPosition} is the number of live nodes
 * whose id sorts before this one's, as Alertmanager orders its cluster peers by name.
 */
public final class KafkaStateStore implements StateStore, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KafkaStateStore.class);
  private static final String NODE_HEADER = "node";
  static final String PEER_PREFIX = "peer:";
  static final long HEARTBEAT_MS = 5_000;
  static final long PEER_TTL_MS = 3 * HEARTBEAT_MS;

  private final String node = UUID.randomUUID().toString();
  private final Map<String, byte[]> latest = new ConcurrentHashMap<>();
  private final Map<String, List<Consumer<byte[]>>> listeners = new ConcurrentHashMap<>();
  /** Another node as last heard of: when, and the address it gave. */
  record Heard(long at, String address) {}

  /** Other nodes' ids and their last announcement. */
  private final Map<String, Heard> peers = new ConcurrentHashMap<>();
  private final ScheduledExecutorService heartbeats = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "sluice-alerts-heartbeat");
    t.setDaemon(true);
    return t;
  });
  private final AtomicBoolean closed = new AtomicBoolean();
  private TopicLog<String, byte[]> topicLog;
  private volatile String address = "";

  private KafkaStateStore() {}

  /** Creates the topic when missing, reads it to its end and starts following it. */
  public static KafkaStateStore start(String bootstrapServers, String topic, Duration timeout) {
    return start(KafkaCluster.of(bootstrapServers), topic, timeout);
  }

  public static KafkaStateStore start(KafkaCluster cluster, String topic, Duration timeout) {
    KafkaStateStore store = new KafkaStateStore();
    store.topicLog = TopicLog.builder(cluster, topic, Serdes.String(), Serdes.ByteArray())
        .describedAs("alert router state topic").clientId("sluice-alerts-state").timeout(timeout)
        .start(store::apply);
    store.heartbeats.scheduleWithFixedDelay(store::heartbeat, 0, HEARTBEAT_MS, TimeUnit.MILLISECONDS);
    log.info("alert router state read from {} ({} snapshots)", topic, store.latest.size());
    return store;
  }

  @Override
  public void save(String name, byte[] snapshot) throws IOException {
    try {
      // Synchronous: a silence the API acknowledged must be in the log before the answer goes out.
      topicLog.append(name, snapshot, fromThisNode());
      latest.put(name, snapshot);
    } catch (TopicLog.TopicLogException e) {
      throw new IOException("cannot write " + name + ": " + e.getMessage(), e);
    }
  }

  private Headers fromThisNode() {
    return new RecordHeaders().add(NODE_HEADER, node.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public Optional<byte[]> load(String name) {
    return Optional.ofNullable(latest.get(name)).map(b -> Arrays.copyOf(b, b.length));
  }

  @Override
  public int peerPosition() {
    long now = System.currentTimeMillis();
    int position = 0;
    for (Map.Entry<String, Heard> p : peers.entrySet()) {
      if (now - p.getValue().at() < PEER_TTL_MS && p.getKey().compareTo(node) < 0) {
        position++;
      }
    }
    return position;
  }

  /** The other nodes this one has heard of, with their last announcement (for diagnostics). */
  Map<String, Heard> peers() {
    return Map.copyOf(peers);
  }

  /** This node and the live peers, by name: {@code ready} once the topic has been read, which start waits for. */
  @Override
  public ClusterStatus clusterStatus() {
    long now = System.currentTimeMillis();
    List<ClusterStatus.Peer> live = new ArrayList<>();
    live.add(new ClusterStatus.Peer(node, address));
    peers.forEach((id, h) -> {
      if (now - h.at() < PEER_TTL_MS) {
        live.add(new ClusterStatus.Peer(id, h.address()));
      }
    });
    live.sort(Comparator.comparing(ClusterStatus.Peer::name));
    return new ClusterStatus(node, "ready", live);
  }

  /** The address ({@code host:port} of the router's API) this node gives from its next announcement on. */
  public void advertise(String address) {
    this.address = address;
    heartbeats.execute(this::heartbeat);
  }

  /** Announces this node: asynchronous, a lost announcement is repeated by the next. */
  private void heartbeat() {
    topicLog.appendLater(PEER_PREFIX + node, address.getBytes(StandardCharsets.UTF_8), fromThisNode(),
        "while it cannot be written, the other routers count this one as gone " + PEER_TTL_MS / 1000
            + " s after its last announcement and take its turn to notify");
  }

  /**
   * Takes one record of the topic into the local view; a snapshot another node wrote is handed to whoever registered
   * for it, to merge.
   */
  private void apply(ConsumerRecord<String, byte[]> r) {
    if (r.key() == null) {
      return;
    }
    if (r.key().startsWith(PEER_PREFIX)) {
      String peer = r.key().substring(PEER_PREFIX.length());
      if (r.value() == null) {
        peers.remove(peer);
      } else if (!peer.equals(node)) {
        peers.put(peer, new Heard(r.timestamp(), new String(r.value(), StandardCharsets.UTF_8)));
      }
      return;
    }
    if (r.value() == null) {
      return;
    }
    latest.put(r.key(), r.value());
    Header h = r.headers().lastHeader(NODE_HEADER);
    if (h != null && node.equals(new String(h.value(), StandardCharsets.UTF_8))) {
      return;
    }
    for (Consumer<byte[]> l : listeners.getOrDefault(r.key(), List.of())) {
      try {
        l.accept(r.value());
      } catch (RuntimeException e) {
        log.error("cannot merge {} from another node", r.key(), e);
      }
    }
  }

  @Override
  public void onRemoteSave(String name, Consumer<byte[]> merge) {
    listeners.computeIfAbsent(name, n -> new CopyOnWriteArrayList<>()).add(merge);
  }

  @Override
  public void close() {
    if (closed.getAndSet(true)) {
      return;
    }
    heartbeats.shutdownNow();
    try {
      // Leaving: the other nodes move up at once instead of after PEER_TTL_MS.
      topicLog.append(PEER_PREFIX + node, null, fromThisNode());
    } catch (TopicLog.TopicLogException e) {
      log.debug("alert router could not announce leaving {}: {}", topicLog.topic(), e.toString());
    }
    topicLog.close();
  }
}
