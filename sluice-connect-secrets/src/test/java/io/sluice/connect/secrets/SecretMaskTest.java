package io.sluice.connect.secrets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The one rule: what the worker stores as a secret is what the CLI and the console mask, and nothing else. */
class SecretMaskTest {
  @Test
  void credentialsAndTheSettingsThatCarryOneAreSecrets() {
    List<String> secrets = List.of("password", "connection.password", "database.password", "ssl.keystore.password",
        "ssl.key.password", "ssl.truststore.password", "consumer.override.ssl.keystore.password",
        "Database.Password", "sasl.jaas.config", "producer.override.sasl.jaas.config",
        "schema.history.internal.consumer.sasl.jaas.config", "signal.consumer.sasl.jaas.config",
        "basic.auth.user.info", "value.converter.basic.auth.user.info", "key.converter.basic.auth.user.info",
        "client.secret", "sasl.oauthbearer.client.credentials.client.secret", "aws.secret.access.key", "api.key",
        "ssl.keystore.key", "aws.access.key", "private.key", "bearer.auth.token", "access.token", "gcp.credentials", "credentials.json");
    for (String key : secrets) {
      assertTrue(SecretMask.isSecretKey(key), key + " must be redacted");
    }
  }

  @Test
  void namesThatOnlyLookLikeCredentialsAreNot() {
    List<String> shown = List.of("key.converter", "key.converter.schemas.enable", "value.converter", "primary.key.mode",
        "primary.key.fields", "message.key.columns", "database.user", "connection.username", "database.hostname",
        "ssl.keystore.location", "ssl.keystore.type", "ssl.truststore.location", "security.protocol",
        "sasl.mechanism", "sasl.oauthbearer.token.endpoint.url", "value.converter.basic.auth.credentials.source",
        "basic.auth.credentials.source", "topic.prefix", "tasks.max", "connector.class",
        "transforms.outbox.table.field.event.key", "transforms.route.key", "record.key");
    for (String key : shown) {
      assertFalse(SecretMask.isSecretKey(key), key + " must be shown");
    }
  }

  @Test
  void aSecretIsMaskedUnlessItIsAReference() {
    assertEquals(SecretMask.MASK, SecretMask.shown("connection.password", "hunter2"));
    assertEquals("${sluice:s:connection.password}",
        SecretMask.shown("connection.password", "${sluice:s:connection.password}"));
    assertEquals("org.apache.kafka.connect.json.JsonConverter",
        SecretMask.shown("key.converter", "org.apache.kafka.connect.json.JsonConverter"));
    assertEquals(null, SecretMask.shown("connection.password", null));
  }
}
