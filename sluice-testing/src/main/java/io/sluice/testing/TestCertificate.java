package io.sluice.testing;

import java.io.InputStream;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;

/**
 * A self-signed certificate for 127.0.0.1 (its subject alternative name), valid for a day, written as PEM: the
 * certificate and its key, in one of the two forms openssl writes keys in.
 */
public record TestCertificate(Path certFile, Path keyFile, String certPem, String keyPem, X509Certificate certificate,
    PrivateKey key) {

  /** An EC (P-256) certificate with serial 1 as {@code tls.crt} and {@code tls.key} in {@code dir}, the key PKCS#8. */
  public static TestCertificate write(Path dir) throws Exception {
    return write("EC", 256, "SHA256withECDSA", 1, true, dir.resolve("tls.crt"), dir.resolve("tls.key"));
  }

  /**
   * An RSA (2048) certificate with the given serial, to the files given, the key PKCS#1 ({@code BEGIN RSA PRIVATE
   * KEY}, what openssl wrote before version 3).
   */
  public static TestCertificate writeRsa(Path certFile, Path keyFile, long serial) throws Exception {
    return write("RSA", 2048, "SHA256withRSA", serial, false, certFile, keyFile);
  }

  private static TestCertificate write(String algorithm, int bits, String signature, long serial, boolean pkcs8,
      Path certFile, Path keyFile) throws Exception {
    KeyPair pair = Certificates.keyPair(algorithm, bits);
    X500Name name = new X500Name("CN=sluice.test");
    JcaX509v3CertificateBuilder b = Certificates.builder(name, BigInteger.valueOf(serial), name, pair.getPublic());
    b.addExtension(Extension.subjectAlternativeName, false,
        new GeneralNames(new GeneralName(GeneralName.iPAddress, "127.0.0.1")));
    X509Certificate cert = Certificates.sign(b, signature, pair.getPrivate());
    String certPem = Certificates.pem(cert);
    String keyPem = Certificates.pem(pkcs8 ? new JcaPKCS8Generator(pair.getPrivate(), null) : pair.getPrivate());
    return new TestCertificate(Files.writeString(certFile, certPem), Files.writeString(keyFile, keyPem), certPem,
        keyPem, cert, pair.getPrivate());
  }

  /** A client context that trusts this certificate (and nothing else). */
  public SSLContext trustingContext() throws Exception {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    try (InputStream in = Files.newInputStream(certFile)) {
      trust.setCertificateEntry("server", CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(null, tmf.getTrustManagers(), null);
    return ssl;
  }

  /** A server context that presents this certificate, for a server of the test's own (the JDK's HttpsServer). */
  public SSLContext serverContext() throws Exception {
    char[] password = "changeit".toCharArray();
    KeyStore keys = KeyStore.getInstance("PKCS12");
    keys.load(null, null);
    keys.setKeyEntry("server", key, password, new Certificate[] {certificate});
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(keys, password);
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(kmf.getKeyManagers(), null, null);
    return ssl;
  }
}
