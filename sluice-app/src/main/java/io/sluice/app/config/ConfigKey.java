package io.sluice.app.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One {@code sluice.yaml} setting: its name, the type of its value, its default (if it has one), what it is for, the
 * flag that overrides it on the command line (if any), and the older names it is still read under.
 *
 * @param aliases older names of the key; a file or {@code --set} that uses one means this key
 */
public record ConfigKey<T>(String name, ConfigType<T> type, Optional<String> defaultValue, String doc,
    Optional<Flag> flag, List<String> aliases) implements ConfigDefinition {

  public ConfigKey {
    aliases = List.copyOf(aliases);
    defaultValue.ifPresent(d -> {
      try {
        type.parse(d.trim());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(name + ": default '" + d + "' must be " + e.getMessage(), e);
      }
    });
  }

  /** A key with a default. */
  public static <T> ConfigKey<T> of(String name, ConfigType<T> type, String defaultValue, String doc) {
    return new ConfigKey<>(name, type, Optional.of(defaultValue), doc, Optional.empty(), List.of());
  }

  /** A key without a default: off, or worked out from other settings, unless set. */
  public static <T> ConfigKey<T> optional(String name, ConfigType<T> type, String doc) {
    return new ConfigKey<>(name, type, Optional.empty(), doc, Optional.empty(), List.of());
  }

  /** This key, overridden on the command line by {@code --name}. */
  public ConfigKey<T> flag(String flagName) {
    return flag(flagName, type.label());
  }

  /** This key, overridden on the command line by {@code --name LABEL}. */
  public ConfigKey<T> flag(String flagName, String label) {
    return new ConfigKey<>(name, type, defaultValue, doc, Optional.of(new Flag(flagName, label, List.of())), aliases);
  }

  /** This key's flag, still taken under {@code oldFlagName} (not shown in the help). */
  public ConfigKey<T> oldFlag(String oldFlagName) {
    Flag f = flag.orElseThrow(() -> new IllegalStateException(name + " has no flag to give an older name"));
    List<String> more = new ArrayList<>(f.oldNames());
    more.add(oldFlagName);
    return new ConfigKey<>(name, type, defaultValue, doc, Optional.of(new Flag(f.name(), f.label(), more)), aliases);
  }

  /** This key, still read under {@code oldName}. */
  public ConfigKey<T> alias(String oldName) {
    List<String> more = new ArrayList<>(aliases);
    more.add(oldName);
    return new ConfigKey<>(name, type, defaultValue, doc, flag, more);
  }

  /**
   * The value {@code raw} stands for, or a {@link SluiceConfig.ConfigException} naming this key, the value and what
   * is allowed.
   */
  public T parse(String raw) {
    return read(name, type, raw);
  }

  /**
   * {@code raw}, the value of {@code key}, read as {@code type}; refused with the key, the value and what is allowed.
   */
  static <T> T read(String key, ConfigType<T> type, String raw) {
    try {
      return type.parse(raw.trim());
    } catch (IllegalArgumentException e) {
      throw new SluiceConfig.ConfigException(key + " must be " + e.getMessage() + ", not '" + raw + "'");
    }
  }

  @Override
  public boolean covers(String key) {
    return name.equals(key);
  }

  /** The key's name, as messages and the reference print it. */
  @Override
  public String toString() {
    return name;
  }

  /**
   * A command-line flag: {@code --kafka-port PORT}.
   *
   * @param oldNames older names of the flag, still taken
   */
  public record Flag(String name, String label, List<String> oldNames) {
    public Flag {
      oldNames = List.copyOf(oldNames);
    }
  }
}
