package io.sluice.ops.progress;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;

/**
 * A one-line progress bar on a terminal stream (stderr, so that stdout stays parseable):
 * {@code backup [#########-----------]  45%  45,000/100,000  12.3k/s  ETA 4s}.
 *
 * <p>Redrawn at most ten times a second, because operations report per record and a terminal write per record would
 * cost more than the work itself. When the stream is not a terminal only the final line is printed.
 */
public final class ProgressBar implements Progress {
  private static final int WIDTH = 24;
  private static final long REDRAW_NANOS = 100_000_000L;

  private final PrintStream out;
  private final String label;
  private final boolean interactive;
  private final long startNanos = System.nanoTime();
  private long lastDrawNanos;
  private long done;
  private long total = -1;
  private boolean finished;

  public ProgressBar(PrintStream out, String label, boolean interactive) {
    this.out = out;
    this.label = label;
    this.interactive = interactive;
  }

  /** A bar on stderr, drawn live only when a terminal is attached. */
  public static ProgressBar onStderr(String label) {
    return new ProgressBar(System.err, label, System.console() != null);
  }

  @Override
  public synchronized void update(long done, long total) {
    this.done = done;
    this.total = total;
    long now = System.nanoTime();
    if (interactive && now - lastDrawNanos >= REDRAW_NANOS) {
      lastDrawNanos = now;
      out.print('\r' + line(now));
      out.flush();
    }
  }

  @Override
  public synchronized void finish() {
    if (finished) {
      return;
    }
    finished = true;
    out.println((interactive ? "\r" : "") + line(System.nanoTime()));
    out.flush();
  }

  /** The bar as text at {@code nowNanos}; public so tests and the API can show the same words. */
  public synchronized String line(long nowNanos) {
    double seconds = Math.max(1e-9, (nowNanos - startNanos) / 1e9);
    double rate = done / seconds;
    StringBuilder sb = new StringBuilder(label).append(' ');
    if (total > 0) {
      double fraction = Math.min(1.0, (double) done / total);
      sb.append(bar(fraction)).append(' ');
      sb.append(String.format(Locale.ROOT, "%3d%%  %,d/%,d", (int) Math.floor(fraction * 100), done, total));
    } else {
      sb.append(String.format(Locale.ROOT, "%,d", done));
    }
    sb.append("  ").append(humanRate(rate)).append("/s");
    if (total > 0 && done < total && rate > 0) {
      sb.append("  ETA ").append(humanDuration(Duration.ofMillis((long) ((total - done) / rate * 1000))));
    } else if (finished) {
      sb.append("  in ").append(humanDuration(Duration.ofMillis((long) (seconds * 1000))));
    }
    return sb.toString();
  }

  /** The bar itself for a share done between 0 and 1: {@code [#########---------------]}. */
  public static String bar(double fraction) {
    int filled = (int) Math.round(Math.max(0, Math.min(1.0, fraction)) * WIDTH);
    return "[" + "#".repeat(filled) + "-".repeat(WIDTH - filled) + "]";
  }

  static String humanRate(double perSecond) {
    if (perSecond >= 1_000_000) {
      return String.format(Locale.ROOT, "%.1fM", perSecond / 1_000_000);
    }
    if (perSecond >= 1_000) {
      return String.format(Locale.ROOT, "%.1fk", perSecond / 1_000);
    }
    return String.format(Locale.ROOT, "%.0f", perSecond);
  }

  static String humanDuration(Duration d) {
    long s = d.toSeconds();
    if (s < 60) {
      return d.toMillis() < 10_000 ? String.format(Locale.ROOT, "%.1fs", d.toMillis() / 1000.0) : s + "s";
    }
    if (s < 3600) {
      return (s / 60) + "m" + (s % 60) + "s";
    }
    return (s / 3600) + "h" + (s % 3600 / 60) + "m";
  }
}
