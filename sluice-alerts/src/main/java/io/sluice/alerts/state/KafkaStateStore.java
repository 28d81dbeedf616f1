package io.sluice.alerts.state;

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
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
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
 */
public final class KafkaStateStore implements StateStore, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KafkaStateStore.class);
  private static final String NODE_HEADER = "node";

  private final String topic;
  private final String node = UUID.randomUUID().toString();
  private final KafkaProducer<String, byte[]> producer;
  private final KafkaConsumer<String, byte[]> consumer;
  private final Map<String, byte[]> latest = new ConcurrentHashMap<>();
  private final Map<String, List<Consumer<byte[]>>> listeners = new ConcurrentHashMap<>();
  private final Thread follower;
  private volatile boolean running = true;

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
    ensureTopic(bootstrapServers, topic, timeout);
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
        store.consumer.poll(Duration.ofMillis(200)).forEach(r -> store.latest.put(r.key(), r.value()));
      }
      store.follower.start();
      log.info("alert router state read from {} ({} snapshots)", topic, store.latest.size());
      return store;
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
  }

  private static void ensureTopic(String bootstrapServers, String topic, Duration timeout) {
    Properties p = new Properties();
    p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    try (Admin admin = Admin.create(p)) {
      int brokers = admin.describeCluster().nodes().get(timeout.toMillis(), TimeUnit.MILLISECONDS).size();
      // Compaction keeps the newest snapshot per name forever; deletion by age would forget silences.
      NewTopic t = new NewTopic(topic, 1, (short) Math.min(3, Math.max(1, brokers)))
          .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
      admin.createTopics(List.of(t)).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new IllegalStateException("cannot create alert router state topic " + topic + ": " + e.getCause(), e);
      }
    } catch (TimeoutException e) {
      throw new IllegalStateException("Kafka did not answer within " + timeout + " creating topic " + topic, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
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
  public void onRemoteSave(String name, Consumer<byte[]> merge) {
    listeners.computeIfAbsent(name, n -> new CopyOnWriteArrayList<>()).add(merge);
  }

  private void follow() {
    try {
      while (running) {
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          if (r.key() == null || r.value() == null) {
            continue;
          }
          latest.put(r.key(), r.value());
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
    producer.close(Duration.ofSeconds(5));
  }
}
