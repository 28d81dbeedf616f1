package io.sluice.app.config;

import io.sluice.gofmt.GoDuration;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a {@code sluice.yaml} value may be, and how it is read: each type turns the text of a value into the value
 * Sluice uses, or refuses it by saying what is allowed ({@link #allowed()}), so that {@code sluice up},
 * {@code sluice check-config} and the configuration reference all say the same.
 *
 * @param <T> the value read
 */
public sealed interface ConfigType<T> {

  /** What a value of this type may be, as the end of "KEY must be …": {@code a port number (0-65535)}. */
  String allowed();

  /** The value {@code raw} (already trimmed) stands for; {@link IllegalArgumentException} saying what is allowed. */
  T parse(String raw);

  /** The placeholder of a command-line flag of this type: {@code PORT}, {@code SIZE}. */
  String label();

  /** Any text: names, addresses, options. */
  record Text(String label) implements ConfigType<String> {
    @Override
    public String allowed() {
      return "text";
    }

    @Override
    public String parse(String raw) {
      return raw;
    }
  }

  /** A TCP port; 0 is any free one, chosen at start. */
  record Port() implements ConfigType<Integer> {
    @Override
    public String allowed() {
      return "a port number (0-65535)";
    }

    @Override
    public Integer parse(String raw) {
      try {
        int p = Integer.parseInt(raw);
        if (p >= 0 && p <= 65535) {
          return p;
        }
      } catch (NumberFormatException e) {
        // said below
      }
      throw new IllegalArgumentException(allowed());
    }

    @Override
    public String label() {
      return "PORT";
    }
  }

  /** A whole number from {@code min} to {@code max}; {@code allowed} says so in the words of its key. */
  record WholeNumber(long min, long max, String allowed) implements ConfigType<Long> {
    @Override
    public Long parse(String raw) {
      try {
        long n = Long.parseLong(raw);
        if (n >= min && n <= max) {
          return n;
        }
      } catch (NumberFormatException e) {
        // said below
      }
      throw new IllegalArgumentException(allowed);
    }

    @Override
    public String label() {
      return "N";
    }
  }

  /** A size in bytes: a number, optionally with a unit (B, KB, MB, GB, KiB, MiB, GiB), e.g. {@code 8MiB}. */
  record Size() implements ConfigType<Long> {
    private static final Pattern FORM = Pattern.compile("(\\d+)\\s*([KMG]i?B|B)?");

    @Override
    public String allowed() {
      return "a size such as 4MiB or 1048576";
    }

    @Override
    public Long parse(String raw) {
      Matcher m = FORM.matcher(raw);
      if (!m.matches()) {
        throw new IllegalArgumentException(allowed());
      }
      long unit = switch (m.group(2) == null ? "B" : m.group(2)) {
        case "KB" -> 1_000L;
        case "MB" -> 1_000_000L;
        case "GB" -> 1_000_000_000L;
        case "KiB" -> 1L << 10;
        case "MiB" -> 1L << 20;
        case "GiB" -> 1L << 30;
        default -> 1L;
      };
      long n;
      try {
        n = Math.multiplyExact(Long.parseLong(m.group(1)), unit);
      } catch (ArithmeticException | NumberFormatException e) {
        throw new IllegalArgumentException("a size of less than 8 EiB");
      }
      if (n <= 0) {
        throw new IllegalArgumentException("more than 0 bytes");
      }
      return n;
    }

    @Override
    public String label() {
      return "SIZE";
    }
  }

  /** A heap size as {@code -Xmx} takes it: a number with an optional k, m or g. */
  record HeapSize() implements ConfigType<String> {
    @Override
    public String allowed() {
      return "a heap size such as 512m or 1g";
    }

    @Override
    public String parse(String raw) {
      if (!raw.matches("\\d+[kKmMgG]?")) {
        throw new IllegalArgumentException(allowed());
      }
      return raw;
    }

    @Override
    public String label() {
      return "SIZE";
    }
  }

  /** A duration in Prometheus' notation ({@link GoDuration}): {@code 15s}, {@code 1m30s}, {@code 15d}. */
  record Duration() implements ConfigType<java.time.Duration> {
    @Override
    public String allowed() {
      return "a duration such as 15s, 1m30s or 15d";
    }

    @Override
    public java.time.Duration parse(String raw) {
      try {
        return GoDuration.parse(raw);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(allowed());
      }
    }

    @Override
    public String label() {
      return "DURATION";
    }
  }

  /** A file or folder; relative paths are taken from the folder Sluice runs in. */
  record FilePath(String label) implements ConfigType<Path> {
    @Override
    public String allowed() {
      return "a path";
    }

    @Override
    public Path parse(String raw) {
      try {
        return Path.of(raw);
      } catch (InvalidPathException e) {
        throw new IllegalArgumentException(allowed() + " (" + e.getReason() + ")");
      }
    }
  }
}
