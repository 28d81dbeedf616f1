package io.sluice.ops.offsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The root cause and the named record of task traces in the shapes Kafka Connect and sink connectors write. */
class TaskFailureTest {

  @Test
  void connectsProcessingContextNamesTheRecord() {
    TaskFailure f = TaskFailure.of(0, """
        org.apache.kafka.connect.errors.ConnectException: Tolerance exceeded in error handler
        \tat org.apache.kafka.connect.runtime.errors.RetryWithToleranceOperator.execAndHandleError(RetryWithToleranceOperator.java:260)
        Caused by: org.apache.kafka.connect.errors.DataException: Executing stage 'VALUE_CONVERTER' with class \
        'org.apache.kafka.connect.json.JsonConverter', where consumed record is {topic='demo.public.orders', \
        partition=0, offset=1234, timestamp=1700000000000, timestampType=CreateTime}.
        \tat org.apache.kafka.connect.json.JsonConverter.toConnectData(JsonConverter.java:333)
        """);
    assertEquals(new TopicOffset("demo.public.orders", 0, 1234), f.record());
    assertEquals("org.apache.kafka.connect.errors.DataException", f.rootCauseClass());
  }

  @Test
  void consumerAndSinkRecordsNameIt() {
    assertEquals(new TopicOffset("orders", 2, 17), TaskFailure.of(0, "org.apache.kafka.connect.errors.ConnectException:"
        + " cannot write ConsumerRecord(topic = orders, partition = 2, leaderEpoch = 0, offset = 17, CreateTime ="
        + " 1700000000000)").record());
    assertEquals(new TopicOffset("shop.orders", 1, 99), TaskFailure.of(0, "java.lang.IllegalStateException: bad"
        + " SinkRecord{kafkaOffset=99, timestampType=CreateTime, originalTopic=shop.orders, originalKafkaPartition=1,"
        + " originalKafkaOffset=99} ConnectRecord{topic='orders', kafkaPartition=1, key=1}").record());
    assertEquals(new TopicOffset("t", 0, 5), TaskFailure.of(0, "Exception in task 0: topic=t, partition=0, offset=5")
        .record());
  }

  /** The trace of Debezium's JDBC sink 3.6 refusing a row, as Connect reported it in SinkSkipTest (frames cut). */
  @Test
  void theJdbcSinksRefusalNamesNoRecordButItsCause() {
    TaskFailure f = TaskFailure.of(0, """
        org.apache.kafka.connect.errors.ConnectException: Exiting WorkerSinkTask due to unrecoverable exception.
        \tat org.apache.kafka.connect.runtime.WorkerSinkTask.deliverMessages(WorkerSinkTask.java:636)
        Caused by: org.apache.kafka.connect.errors.ConnectException: JDBC sink connector failure
        \t... 11 more
        Caused by: org.apache.kafka.connect.errors.ConnectException: Failed to flush records for table 'orders'
        \t... 12 more
        Caused by: org.hibernate.exception.ConstraintViolationException: Error executing work [Batch entry 0 INSERT \
        INTO public.orders (id,item,qty) VALUES (('3'::int4),('strainer'),('-1'::int4)) ON CONFLICT (id) DO UPDATE \
        SET item=EXCLUDED.item,qty=EXCLUDED.qty was aborted: ERROR: new row for relation "orders" violates check \
        constraint "orders_qty_not_negative"
          Detail: Failing row contains (3, strainer, -1).  Call getNextException to see other errors in the batch.] [n/a]
        \t... 18 more
        Caused by: java.sql.BatchUpdateException: Batch entry 0 INSERT INTO public.orders (id,item,qty) VALUES \
        (('3'::int4),('strainer'),('-1'::int4)) ON CONFLICT (id) DO UPDATE SET item=EXCLUDED.item,qty=EXCLUDED.qty \
        was aborted: ERROR: new row for relation "orders" violates check constraint "orders_qty_not_negative"
          Detail: Failing row contains (3, strainer, -1).  Call getNextException to see other errors in the batch.
        \t... 25 more
        Caused by: org.postgresql.util.PSQLException: ERROR: new row for relation "orders" violates check constraint \
        "orders_qty_not_negative"
          Detail: Failing row contains (3, strainer, -1).
        \t... 35 more
        """);
    assertNull(f.record());
    assertEquals("org.postgresql.util.PSQLException", f.rootCauseClass());
    assertEquals("ERROR: new row for relation \"orders\" violates check constraint \"orders_qty_not_negative\"",
        f.rootCauseMessage());
    assertEquals("orders", f.table());
    // Of a sink's committed positions, the one of the topic its table is named after.
    assertEquals(new TopicOffset("demo.public.orders", 0, 5120), f.amongCommitted(List.of(
        new TopicOffset("demo.public.customers", 0, 900), new TopicOffset("demo.public.orders", 0, 5120),
        new TopicOffset("demo.public.order_lines", 0, 7000))));
    assertEquals(new TopicOffset("shop_orders", 0, 7), f.amongCommitted(List.of(new TopicOffset("shop_orders", 0, 7))));
    assertNull(f.amongCommitted(List.of(new TopicOffset("a", 0, 1), new TopicOffset("b", 0, 2))));
  }
}
