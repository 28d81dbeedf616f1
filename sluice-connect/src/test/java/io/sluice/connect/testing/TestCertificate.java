package io.sluice.connect.testing;

import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A self-signed certificate for 127.0.0.1, valid for a day, written as PEM: {@code tls.crt} and {@code tls.key}
 * (PKCS#8, what openssl 3 writes by default).
 */
public record TestCertificate(Path certFile, Path keyFile, String certPem, String keyPem) {
  public static TestCertificate write(Path dir) throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(256);
    KeyPair pair = g.generateKeyPair();
    X500Name name = new X500Name("CN=sluice.test");
    JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(name, BigInteger.ONE,
        Date.from(Instant.now().minusSeconds(60)), Date.from(Instant.now().plusSeconds(86400)), name, pair.getPublic());
    b.addExtension(Extension.subjectAlternativeName, false,
        new GeneralNames(new GeneralName(GeneralName.iPAddress, "127.0.0.1")));
    X509Certificate cert = new JcaX509CertificateConverter().getCertificate(
        b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(pair.getPrivate())));
    String certPem = pem(cert);
    String keyPem = pem(new JcaPKCS8Generator(pair.getPrivate(), null));
    return new TestCertificate(Files.writeString(dir.resolve("tls.crt"), certPem),
        Files.writeString(dir.resolve("tls.key"), keyPem), certPem, keyPem);
  }

  /** A client context that trusts this certificate (and nothing else). */
  public javax.net.ssl.SSLContext trustingContext() throws Exception {
    java.security.KeyStore trust = java.security.KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    try (java.io.InputStream in = Files.newInputStream(certFile)) {
      trust.setCertificateEntry("server", java.security.cert.CertificateFactory.getInstance("X.509")
          .generateCertificate(in));
    }
    javax.net.ssl.TrustManagerFactory tmf = javax.net.ssl.TrustManagerFactory.getInstance(
        javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    javax.net.ssl.SSLContext ssl = javax.net.ssl.SSLContext.getInstance("TLS");
    ssl.init(null, tmf.getTrustManagers(), null);
    return ssl;
  }

  private static String pem(Object o) throws Exception {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(out)) {
      w.writeObject(o);
    }
    return out.toString();
  }
}
