package io.sluice.http.web;

import at.favre.lib.crypto.bcrypt.BCrypt;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Checks an {@code Authorization: Basic} header against the bcrypt hashes of a web configuration. A bcrypt check
 * costs tens of milliseconds by design; a successful one is remembered (by a SHA-256 of user and password, never the
 * password) so a scraper or a dashboard polling every few seconds pays it once, as the exporter toolkit does.
 */
public final class BasicAuth {
  private final Map<String, String> users;
  private final Map<String, Boolean> verified = new ConcurrentHashMap<>();

  public BasicAuth(Map<String, String> users) {
    this.users = Map.copyOf(users);
  }

  /** The user an {@code Authorization} header proves, or empty for a missing, malformed or wrong credential. */
  public Optional<String> user(String authorization) {
    if (authorization == null || !authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
      return Optional.empty();
    }
    String decoded;
    try {
      decoded = new String(Base64.getDecoder().decode(authorization.substring(6).trim()), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException notBase64) {
      return Optional.empty();
    }
    int colon = decoded.indexOf(':');
    if (colon < 0) {
      return Optional.empty();
    }
    String user = decoded.substring(0, colon);
    String password = decoded.substring(colon + 1);
    String hash = users.get(user);
    if (hash == null) {
      // Spend the same time as for a known user, so a response time does not tell which users exist.
      BCrypt.verifyer().verify(password.toCharArray(), DUMMY);
      return Optional.empty();
    }
    String key = digest(user, password, hash);
    if (verified.containsKey(key)) {
      return Optional.of(user);
    }
    if (BCrypt.verifyer().verify(password.toCharArray(), hash.getBytes(StandardCharsets.UTF_8)).verified) {
      verified.put(key, Boolean.TRUE);
      return Optional.of(user);
    }
    return Optional.empty();
  }

  /**
   * A cost-10 hash of a password no user has, to verify against: written out rather than made at class load, where a
   * bcrypt hash cost every process that serves HTTP a noticeable part of its start (more while the JIT has not yet
   * compiled bcrypt), whether or not any surface asks for credentials.
   */
  private static final byte[] DUMMY =
      "$2a$10$xWirCfiAMvykU6iFFKgUQuVgPrBHDKJfG4oIUVAsW2W67Ibimgu7.".getBytes(StandardCharsets.UTF_8);

  private static String digest(String user, String password, String hash) {
    try {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      d.update(user.getBytes(StandardCharsets.UTF_8));
      d.update((byte) 0);
      d.update(password.getBytes(StandardCharsets.UTF_8));
      d.update((byte) 0);
      d.update(hash.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Whether {@code password} is the one {@code bcryptHash} was made from. */
  public static boolean matches(String password, String bcryptHash) {
    return BCrypt.verifyer().verify(password.toCharArray(), bcryptHash.getBytes(StandardCharsets.UTF_8)).verified;
  }

  /** Spends a bcrypt check's time on nothing, so that an unknown user is not told apart by the time of the answer. */
  public static void spendCheckTime(String password) {
    BCrypt.verifyer().verify(password.toCharArray(), DUMMY);
  }

  /** A bcrypt hash of {@code password}, as {@code basic_auth_users} holds them (cost 10, the toolkit's example). */
  public static String hash(String password) {
    return BCrypt.withDefaults().hashToString(10, password.toCharArray());
  }
}
