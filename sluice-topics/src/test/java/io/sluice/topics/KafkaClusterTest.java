package io.sluice.topics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

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
  void takesTheSecurityOfAWorkerConfigButNotItsRestListenerSettings() {
    KafkaCluster c = KafkaCluster.from(Map.of("bootstrap.servers", "b:9093", "ssl.truststore.location", "/t",
        "listeners.https.ssl.keystore.location", "/k", "group.id", "g"));
    assertEquals(Map.of("ssl.truststore.location", "/t"), c.security());
  }

  @Test
  void refusesWhatIsNotASecuritySetting() {
    assertThrows(IllegalArgumentException.class, () -> KafkaCluster.of("b:9093", Map.of("acks", "all")));
    assertThrows(IllegalArgumentException.class, () -> KafkaCluster.of(" ", Map.of()));
  }
}
