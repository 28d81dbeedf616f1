package io.sluice.kafka.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * A test's records sent through a producer and every send checked when it closes: a test that writes its input and
 * then counts what came out must know its input was all written. {@code flush()} alone returns after a failed batch
 * too, so a lost batch showed up only as a count far from the send (a CI run of {@code BoundedReadTest} found 272
 * records of 300). Close it before the producer (declare it after the producer in the same try), and before reading.
 */
public final class CheckedSends<K, V> implements AutoCloseable {
  private final Producer<K, V> producer;
  private final List<Future<RecordMetadata>> sends = new ArrayList<>();
  private final List<String> topics = new ArrayList<>();

  private CheckedSends(Producer<K, V> producer) {
    this.producer = producer;
  }

  public static <K, V> CheckedSends<K, V> through(Producer<K, V> producer) {
    return new CheckedSends<>(producer);
  }

  public void send(ProducerRecord<K, V> record) {
    sends.add(producer.send(record));
    topics.add(record.topic());
  }

  /** Waits for every send so far; throws naming the first that failed, with its cause. */
  public void await() {
    producer.flush();
    for (int i = 0; i < sends.size(); i++) {
      try {
        sends.get(i).get(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted waiting for record " + (i + 1) + " to " + topics.get(i), e);
      } catch (ExecutionException e) {
        throw new IllegalStateException("record " + (i + 1) + " of " + sends.size() + " was not written to "
            + topics.get(i), e.getCause());
      } catch (TimeoutException e) {
        throw new IllegalStateException("record " + (i + 1) + " of " + sends.size() + " to " + topics.get(i)
            + " was not acknowledged within 60 s", e);
      }
    }
    sends.clear();
    topics.clear();
  }

  @Override
  public void close() {
    await();
  }
}
