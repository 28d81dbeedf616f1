package io.sluice.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.app.DeliveryCheck.Tally;
import io.sluice.connect.testing.SharedPostgres;
import io.sluice.kafka.testing.CheckedSends;
import io.sluice.kafka.testing.SharedKafka;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The checker of the fault matrix's exactly-once test, checked: a history written to PostgreSQL, and a topic that
 * holds it with one change missing, one twice, one after a later change of its key, one of a rolled back transaction
 * and, in an aborted Kafka transaction, one more copy of a change; the tally counts each as what it is, read committed
 * and read uncommitted.
 */
class DeliveryCheckTest {
  private static String value(ChangeHistory history, long seq) {
    return "{\"payload\":{\"op\":\"u\",\"after\":{\"k\":" + history.key(seq) + ",\"seq\":" + seq + ",\"txn\":0}}}";
  }

  @Test
  void eachWayOfGoingWrongIsCountedAsWhatItIs() throws Exception {
    String db = SharedKafka.unique("history").replace('-', '_');
    SharedPostgres.createDatabase(db);
    ChangeHistory history = new ChangeHistory(() -> SharedPostgres.connect(db), 4000, 7);
    history.start();
    while (history.ended() < 1000) {
      Thread.sleep(50);
    }
    history.close();
    long end = history.ended();
    assertTrue(history.rolledBackChanges() > 0 && history.committedChanges() > 0);

    // Two committed changes of one key (the first to arrive late), one to lose, one to send twice, one to send again
    // in an aborted transaction, and one of a rolled back transaction.
    Map<Integer, Long> firstOfKey = new HashMap<>();
    long early = 0;
    long later = 0;
    for (long seq = 1; seq <= end && later == 0; seq++) {
      if (history.committed(seq)) {
        Long first = firstOfKey.putIfAbsent(history.key(seq), seq);
        if (first != null) {
          early = first;
          later = seq;
        }
      }
    }
    List<Long> others = new ArrayList<>();
    long rolledBack = 0;
    for (long seq = 1; seq <= end; seq++) {
      if (history.committed(seq) && seq != early && seq != later && others.size() < 3) {
        others.add(seq);
      } else if (history.rolledBack(seq) && rolledBack == 0) {
        rolledBack = seq;
      }
    }
    long lost = others.get(0);
    long twice = others.get(1);
    long again = others.get(2);

    String topic = SharedKafka.unique("history");
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", SharedKafka.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
    }
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of("bootstrap.servers",
        SharedKafka.bootstrapServers()), new StringSerializer(), new StringSerializer());
        CheckedSends<String, String> sends = CheckedSends.through(producer)) {
      for (long seq = 1; seq <= end; seq++) {
        if (seq == early) {
          continue; // sent after the later one
        }
        if (history.committed(seq) && seq != lost) {
          sends.send(new ProducerRecord<>(topic, "" + history.key(seq), value(history, seq)));
        }
        if (seq == later) {
          sends.send(new ProducerRecord<>(topic, "" + history.key(seq), value(history, early)));
        }
      }
      sends.send(new ProducerRecord<>(topic, "x", value(history, twice)));
      sends.send(new ProducerRecord<>(topic, "x", value(history, rolledBack)));
      sends.send(new ProducerRecord<>(topic, "x", "{\"payload\":{\"after\":{\"k\":1,\"seq\":" + (end + 1000)
          + "}}}"));
      sends.send(new ProducerRecord<>(topic, "x", null));
    }
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of("bootstrap.servers",
        SharedKafka.bootstrapServers(), "transactional.id", SharedKafka.unique("aborter")), new StringSerializer(),
        new StringSerializer())) {
      producer.initTransactions();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>(topic, "x", value(history, again))).get();
      producer.abortTransaction();
    }

    DeliveryCheck committed = new DeliveryCheck(history, SharedKafka.bootstrapServers(), topic, "read_committed");
    DeliveryCheck uncommitted = new DeliveryCheck(history, SharedKafka.bootstrapServers(), topic, "read_uncommitted");
    committed.read();
    uncommitted.read();
    long written = history.committedChanges();
    assertEquals(new Tally(written, written - 2, 1, 1, 1, 1), committed.tally(1, end));
    assertEquals(new Tally(written, written - 3, 2, 1, 1, 1), uncommitted.tally(1, end));
    assertEquals(1, committed.unknown(), "the change no one wrote");
    assertTrue(!committed.tally(1, end).exact());
    // A range without the faults is exact.
    long from = Math.max(Math.max(early, later), Math.max(Math.max(lost, twice), Math.max(again, rolledBack))) + 1;
    assertTrue(committed.tally(from, end).exact(), committed.tally(from, end).toString());
    assertEquals(history.committedChanges(), committed.tally(1, end).written());
  }
}
