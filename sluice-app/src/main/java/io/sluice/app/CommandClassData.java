package io.sluice.app;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * What the launcher runs, once per JDK and build, in the background, to record the class-data archive every command
 * other than {@code up} then maps ({@code -XX:ArchiveClassesAtExit}): the classes most commands load, whichever
 * command happened to run first. It reaches nothing but the loopback's port 1, which refuses at once, and prints
 * nothing (its output is discarded anyway). Picocli's own classes are loaded too but no archive takes them (Java 5
 * class files).
 */
public final class CommandClassData {
  /** Loopback port 1: nothing listens there, so a client learns so at once and no request leaves the machine. */
  private static final String NOWHERE = "127.0.0.1:1";

  private CommandClassData() {}

  public static void main(String[] args) {
    PrintStream discard = new PrintStream(OutputStream.nullOutputStream());
    System.setOut(discard);
    System.setErr(discard);
    // Every command's model and the usage (what a misspelt command or --help builds), then the paths of a command
    // run: a local one, one over HTTP with its error contract, and the Kafka clients with their logging.
    run("--help");
    run("version");
    run("connectors", "list", "--connect-url", "http://" + NOWHERE);
    // Made and closed: no request is pending, so none waits on the address that refuses.
    try (Admin admin = Admin.create(Map.<String, Object>of("bootstrap.servers", NOWHERE));
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.<String, Object>of(
            "bootstrap.servers", NOWHERE), new ByteArrayDeserializer(), new ByteArrayDeserializer());
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.<String, Object>of(
            "bootstrap.servers", NOWHERE), new ByteArraySerializer(), new ByteArraySerializer())) {
      consumer.assignment();
    } catch (RuntimeException e) {
      // Recording what loaded is all this is for.
    }
    // What the first answer of a broker loads, which port 1 never gives: every request's and response's message
    // class (the clients' first request lists the broker's API versions, and reading it initialises them all) and
    // every error's exception class. Recording them took 13-17 % off a Kafka command's CPU.
    for (ApiMessageType type : ApiMessageType.values()) {
      try {
        type.newRequest();
        type.newResponse();
      } catch (RuntimeException removed) {
        // An API this Kafka no longer has (LEADER_AND_ISR and its like): nothing of it to load.
      }
    }
    for (Errors error : Errors.values()) {
      error.exception();
    }
    // The archive is written as the JVM exits, by System.exit as by a command's own end.
    System.exit(0);
  }

  private static void run(String... args) {
    try {
      Main.commandLine(args).execute(args);
    } catch (RuntimeException e) {
      // A command that fails here has still loaded its classes.
    }
  }
}
