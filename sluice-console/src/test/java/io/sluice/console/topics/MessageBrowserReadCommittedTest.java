package io.sluice.console.topics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.kafka.testing.SharedKafka;
import io.sluice.serde.view.PayloadDecoder;
import io.sluice.topics.KafkaCluster;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** The console's message browser shows committed records only, from the start and from the end. */
class MessageBrowserReadCommittedTest {
  @Test
  void anAbortedRecordIsNeverShownAndAnOpenTransactionNeverWaitedFor() throws Exception {
    String topic = SharedKafka.unique("browse-txn");
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", SharedKafka.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
    }
    try (KafkaProducer<String, String> done = producer(); KafkaProducer<String, String> open = producer();
         MessageBrowser browser = new MessageBrowser(KafkaCluster.of(SharedKafka.bootstrapServers()),
             new PayloadDecoder(null))) {
      done.beginTransaction();
      done.send(new ProducerRecord<>(topic, "k", "kept-1")).get();
      done.commitTransaction();
      done.beginTransaction();
      done.send(new ProducerRecord<>(topic, "k", "aborted")).get();
      done.abortTransaction();
      done.beginTransaction();
      done.send(new ProducerRecord<>(topic, "k", "kept-2")).get();
      done.commitTransaction();
      open.beginTransaction();
      open.send(new ProducerRecord<>(topic, "k", "open")).get();
      open.flush();

      for (String from : List.of("start", "end")) {
        MessageBrowser.Page page = browser.read(topic, BrowsePosition.parse(from, null, null, null, null, null),
            new MessageBrowser.Filter("", ""), 50);
        List<String> values = page.messages().stream().map(m -> m.value().text()).sorted().toList();
        assertEquals(List.of("kept-1", "kept-2"), values, "from " + from);
      }
      open.abortTransaction();
    }
  }

  @Test
  void aPageHoldsItsRecordsWhenCommitMarkersTakeOffsetsBetweenThem() throws Exception {
    String topic = SharedKafka.unique("browse-markers");
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", SharedKafka.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
    }
    try (KafkaProducer<String, String> p = producer();
         MessageBrowser browser = new MessageBrowser(KafkaCluster.of(SharedKafka.bootstrapServers()),
             new PayloadDecoder(null))) {
      // A transaction per record, as a source whose polls return one change each writes: every other offset is a
      // commit marker.
      for (int i = 0; i < 30; i++) {
        p.beginTransaction();
        p.send(new ProducerRecord<>(topic, "k" + i, "v" + i)).get();
        p.commitTransaction();
      }
      MessageBrowser.Page page = browser.read(topic, BrowsePosition.parse("start", null, null, null, null, null),
          new MessageBrowser.Filter("", ""), 10);
      assertEquals(10, page.messages().size(), "a page of 10 from the start: " + page.messages());
      assertEquals("v0", page.messages().get(0).value().text());
      assertEquals("v9", page.messages().get(9).value().text());
      MessageBrowser.Page last = browser.read(topic, BrowsePosition.parse("end", null, null, null, null, null),
          new MessageBrowser.Filter("", ""), 10);
      assertEquals(10, last.messages().size(), "a page of 10 from the end: " + last.messages());
    }
  }

  private static KafkaProducer<String, String> producer() {
    KafkaProducer<String, String> p = new KafkaProducer<>(Map.of("bootstrap.servers", SharedKafka.bootstrapServers(),
        "transactional.id", SharedKafka.unique("browse-txn-producer")), new StringSerializer(), new StringSerializer());
    p.initTransactions();
    return p;
  }
}
