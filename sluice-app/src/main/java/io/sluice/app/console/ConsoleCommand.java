package io.sluice.app.console;

import io.sluice.app.cli.CommandError;
import io.sluice.app.config.ConfigDefinitions;
import io.sluice.app.config.SluiceConfig;
import io.sluice.console.auth.Accounts;
import java.io.Console;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code sluice console user add|passwd|list}: the console's users, in {@code ui/users.json} of the data directory (the
 * folder keeps the console's older name, so that existing accounts stay where they are). {@code sluice ui}, its older
 * name, still works.
 */
@Command(name = "console", aliases = "ui", mixinStandardHelpOptions = true, description = "The console on port 3000.",
    subcommands = ConsoleCommand.User.class)
public final class ConsoleCommand {

  @Command(name = "user", mixinStandardHelpOptions = true,
      description = "Console users: add one, change a password, list them.",
      subcommands = {ConsoleCommand.Add.class, ConsoleCommand.Passwd.class, ConsoleCommand.List.class})
  static final class User {}

  /** Where the users live, as {@code sluice up} finds them. */
  abstract static class Base {
    @Option(names = "--config", description = "sluice.yaml to take the data directory from")
    Path configFile;

    @Option(names = "--data-dir", description = "data directory of sluice up (default ./data)")
    String dataDir;

    Accounts accounts() {
      SluiceConfig config = SluiceConfig.load(Optional.ofNullable(configFile),
          dataDir == null ? Map.of() : Map.of(ConfigDefinitions.DATA_DIR.name(), dataDir));
      return Accounts.in(config.dataDir().resolve("ui"));
    }
  }

  /** A command that takes a new password: from a file, the environment, or typed twice. */
  abstract static class WithPassword extends Base implements Callable<Integer> {
    static final String ENV = "SLUICE_CONSOLE_PASSWORD";
    /** Its older name, still read when the new one is not set. */
    static final String OLD_ENV = "SLUICE_UI_PASSWORD";

    @Parameters(index = "0", paramLabel = "USER")
    String user;

    @Option(names = "--password-file", paramLabel = "FILE",
        description = "file holding the new password (else $" + ENV + ", else it is asked for)")
    Path passwordFile;

    String password() throws IOException {
      if (passwordFile != null) {
        return Files.readString(passwordFile).strip();
      }
      String env = System.getenv(ENV);
      if (env == null || env.isEmpty()) {
        env = System.getenv(OLD_ENV);
      }
      if (env != null && !env.isEmpty()) {
        return env;
      }
      Console console = System.console();
      if (console == null) {
        throw new IllegalArgumentException("no terminal to ask for the password: give --password-file or $" + ENV);
      }
      char[] first = console.readPassword("New password for %s: ", user);
      char[] second = console.readPassword("Again: ");
      if (first == null || second == null || !Arrays.equals(first, second)) {
        throw new IllegalArgumentException("the two passwords differ");
      }
      return new String(first);
    }

    abstract void apply(Accounts accounts, String password);

    abstract String done();

    @Override
    public Integer call() {
      try {
        apply(accounts(), password());
        System.out.println(done());
        return 0;
      } catch (SluiceConfig.ConfigException e) {
        throw CommandError.usage(e.getMessage());
      } catch (IOException e) {
        throw CommandError.usage("cannot read the password: " + e.getMessage());
      }
    }
  }

  @Command(name = "add", mixinStandardHelpOptions = true, description = "Add a console user.")
  static final class Add extends WithPassword {
    @Override
    void apply(Accounts accounts, String password) {
      accounts.add(user, password);
    }

    @Override
    String done() {
      return "added " + user;
    }
  }

  @Command(name = "passwd", mixinStandardHelpOptions = true, description = "Change a console user's password.")
  static final class Passwd extends WithPassword {
    @Override
    void apply(Accounts accounts, String password) {
      accounts.setPassword(user, password);
    }

    @Override
    String done() {
      return "changed the password of " + user;
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true, description = "List the console users.")
  static final class List extends Base implements Callable<Integer> {
    @Override
    public Integer call() {
      for (Accounts.Account a : accounts().list()) {
        System.out.println(a.user() + (a.mustChange() ? "\tpassword must be changed at the next login" : ""));
      }
      return 0;
    }
  }
}
