package io.sluice.serde;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.http.web.BasicAuth;
import io.sluice.http.web.WebConfig;
import io.sluice.kafka.testing.SharedKafka;
import io.sluice.registry.SchemaRegistry;
import io.sluice.serde.avro.AvroDeserializer;
import io.sluice.serde.avro.AvroSerializer;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A registry that asks for credentials, reached as Confluent's clients are configured: {@code basic.auth.user.info},
 * or credentials in the URL with {@code basic.auth.credentials.source=URL}.
 */
class SecuredRegistryTest {
  private static SchemaRegistry registry;

  @BeforeAll
  static void start() {
    WebConfig web = WebConfig.none().withUser("app", BasicAuth.hash("app-pw"), io.sluice.http.web.Role.ADMIN);
    registry = SchemaRegistry.builder().bootstrapServers(SharedKafka.bootstrapServers())
        .topic(SharedKafka.unique("_schemas")).port(0).webConfig(web).start();
  }

  @AfterAll
  static void stop() {
    registry.close();
  }

  private static byte[] roundTrip(Map<String, Object> config) {
    try (AvroSerializer s = new AvroSerializer(); AvroDeserializer d = new AvroDeserializer()) {
      s.configure(config, false);
      d.configure(config, false);
      byte[] bytes = s.serialize("secured", "hello");
      assertTrue(d.deserialize("secured", bytes).toString().equals("hello"));
      return bytes;
    }
  }

  @Test
  void userInfoAndUrlCredentialsReachIt() {
    Map<String, Object> userInfo = new HashMap<>(Map.of(SerdeConfig.REGISTRY_URL, registry.url(),
        SerdeConfig.USER_INFO, "app:app-pw"));
    byte[] first = roundTrip(userInfo);
    String url = registry.url().replace("://", "://app:app-pw@");
    byte[] second = roundTrip(Map.of(SerdeConfig.REGISTRY_URL, url, SerdeConfig.CREDENTIALS_SOURCE, "URL"));
    assertArrayEquals(first, second, "the same schema id either way");
  }

  @Test
  void withoutCredentialsTheRegistrysRefusalIsSaidAndNoPasswordIsPrinted() {
    SerializationException e = assertThrows(SerializationException.class,
        () -> roundTrip(Map.of(SerdeConfig.REGISTRY_URL, registry.url())));
    assertTrue(String.valueOf(e.getMessage()).contains("401") || String.valueOf(e.getCause()).contains("401"),
        String.valueOf(e));
    SerdeConfig config = SerdeConfig.of(Map.of(SerdeConfig.REGISTRY_URL, registry.url(), SerdeConfig.USER_INFO,
        "app:app-pw"), false);
    assertFalse(config.toString().contains("app-pw"), config.toString());
    assertThrows(ConfigException.class, () -> SerdeConfig.of(Map.of(SerdeConfig.REGISTRY_URL, registry.url(),
        SerdeConfig.USER_INFO, "no-colon"), false));
  }
}
