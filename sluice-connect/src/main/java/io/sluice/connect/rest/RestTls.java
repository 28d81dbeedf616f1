package io.sluice.connect.rest;

import io.sluice.http.tls.Pem;
import io.sluice.http.web.WebConfig;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The worker properties that make Connect's REST server serve TLS from the PEM files of a web configuration. Connect
 * configures Jetty from key stores only, so the PEM key and chain are copied at start into PKCS#12 files under the data
 * directory, readable by the owner alone, with a password made at random for this start; the password goes only into
 * the worker configuration in memory, where Connect keeps it as a hidden {@code Password}.
 */
public final class RestTls {
  private RestTls() {}

  /**
   * {@code listeners.https.*}, which Connect reads for its REST server and for the client that forwards requests
   * between workers; the top-level {@code ssl.*} keys stay free for the worker's Kafka clients.
   */
  public static Map<String, String> workerConfig(WebConfig.Tls tls, Path dir) {
    String clientAuth = switch (tls.clientAuth()) {
      case "RequireAndVerifyClientCert" -> "required";
      case "VerifyClientCertIfGiven" -> "requested";
      case "NoClientCert", "RequestClientCert" -> "none";
      default -> throw new IllegalArgumentException("Connect's REST server cannot ask for a client certificate "
          + "without verifying it (client_auth_type " + tls.clientAuth() + "); use RequireAndVerifyClientCert with "
          + "client_ca_file");
    };
    String password = randomPassword();
    Map<String, String> c = new HashMap<>();
    String p = "listeners.https.";
    try {
      Files.createDirectories(dir);
      Path keys = write(dir.resolve("connect-rest-keys.p12"), Pem.keyStore(tls.certFile(), tls.keyFile()), password,
          true);
      c.put(p + "ssl.keystore.type", "PKCS12");
      c.put(p + "ssl.keystore.location", keys.toString());
      c.put(p + "ssl.keystore.password", password);
      c.put(p + "ssl.key.password", password);
      c.put(p + "ssl.client.auth", clientAuth);
      c.put(p + "ssl.enabled.protocols", String.join(",", tls.protocols()));
      // One trust store for both sides, as Connect's REST client reads the listener's settings too: the client CA
      // for users' certificates, and the chain every worker presents, so that workers forwarding requests to each
      // other trust each other (and pass as clients where certificates are required).
      KeyStore trust = tls.clientCaFile() != null ? Pem.trustStore(tls.clientCaFile()) : emptyStore();
      List<Certificate> chain = Pem.certificates(tls.certFile());
      for (int i = 0; i < chain.size(); i++) {
        trust.setCertificateEntry("peer-" + i, chain.get(i));
      }
      Path trusted = write(dir.resolve("connect-rest-trust.p12"), trust, password, false);
      c.put(p + "ssl.truststore.type", "PKCS12");
      c.put(p + "ssl.truststore.location", trusted.toString());
      c.put(p + "ssl.truststore.password", password);
      c.put("rest.advertised.listener", "https");
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException("cannot serve TLS on Connect's REST API from " + tls.certFile() + " and "
          + tls.keyFile() + ": " + e.getMessage(), e);
    }
    return c;
  }

  private static Path write(Path file, KeyStore source, String password, boolean withKey)
      throws IOException, GeneralSecurityException {
    KeyStore out = source;
    if (withKey) {
      // The PEM key store's entry has no password of its own; Jetty asks for one.
      out = KeyStore.getInstance("PKCS12");
      out.load(null, null);
      out.setKeyEntry("key", source.getKey("key", Pem.NO_PASSWORD), password.toCharArray(),
          source.getCertificateChain("key"));
    }
    Files.deleteIfExists(file);
    Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    try (OutputStream o = Files.newOutputStream(file, StandardOpenOption.TRUNCATE_EXISTING)) {
      out.store(o, password.toCharArray());
    }
    return file;
  }

  private static KeyStore emptyStore() throws IOException, GeneralSecurityException {
    KeyStore k = KeyStore.getInstance("PKCS12");
    k.load(null, null);
    return k;
  }

  private static String randomPassword() {
    byte[] b = new byte[24];
    new SecureRandom().nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }
}
