package io.sluice.client;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The one way a Sluice client builds its TLS: which servers it trusts (the JVM's authorities, the certificates of a PEM
 * CA file, or, as Go's {@code insecure_skip_verify}, any) and the client certificate it shows. {@link HttpTransport}
 * (a {@link ClientOptions}' CA file) and the Prometheus-style {@code tls_config} of sluice-http's
 * {@code HttpClientConfig} both build their context here; with the JDK only, so every client can carry it.
 *
 * <pre>{@code
 * SSLContext ssl = ClientTls.context(null, Path.of("ca.pem"), false);
 * }</pre>
 */
public final class ClientTls {
  private ClientTls() {}

  /**
   * A context showing {@code keys}' certificate (null for none) and trusting the certificates of {@code caFile} (null
   * for the JVM's authorities), or every server when {@code insecureSkipVerify}; files are read now.
   */
  public static SSLContext context(KeyManager[] keys, Path caFile, boolean insecureSkipVerify)
      throws IOException, GeneralSecurityException {
    TrustManager[] trust;
    if (insecureSkipVerify) {
      trust = new TrustManager[] {TRUST_ANY};
    } else if (caFile != null) {
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trustStore(caFile));
      trust = tmf.getTrustManagers();
    } else {
      trust = null;
    }
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(keys, trust, null);
    return ssl;
  }

  /** The certificates of a PEM (or DER) file, in order; a file with none is refused. */
  public static List<Certificate> certificates(Path file) throws IOException, GeneralSecurityException {
    try (InputStream in = Files.newInputStream(file)) {
      List<Certificate> out = new ArrayList<>(CertificateFactory.getInstance("X.509").generateCertificates(in));
      if (out.isEmpty()) {
        throw new IOException(file + " holds no certificate");
      }
      return out;
    }
  }

  /** A key store trusting every certificate of {@code caFile}. */
  public static KeyStore trustStore(Path caFile) throws IOException, GeneralSecurityException {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    int i = 0;
    for (Certificate c : certificates(caFile)) {
      trust.setCertificateEntry("ca-" + i++, c);
    }
    return trust;
  }

  /**
   * {@code insecure_skip_verify}: an extended trust manager is where JSSE checks the host name, so accepting
   * everything here skips that check too, as Go's option does.
   */
  private static final X509ExtendedTrustManager TRUST_ANY = new X509ExtendedTrustManager() {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  };
}
