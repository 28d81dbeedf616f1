package io.sluice.testing;

import java.io.StringWriter;
import java.math.BigInteger;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** What {@link TestCertificate} and {@link TestCa} both do: keys, a day's validity, a signature, PEM text. */
final class Certificates {
  private Certificates() {}

  /** An EC P-256 key pair. */
  static KeyPair ec() throws Exception {
    return keyPair("EC", 256);
  }

  static KeyPair keyPair(String algorithm, int bits) throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance(algorithm);
    g.initialize(bits);
    return g.generateKeyPair();
  }

  /** A certificate of {@code subject}'s key, valid from a minute ago for a day; extensions are the caller's. */
  static JcaX509v3CertificateBuilder builder(X500Name issuer, BigInteger serial, X500Name subject, PublicKey key) {
    return new JcaX509v3CertificateBuilder(issuer, serial, Date.from(Instant.now().minusSeconds(60)),
        Date.from(Instant.now().plusSeconds(86_400)), subject, key);
  }

  static X509Certificate sign(JcaX509v3CertificateBuilder b, String signature, PrivateKey signer) throws Exception {
    return new JcaX509CertificateConverter().getCertificate(b.build(new JcaContentSignerBuilder(signature)
        .build(signer)));
  }

  /** PEM text of a certificate, a key (PKCS#1 for RSA) or a PKCS#8 generator. */
  static String pem(Object o) throws Exception {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(out)) {
      w.writeObject(o);
    }
    return out.toString();
  }
}
