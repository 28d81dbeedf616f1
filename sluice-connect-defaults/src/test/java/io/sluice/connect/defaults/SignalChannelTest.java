package io.sluice.connect.defaults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SignalChannelTest {
  private static final String PG = "io.debezium.connector.postgresql.PostgresConnector";

  @Test
  void aDebeziumSourceGetsTheKafkaChannelOnTheWorkersCluster() {
    Map<String, String> added = SignalChannel.missing(Map.of("connector.class", PG, "topic.prefix", "shop"),
        Set.of("security.protocol", "sasl.jaas.config"));
    assertEquals(Map.of("signal.enabled.channels", "source,kafka", "signal.kafka.topic", "shop-signal",
        "signal.kafka.bootstrap.servers", "${sluice-kafka:bootstrap.servers}",
        "signal.consumer.security.protocol", "${sluice-kafka:security.protocol}",
        "signal.consumer.sasl.jaas.config", "${sluice-kafka:sasl.jaas.config}"), added);
    assertEquals(Optional.of("shop-signal"), SignalChannel.topic(Map.of("connector.class", PG, "topic.prefix", "shop",
        "signal.enabled.channels", "source,kafka")));
  }

  @Test
  void anOperatorsOwnChannelsSinksAndConfigsWithoutPrefixGetNothing() {
    assertTrue(SignalChannel.missing(Map.of("connector.class", PG, "topic.prefix", "shop",
        "signal.enabled.channels", "source"), Set.of()).isEmpty());
    assertTrue(SignalChannel.missing(Map.of("connector.class", PG), Set.of()).isEmpty());
    assertTrue(SignalChannel.missing(Map.of("connector.class", "io.debezium.connector.jdbc.JdbcSinkConnector",
        "topic.prefix", "x"), Set.of()).isEmpty());
    assertEquals(Optional.empty(), SignalChannel.topic(Map.of("connector.class", PG, "topic.prefix", "shop")),
        "Debezium's default is the source channel only");
  }

  @Test
  void aTopicOrClusterOfTheOperatorsOwnIsKept() {
    Map<String, String> added = SignalChannel.missing(Map.of("connector.class", PG, "topic.prefix", "shop",
        "signal.kafka.topic", "ops-signals", "signal.kafka.bootstrap.servers", "elsewhere:9092"),
        Set.of("security.protocol"));
    assertEquals(Map.of("signal.enabled.channels", "source,kafka"), added);
  }
}
