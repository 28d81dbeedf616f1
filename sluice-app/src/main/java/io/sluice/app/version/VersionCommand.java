package io.sluice.app.version;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.app.cli.OutputFormat;
import io.sluice.app.up.Platform;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code sluice version}: Sluice's version and those of the Kafka and Debezium it bundles. */
@Command(name = "version", mixinStandardHelpOptions = true,
    description = "Print Sluice's version, the bundled Kafka's, each bundled Debezium connector's, and Java's.")
public final class VersionCommand implements Callable<Integer> {
  @Option(names = "--plugin-path", paramLabel = "DIR",
      description = "folder of connector plugin folders to read (default: the bundled ones)")
  Path pluginPath;

  @Mixin OutputFormat output;

  @Override
  public Integer call() {
    Path plugins = pluginPath != null ? pluginPath : Platform.bundledPlugins();
    if (!output.json()) {
      Versions.lines(plugins).forEach(System.out::println);
      return 0;
    }
    ObjectNode o = new ObjectMapper().createObjectNode();
    o.put("sluice", Versions.sluice());
    o.put("kafka", Versions.kafka());
    var debezium = o.putArray("debezium");
    for (Versions.Connector c : Versions.debezium(plugins)) {
      debezium.addObject().put("plugin", c.plugin()).put("artifact", c.artifact()).put("version", c.version());
    }
    o.put("java", Runtime.version().toString());
    OutputFormat.printJson(System.out, o);
    return 0;
  }
}
