package io.sluice.connect.rest;

import io.sluice.client.Pem;
import io.sluice.http.web.TlsFileWatch;
import io.sluice.http.web.WebConfig;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
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
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker properties that make Connect's REST server serve TLS from the PEM files of a web configuration. Connect
 * configures Jetty from key stores only, so the PEM key and chain are copied into PKCS#12 files under the data
 * directory, readable by the owner alone, with a password made at random for this start; the password goes only into
 * the worker configuration in memory, where Connect keeps it as a hidden {@code Password}. When the PEM files change
 * (checked every few seconds, as on Sluice's other surfaces), the key stores are written again and the REST server's
 * listeners reload them; Connect's client for requests between workers reads them afresh for each request.
 */
public final class RestTls implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RestTls.class);
  private final WebConfig.Tls tls;
  private final Path keys;
  private final Path trusted;
  private final String password;
  private final String clientAuth;
  private TlsFileWatch watch;

  private RestTls(WebConfig.Tls tls, Path dir) {
    this.tls = tls;
    this.clientAuth = switch (tls.clientAuth()) {
      case "RequireAndVerifyClientCert" -> "required";
      case "VerifyClientCertIfGiven" -> "requested";
      case "NoClientCert", "RequestClientCert" -> "none";
      default -> throw new IllegalArgumentException("Connect's REST server cannot ask for a client certificate "
          + "without verifying it (client_auth_type " + tls.clientAuth() + "); use RequireAndVerifyClientCert with "
          + "client_ca_file");
    };
    this.keys = dir.resolve("connect-rest-keys.p12");
    this.trusted = dir.resolve("connect-rest-trust.p12");
    this.password = randomPassword();
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot create " + dir + ": " + e.getMessage(), e);
    }
  }

  /** Writes the key stores for a web configuration's TLS; fails when the PEM files cannot be read. */
  public static RestTls create(WebConfig.Tls tls, Path dir) {
    RestTls t = new RestTls(tls, dir);
    try {
      t.writeStores();
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException("cannot serve TLS on Connect's REST API from " + tls.certFile() + " and "
          + tls.keyFile() + ": " + e.getMessage(), e);
    }
    return t;
  }

  /**
   * {@code listeners.https.*}, which Connect reads for its REST server and for the client that forwards requests
   * between workers; the top-level {@code ssl.*} keys stay free for the worker's Kafka clients.
   */
  public Map<String, String> workerConfig() {
    Map<String, String> c = new HashMap<>();
    String p = "listeners.https.";
    c.put(p + "ssl.keystore.type", "PKCS12");
    c.put(p + "ssl.keystore.location", keys.toString());
    c.put(p + "ssl.keystore.password", password);
    c.put(p + "ssl.key.password", password);
    c.put(p + "ssl.client.auth", clientAuth);
    c.put(p + "ssl.enabled.protocols", String.join(",", tls.protocols()));
    c.put(p + "ssl.truststore.type", "PKCS12");
    c.put(p + "ssl.truststore.location", trusted.toString());
    c.put(p + "ssl.truststore.password", password);
    c.put("rest.advertised.listener", "https");
    return c;
  }

  /** From now on, a change to the PEM files is written to the key stores and loaded by these listeners. */
  public synchronized void renewOnChange(List<SslContextFactory.Server> listeners) {
    if (watch != null || listeners.isEmpty()) {
      return;
    }
    watch = TlsFileWatch.start(tls, "sluice-connect-tls-reload", () -> {
      writeStores();
      for (SslContextFactory.Server f : listeners) {
        f.reload(unchanged -> { });
      }
      log.info("Connect's REST API serves the renewed certificate {}", tls.certFile());
    });
  }

  /**
   * One trust store for both sides, as Connect's REST client reads the listener's settings too: the client CA for
   * users' certificates, and the chain every worker presents, so that workers forwarding requests to each other trust
   * each other (and pass as clients where certificates are required).
   */
  private void writeStores() throws IOException, GeneralSecurityException {
    KeyStore key = Pem.keyStore(tls.certFile(), tls.keyFile());
    KeyStore trust = tls.clientCaFile() != null ? Pem.trustStore(tls.clientCaFile()) : emptyStore();
    List<Certificate> chain = Pem.certificates(tls.certFile());
    for (int i = 0; i < chain.size(); i++) {
      trust.setCertificateEntry("peer-" + i, chain.get(i));
    }
    write(keys, key, password, true);
    write(trusted, trust, password, false);
  }

  @Override
  public synchronized void close() {
    if (watch != null) {
      watch.close();
    }
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
    // Written beside and moved into place, so that a reader (a forwarded request, a reload) sees one whole store.
    Path next = Files.createTempFile(file.getParent(), file.getFileName().toString(), ".new",
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    try (OutputStream o = Files.newOutputStream(next, StandardOpenOption.TRUNCATE_EXISTING)) {
      out.store(o, password.toCharArray());
    }
    Files.move(next, file, StandardCopyOption.ATOMIC_MOVE,
        StandardCopyOption.REPLACE_EXISTING);
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
