package io.sluice.client;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The one way a Sluice client builds its TLS from a {@link ClientOptions.Tls}: which servers it trusts (the JVM's
 * authorities, the certificates of a PEM CA file, or, as Go's {@code insecure_skip_verify}, any) and the client
 * certificate it shows.
 */
final class ClientTls {
  private ClientTls() {}

  /**
   * The context of {@code tls}, its files read now.
   *
   * @throws IllegalArgumentException naming the file that cannot be read
   */
  static SSLContext context(ClientOptions.Tls tls) {
    try {
      KeyManager[] keys = null;
      if (tls.certFile() != null) {
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(Pem.keyStore(tls.certFile(), tls.keyFile()), Pem.NO_PASSWORD);
        keys = kmf.getKeyManagers();
      }
      TrustManager[] trust = null;
      if (tls.insecureSkipVerify()) {
        trust = new TrustManager[] {TRUST_ANY};
      } else if (tls.caFile() != null) {
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(Pem.trustStore(tls.caFile()));
        trust = tmf.getTrustManagers();
      }
      SSLContext ssl = SSLContext.getInstance("TLS");
      ssl.init(keys, trust, null);
      return ssl;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException("cannot load the TLS files (" + files(tls) + "): " + e.getMessage(), e);
    }
  }

  private static String files(ClientOptions.Tls tls) {
    List<String> out = new ArrayList<>();
    for (Path p : new Path[] {tls.caFile(), tls.certFile(), tls.keyFile()}) {
      if (p != null) {
        out.add(p.toString());
      }
    }
    return String.join(", ", out);
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
