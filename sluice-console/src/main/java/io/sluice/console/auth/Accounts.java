package io.sluice.console.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.http.web.BasicAuth;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The console's users: bcrypt hashes in {@code users.json} of the data directory, readable by its owner alone.
 * A fresh directory holds the shipped default account, {@code admin} / {@code admin} (as Grafana's), marked so that
 * its password must be changed at the first login before anything is shown. The file is re-read on every call, so
 * {@code sluice console user} changes it under a running console.
 */
public final class Accounts {
  public static final String DEFAULT_USER = "admin";
  public static final String DEFAULT_PASSWORD = "admin";
  /**
   * A bcrypt hash (cost 10) of {@link #DEFAULT_PASSWORD}: the password is public and must be changed at first login,
   * so a salt of its own per installation protects nothing, and hashing it cost every first start of the console a
   * bcrypt computation before the JIT has compiled bcrypt.
   */
  static final String DEFAULT_HASH = "$2a$10$P0euQlfae2FnkiDeiwCn1.yiSm4jqqVXgA7il8j7C2gOK7E5cz4Mq";
  /** Shorter passwords are refused, as are the default and the user's own name. */
  public static final int MIN_PASSWORD_LENGTH = 8;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One user: its hash and whether the password must be changed before data is shown. */
  public record Account(String user, String hash, boolean mustChange) {
    @Override
    public String toString() {
      return "Account[" + user + (mustChange ? ", must change password" : "") + "]";
    }
  }

  private final Path file;

  private Accounts(Path file) {
    this.file = file;
  }

  /** The accounts of {@code dataDir}, with the default account written on first use. */
  public static synchronized Accounts in(Path dataDir) {
    Accounts a = new Accounts(dataDir.resolve("users.json"));
    if (!Files.exists(a.file)) {
      TreeMap<String, Account> first = new TreeMap<>();
      first.put(DEFAULT_USER, new Account(DEFAULT_USER, DEFAULT_HASH, true));
      a.write(first);
    }
    return a;
  }

  /** The account whose password this is, or empty (unknown users cost a bcrypt check all the same). */
  public Optional<Account> verify(String user, String password) {
    Account a = read().get(user);
    if (a == null) {
      BasicAuth.spendCheckTime(password);
      return Optional.empty();
    }
    return BasicAuth.matches(password, a.hash()) ? Optional.of(a) : Optional.empty();
  }

  public Optional<Account> find(String user) {
    return Optional.ofNullable(read().get(user));
  }

  public synchronized List<Account> list() {
    return new ArrayList<>(read().values());
  }

  /** Adds a user whose password is good to go (the CLI's {@code ui user add}). */
  public synchronized void add(String user, String password) {
    if (!user.matches("[A-Za-z0-9._@-]{1,64}")) {
      throw new IllegalArgumentException("a user name is 1 to 64 letters, digits, '.', '_', '@' or '-'");
    }
    TreeMap<String, Account> all = read();
    if (all.containsKey(user)) {
      throw new IllegalArgumentException("user " + user + " exists; use passwd to change the password");
    }
    check(user, password, null);
    all.put(user, new Account(user, BasicAuth.hash(password), false));
    write(all);
  }

  /** Sets a new password; the default one, the old one, the user name and short ones are refused. */
  public synchronized void setPassword(String user, String password) {
    TreeMap<String, Account> all = read();
    Account a = all.get(user);
    if (a == null) {
      throw new IllegalArgumentException("no user " + user);
    }
    check(user, password, a.hash());
    all.put(user, new Account(user, BasicAuth.hash(password), false));
    write(all);
  }

  private static void check(String user, String password, String oldHash) {
    if (password.length() < MIN_PASSWORD_LENGTH) {
      throw new IllegalArgumentException("the password must have at least " + MIN_PASSWORD_LENGTH + " characters");
    }
    if (password.equals(DEFAULT_PASSWORD) || password.equals(user)) {
      throw new IllegalArgumentException("the password must not be the default or the user name");
    }
    if (oldHash != null && BasicAuth.matches(password, oldHash)) {
      throw new IllegalArgumentException("the new password must differ from the old one");
    }
  }

  private TreeMap<String, Account> read() {
    TreeMap<String, Account> out = new TreeMap<>();
    try {
      JsonNode root = JSON.readTree(file.toFile());
      root.path("users").fields().forEachRemaining(e -> out.put(e.getKey(), new Account(e.getKey(),
          e.getValue().path("hash").asText(), e.getValue().path("must_change").asBoolean(false))));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the console's users from " + file + ": " + e.getMessage(), e);
    }
    return out;
  }

  private void write(TreeMap<String, Account> all) {
    ObjectNode root = JSON.createObjectNode();
    ObjectNode users = root.putObject("users");
    all.values().forEach(a -> users.putObject(a.user()).put("hash", a.hash()).put("must_change", a.mustChange()));
    try {
      Files.createDirectories(file.getParent());
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.deleteIfExists(tmp);
      Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      Files.writeString(tmp, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root));
      try {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the console's users to " + file + ": " + e.getMessage(), e);
    }
  }
}
