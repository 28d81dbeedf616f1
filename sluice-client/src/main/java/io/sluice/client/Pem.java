package io.sluice.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/**
 * PEM files as the Prometheus tools take them, into Java key stores: certificate chains, and unencrypted private keys
 * in PKCS#8 or the PKCS#1 (RSA) and SEC1 (EC) forms openssl also writes. Clients (a CA, a client certificate) and
 * servers (their key and the CA of their clients) read their files here.
 */
public final class Pem {
  /** Key stores made here hold their keys under this (empty) password. */
  public static final char[] NO_PASSWORD = new char[0];

  private Pem() {}

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

  public static PrivateKey privateKey(Path file) throws IOException {
    try (Reader r = Files.newBufferedReader(file); PEMParser pem = new PEMParser(r)) {
      Object o = pem.readObject();
      JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
      if (o instanceof PEMKeyPair pair) {
        // Only the private half: an EC key written by some tools carries no public key.
        return converter.getPrivateKey(pair.getPrivateKeyInfo());
      }
      if (o instanceof PrivateKeyInfo info) {
        return converter.getPrivateKey(info);
      }
      throw new IOException(file + " holds no unencrypted private key");
    }
  }

  /** A key store with one key entry: the key of {@code keyFile} and the chain of {@code certFile}. */
  public static KeyStore keyStore(Path certFile, Path keyFile) throws IOException, GeneralSecurityException {
    KeyStore keys = KeyStore.getInstance("PKCS12");
    keys.load(null, null);
    keys.setKeyEntry("key", privateKey(keyFile), NO_PASSWORD, certificates(certFile).toArray(new Certificate[0]));
    return keys;
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
}
