package io.sluice.topics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KafkaClusterTest {
  private static final String JAAS = "org.apache.kafka.common.security.scram.ScramLoginModule required "
      + "username=\"u\" password=\"secret-1\";";

  @Test
  void everyClientConfigCarriesTheSecurityAndNoStringShowsIt() {
    KafkaCluster c = KafkaCluster.of("b:9093", Map.of("security.protocol", "SASL_SSL", "sasl.jaas.config", JAAS));
    assertEquals(Map.of("bootstrap.servers", "b:9093", "security.protocol", "SASL_SSL", "sasl.jaas.config", JAAS,
        "client.id", "x"), c.clientConfig(Map.of("client.id", "x")));
    assertFalse(c.toString().contains("secret-1"), c.toString());
  }

  @Test
  void everyConsumerConfigReadsCommittedRecordsOnly() {
    KafkaCluster c = KafkaCluster.of("b:9093", Map.of("security.protocol", "SSL"));
    assertEquals(Map.of("bootstrap.servers", "b:9093", "security.protocol", "SSL", "isolation.level",
        "read_committed", "client.id", "x"), c.consumerConfig(Map.of("client.id", "x")));
  }

  @Test
  void takesTheSecurityOfAWorkerConfigButNotItsRestListenerSettings() {
    KafkaCluster c = KafkaCluster.from(Map.of("bootstrap.servers", "b:9093", "ssl.truststore.location", "/t",
        "listeners.https.ssl.keystore.location", "/k", "group.id", "g"));
    assertEquals(Map.of("ssl.truststore.location", "/t"), c.security());
  }

  @Test
  void listeningIsOneOfTheBootstrapServersAcceptingConnections() throws Exception {
    int closed;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = s.getLocalPort();
    }
    assertFalse(KafkaCluster.of("127.0.0.1:" + closed).awaitListening(Duration.ofMillis(100)));
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      assertTrue(KafkaCluster.of("127.0.0.1:" + closed + ",127.0.0.1:" + s.getLocalPort())
          .awaitListening(Duration.ofSeconds(30)));
    }
    assertFalse(KafkaCluster.of("not-an-address").awaitListening(Duration.ofSeconds(30)), "left to the client");
  }

  @Test
  void refusesWhatIsNotASecuritySetting() {
    assertThrows(IllegalArgumentException.class, () -> KafkaCluster.of("b:9093", Map.of("acks", "all")));
    assertThrows(IllegalArgumentException.class, () -> KafkaCluster.of(" ", Map.of()));
  }
}
