package io.sluice.kafka.testing;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;

/**
 * What a class logs while a test runs, as {@code LEVEL message} lines (the message formatted, its exception's message
 * appended): for tests that a failure is said, at the level it is said at. Needs log4j-core as the test's SLF4J
 * backend, as every module's tests have it.
 */
public final class LogCapture implements AutoCloseable {
  private final List<String> lines = new CopyOnWriteArrayList<>();
  private final Logger logger;
  private final AbstractAppender appender;

  private LogCapture(Class<?> source) {
    logger = (Logger) LogManager.getLogger(source);
    appender = new AbstractAppender("capture-" + source.getSimpleName(), null, null, true, Property.EMPTY_ARRAY) {
      @Override
      public void append(LogEvent event) {
        Throwable thrown = event.getThrown();
        lines.add(event.getLevel() + " " + event.getMessage().getFormattedMessage()
            + (thrown == null ? "" : " " + thrown));
      }
    };
    appender.start();
    logger.addAppender(appender);
  }

  /** Captures what {@code source}'s logger says from now until {@link #close}. */
  public static LogCapture of(Class<?> source) {
    return new LogCapture(source);
  }

  public List<String> lines() {
    return List.copyOf(lines);
  }

  /** The first line that matches, waited for up to {@code timeout}; fails with every line captured when none does. */
  public String await(Predicate<String> wanted, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      for (String line : lines) {
        if (wanted.test(line)) {
          return line;
        }
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no such log line within " + timeout + "; logged: " + lines);
      }
      Thread.sleep(50);
    }
  }

  @Override
  public void close() {
    logger.removeAppender(appender);
    appender.stop();
  }
}
