package io.sluice.http.web;

import java.io.IOException;
import io.sluice.client.Pem;
import java.security.GeneralSecurityException;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * Jetty's TLS for a web configuration's {@code tls_server_config}: the PEM certificate chain and key (PKCS#8, or the
 * PKCS#1 and SEC1 forms openssl also writes) loaded into an in-memory key store, the client CA likewise, the
 * toolkit's client authentication types and minimum version. The files are read again when they change (checked every
 * few seconds), so a renewed certificate is served without a restart.
 */
public final class TlsContext implements AutoCloseable {
  private final WebConfig.Tls tls;
  private final SslContextFactory.Server factory = new SslContextFactory.Server();
  private final TlsFileWatch watch;

  public TlsContext(WebConfig.Tls tls) {
    this.tls = tls;
    load(factory);
    switch (tls.clientAuth()) {
      case "RequestClientCert", "VerifyClientCertIfGiven" -> factory.setWantClientAuth(true);
      case "RequireAnyClientCert", "RequireAndVerifyClientCert" -> factory.setNeedClientAuth(true);
      default -> { }
    }
    factory.setIncludeProtocols(tls.protocols().toArray(new String[0]));
    watch = TlsFileWatch.start(tls, "sluice-tls-reload", () -> factory.reload(this::load));
  }

  public SslContextFactory.Server factory() {
    return factory;
  }

  private void load(SslContextFactory f) {
    try {
      f.setKeyStore(Pem.keyStore(tls.certFile(), tls.keyFile()));
      f.setKeyStorePassword("");
      if (tls.clientCaFile() != null) {
        f.setTrustStore(Pem.trustStore(tls.clientCaFile()));
      }
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException("cannot load TLS files " + tls.certFile() + ", " + tls.keyFile() + ": "
          + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    watch.close();
  }
}
