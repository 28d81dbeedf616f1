package io.sluice.app.version;

import io.sluice.app.up.Platform;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.apache.kafka.common.utils.AppInfoParser;
import picocli.CommandLine;

/**
 * What a distribution is made of, read from what it runs rather than written down: Sluice's version as the build
 * filled it in, Kafka's from its own jar, and the Debezium of each bundled connector from the connector's jar in its
 * plugin folder (each folder brings its own Debezium, and they need not agree).
 */
public final class Versions {
  /** A bundled Debezium connector: its plugin folder, the connector's artifact and its version. */
  record Connector(String plugin, String artifact, String version) {}

  private Versions() {}

  /** Sluice's version, as the build wrote it into {@code version.properties}. */
  static String sluice() {
    try (InputStream in = Versions.class.getResourceAsStream("version.properties")) {
      if (in == null) {
        return "unknown (no version.properties: not built by Maven)";
      }
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("version", "unknown");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The version of the Kafka broker, Connect and clients on the class path, as Kafka reports it of itself: the file
   * {@link AppInfoParser} reads, read here without it, since its first use makes a logger and so sets up logging, about
   * a third of the CPU of {@code sluice version}.
   */
  static String kafka() {
    try (InputStream in = AppInfoParser.class.getResourceAsStream("/kafka/kafka-version.properties")) {
      if (in == null) {
        return "unknown";
      }
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("version", "unknown").trim();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The Debezium connector of each plugin folder under {@code plugins} that has one, by folder name. */
  static List<Connector> debezium(Path plugins) {
    List<Connector> out = new ArrayList<>();
    if (!Files.isDirectory(plugins)) {
      return out;
    }
    try (Stream<Path> folders = Files.list(plugins)) {
      for (Path folder : folders.filter(Files::isDirectory).sorted().toList()) {
        try (Stream<Path> jars = Files.list(folder)) {
          for (Path jar : jars.sorted().toList()) {
            connector(folder.getFileName().toString(), jar).ifPresent(out::add);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the plugin folders in " + plugins, e);
    }
    return out;
  }

  /**
   * A Debezium connector's jar ({@code io.debezium:debezium-connector-*}, not the shared {@code -common} and
   * {@code -binlog}) and its version, from the pom.properties Maven put in it, else its manifest.
   */
  private static Optional<Connector> connector(String plugin, Path jar) throws IOException {
    String name = jar.getFileName().toString();
    if (!name.startsWith("debezium-connector-") || !name.endsWith(".jar") || name.startsWith("debezium-connector-common")
        || name.startsWith("debezium-connector-binlog")) {
      return Optional.empty();
    }
    try (JarFile j = new JarFile(jar.toFile())) {
      var entry = j.stream().filter(e -> e.getName().startsWith("META-INF/maven/io.debezium/")
          && e.getName().endsWith("/pom.properties")).findFirst();
      if (entry.isPresent()) {
        Properties p = new Properties();
        try (InputStream in = j.getInputStream(entry.get())) {
          p.load(in);
        }
        return Optional.of(new Connector(plugin, p.getProperty("artifactId"), p.getProperty("version")));
      }
      String version = j.getManifest() == null ? null
          : j.getManifest().getMainAttributes().getValue("Implementation-Version");
      String artifact = name.substring(0, name.length() - ".jar".length());
      return version == null ? Optional.empty() : Optional.of(new Connector(plugin,
          artifact.endsWith("-" + version) ? artifact.substring(0, artifact.length() - version.length() - 1) : artifact,
          version));
    }
  }

  /** The lines of {@code sluice version} and {@code sluice --version}. */
  static List<String> lines(Path plugins) {
    List<String> lines = new ArrayList<>();
    lines.add("sluice " + sluice());
    lines.add("kafka " + kafka());
    for (Connector c : debezium(plugins)) {
      lines.add("debezium " + c.version() + " (" + c.artifact() + " in plugins/" + c.plugin() + ")");
    }
    lines.add("java " + Runtime.version() + " (" + System.getProperty("java.vendor") + ", "
        + System.getProperty("java.home") + ")");
    return lines;
  }

  /** {@code sluice --version}: the same as {@code sluice version}. */
  public static final class Provider implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return lines(Platform.bundledPlugins()).toArray(String[]::new);
    }
  }
}
