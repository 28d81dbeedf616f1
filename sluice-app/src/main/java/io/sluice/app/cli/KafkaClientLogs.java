package io.sluice.app.cli;

/**
 * Whether a process prints what the Kafka client library warns of. A command's output and {@code sluice up}'s are
 * what a person reads; a client's warnings (a broker not reachable yet, {@code Not updating high watermark}) come
 * between their lines and say nothing the command does not. The packaged {@code log4j2.xml} takes the level of
 * {@code org.apache.kafka.clients} from the system property {@link #PROPERTY}, {@code ERROR} when it is unset;
 * {@code --verbose} sets it to {@code WARN} before any logger exists. Servers keep the warnings, which are about their
 * cluster: {@code sluice up}'s data plane and {@code sluice kafka}.
 */
public final class KafkaClientLogs {
  /** The level of the {@code org.apache.kafka.clients} loggers, read once by the logging configuration. */
  public static final String PROPERTY = "sluice.log.kafka.clients";

  private KafkaClientLogs() {}

  /** Shows the clients' warnings in this process and in the planes it starts. */
  public static void show() {
    System.setProperty(PROPERTY, "WARN");
  }

  /**
   * The JVM option that carries this process' setting to a plane it starts. The data plane shows them always: its
   * clients are Connect's own producers and consumers, whose warnings are about the pipelines' data.
   */
  public static String planeOption(boolean dataPlane) {
    return "-D" + PROPERTY + "=" + (dataPlane ? "WARN" : System.getProperty(PROPERTY, "ERROR"));
  }
}
