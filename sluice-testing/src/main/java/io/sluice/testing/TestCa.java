package io.sluice.testing;

import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;

/**
 * A certificate authority of a test's own, as an operator runs a private one: its certificate in {@code <name>.crt}
 * (PEM), and certificates it issues for a server on 127.0.0.1 or for a client, each with its key (PKCS#8 PEM), valid
 * for a day. Nothing the JVM trusts by default: a client reaches the server only with this CA's file.
 */
public final class TestCa {
  /** A certificate and its key, as files. */
  public record Issued(Path certFile, Path keyFile) {}

  private final Path dir;
  private final KeyPair keys;
  private final X500Name name;
  private final Path certFile;
  private final AtomicLong serial = new AtomicLong(2);

  private TestCa(Path dir, KeyPair keys, X500Name name, Path certFile) {
    this.dir = dir;
    this.keys = keys;
    this.name = name;
    this.certFile = certFile;
  }

  /** A new CA named {@code name}, its certificate written to {@code dir/<name>.crt}. */
  public static TestCa create(Path dir, String name) throws Exception {
    KeyPair keys = Certificates.ec();
    X500Name subject = new X500Name("CN=" + name);
    JcaX509v3CertificateBuilder b = Certificates.builder(subject, BigInteger.ONE, subject, keys.getPublic());
    b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
    b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
    Path file = Files.writeString(dir.resolve(name + ".crt"), Certificates.pem(Certificates.sign(b, "SHA256withECDSA", keys.getPrivate())));
    return new TestCa(dir, keys, subject, file);
  }

  public Path certFile() {
    return certFile;
  }

  /** A server certificate for 127.0.0.1 and localhost: {@code dir/<name>.crt} and {@code .key}. */
  public Issued server(String name) throws Exception {
    return issue(name, KeyPurposeId.id_kp_serverAuth, new GeneralNames(new GeneralName[] {
        new GeneralName(GeneralName.iPAddress, "127.0.0.1"), new GeneralName(GeneralName.dNSName, "localhost")}));
  }

  /** A client certificate with common name {@code name}: {@code dir/<name>.crt} and {@code .key}. */
  public Issued client(String name) throws Exception {
    return issue(name, KeyPurposeId.id_kp_clientAuth, null);
  }

  private Issued issue(String cn, KeyPurposeId purpose, GeneralNames altNames) throws Exception {
    KeyPair pair = Certificates.ec();
    JcaX509v3CertificateBuilder b = Certificates.builder(name, BigInteger.valueOf(serial.getAndIncrement()),
        new X500Name("CN=" + cn), pair.getPublic());
    b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
    if (altNames != null) {
      b.addExtension(Extension.subjectAlternativeName, false, altNames);
    }
    return new Issued(Files.writeString(dir.resolve(cn + ".crt"), Certificates.pem(Certificates.sign(b, "SHA256withECDSA", keys.getPrivate()))),
        Files.writeString(dir.resolve(cn + ".key"), Certificates.pem(new JcaPKCS8Generator(pair.getPrivate(), null))));
  }
}
