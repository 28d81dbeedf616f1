package io.sluice.alerts.state;

import io.sluice.topics.CompactedTopic;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
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
 * {@code peer:<node id>} (a tombstone when it closes). A node counts as live while its last announcement, by the
 * record's timestamp, is younger than {@value #PEER_TTL_MS} ms; {@link #peerPosition} is the number of live nodes
 * whose id sorts before this one's, as Alertmanager orders its cluster peers by name.
 */
public final class KafkaStateStore implements StateStore, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KafkaStateStore.class);
  private static final String NODE_HEADER = "node";
  static final String PEER_PREFIX = "peer:";
  static final long HEARTBEAT_MS = 5_000;
  static final long PEER_TTL_MS = 3 * HEARTBEAT_MS;

  private final String topic;
  private final String node = UUID.randomUUID().toString();
  private final KafkaProducer<String, byte[]> producer;
  private final KafkaConsumer<String, byte[]> consumer;
  private final Map<String, byte[]> latest = new ConcurrentHashMap<>();
  private final Map<String, List<Consumer<byte[]>>> listeners = new ConcurrentHashMap<>();
  /** Other nodes' ids and the timestamp of their last announcement. */
  private final Map<String, Long> peers = new ConcurrentHashMap<>();
  private volatile long lastHeartbeat;
  private final Thread follower;
  private volatile boolean running = true;
  private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

  private KafkaStateStore(String bootstrapServers, String topic) {
    this.topic = topic;
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.CLIENT_ID_CONFIG, "sluice-alerts-state-" + node);
    this.producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
    Properties c = new Properties();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    c.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 200);
    c.put(ConsumerConfig.CLIENT_ID_CONFIG, "sluice-alerts-state-reader-" + node);
    this.consumer = new KafkaConsumer<>(c, new StringDeserializer(), new ByteArrayDeserializer());
    this.follower = new Thread(this::follow, "sluice-alerts-state-" + topic);
    follower.setDaemon(true);
  }

  /** Creates the topic when missing, reads it to its end and starts following it. */
  public static KafkaStateStore start(String bootstrapServers, String topic, Duration timeout) {
    CompactedTopic.ensure(bootstrapServers, topic, "alert router state topic", timeout);
    KafkaStateStore store = new KafkaStateStore(bootstrapServers, topic);
    try {
      TopicPartition tp = new TopicPartition(topic, 0);
      store.consumer.assign(List.of(tp));
      store.consumer.seekToBeginning(List.of(tp));
      long end = store.consumer.endOffsets(List.of(tp), timeout).get(tp);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (store.consumer.position(tp, timeout) < end) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("alert router state topic " + topic + " not read to its end within " + timeout);
        }
        store.consumer.poll(Duration.ofMillis(200)).forEach(store::apply);
      }
      store.heartbeat(true);
      store.follower.start();
      log.info("alert router state read from {} ({} snapshots)", topic, store.latest.size());
      return store;
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
  }

  @Override
  public void save(String name, byte[] snapshot) throws IOException {
    ProducerRecord<String, byte[]> r = new ProducerRecord<>(topic, name, snapshot);
    r.headers().add(NODE_HEADER, node.getBytes(StandardCharsets.UTF_8));
    try {
      // Synchronous: a silence the API acknowledged must be in the log before the answer goes out.
      producer.send(r).get(30, TimeUnit.SECONDS);
      latest.put(name, snapshot);
    } catch (ExecutionException | TimeoutException e) {
      throw new IOException("cannot write " + name + " to " + topic + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted writing " + name + " to " + topic, e);
    }
  }

  @Override
  public Optional<byte[]> load(String name) {
    return Optional.ofNullable(latest.get(name)).map(b -> Arrays.copyOf(b, b.length));
  }

  @Override
  public int peerPosition() {
    long now = System.currentTimeMillis();
    int position = 0;
    for (Map.Entry<String, Long> p : peers.entrySet()) {
      if (now - p.getValue() < PEER_TTL_MS && p.getKey().compareTo(node) < 0) {
        position++;
      }
    }
    return position;
  }

  /** The other nodes this one has heard of, with the time of their last announcement (for diagnostics). */
  Map<String, Long> peers() {
    return Map.copyOf(peers);
  }

  /** Announces this node when the last announcement is due (or at once): asynchronous, a lost one is repeated. */
  private void heartbeat(boolean now) {
    long t = System.currentTimeMillis();
    if (!now && t - lastHeartbeat < HEARTBEAT_MS) {
      return;
    }
    lastHeartbeat = t;
    producer.send(peerRecord(node.getBytes(StandardCharsets.UTF_8)), (m, e) -> {
      if (e != null) {
        log.debug("alert router heartbeat to {} failed: {}", topic, e.toString());
      }
    });
  }

  private ProducerRecord<String, byte[]> peerRecord(byte[] value) {
    ProducerRecord<String, byte[]> r = new ProducerRecord<>(topic, PEER_PREFIX + node, value);
    r.headers().add(NODE_HEADER, node.getBytes(StandardCharsets.UTF_8));
    return r;
  }

  /** Takes one record of the topic into the local view; true when it is a snapshot (not a peer announcement). */
  private boolean apply(ConsumerRecord<String, byte[]> r) {
    if (r.key() == null) {
      return false;
    }
    if (r.key().startsWith(PEER_PREFIX)) {
      String peer = r.key().substring(PEER_PREFIX.length());
      if (r.value() == null) {
        peers.remove(peer);
      } else if (!peer.equals(node)) {
        peers.put(peer, r.timestamp());
      }
      return false;
    }
    if (r.value() == null) {
      return false;
    }
    latest.put(r.key(), r.value());
    return true;
  }

  @Override
  public void onRemoteSave(String name, Consumer<byte[]> merge) {
    listeners.computeIfAbsent(name, n -> new CopyOnWriteArrayList<>()).add(merge);
  }

  private void follow() {
    try {
      while (running) {
        heartbeat(false);
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          if (!apply(r)) {
            continue;
          }
          Header h = r.headers().lastHeader(NODE_HEADER);
          if (h != null && node.equals(new String(h.value(), StandardCharsets.UTF_8))) {
            continue;
          }
          for (Consumer<byte[]> l : listeners.getOrDefault(r.key(), List.of())) {
            try {
              l.accept(r.value());
            } catch (RuntimeException e) {
              log.error("cannot merge {} from another node", r.key(), e);
            }
          }
        }
      }
    } catch (WakeupException e) {
      // close() asked us to stop
    } catch (RuntimeException e) {
      log.error("alert router state follower stopped: other nodes' silences and notifications are no longer merged", e);
    } finally {
      consumer.close(Duration.ofSeconds(5));
    }
  }

  @Override
  public void close() {
    if (closed.getAndSet(true)) {
      return;
    }
    running = false;
    if (follower.isAlive()) {
      consumer.wakeup();
      try {
        follower.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    } else {
      consumer.close(Duration.ofSeconds(5));
    }
    try {
      // Leaving: the other nodes move up at once instead of after PEER_TTL_MS.
      producer.send(peerRecord(null)).get(5, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      log.debug("alert router could not announce leaving {}: {}", topic, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    producer.close(Duration.ofSeconds(5));
  }
}
