package io.sluice.app.dlq;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.sluice.app.cli.ClusterOptions;
import io.sluice.ops.dlq.DeadLetterQueue;
import java.io.PrintStream;
import java.util.concurrent.Callable;
import org.apache.kafka.common.KafkaException;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** What every {@code sluice dlq} subcommand shares: where the cluster is, the output format, error reporting. */
abstract class DlqCommandBase implements Callable<Integer> {
  static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /** Output formats. */
  enum Format { table, json }

  @Mixin ClusterOptions cluster;

  @Option(names = {"-o", "--output"}, paramLabel = "table|json", defaultValue = "table",
      description = "table for people (default), json for machines")
  Format output;

  PrintStream out = System.out;
  PrintStream err = System.err;

  DeadLetterQueue dlq() {
    return DeadLetterQueue.builder()
        .bootstrapServers(cluster.bootstrapServers())
        .registryUrl(cluster.registryUrl())
        .connectUrl(cluster.connectUrl())
        .backupDir(cluster.dataDir().resolve("backups").resolve("dlq"))
        .clientProperty("request.timeout.ms", 30_000)
        .clientProperty("default.api.timeout.ms", 60_000)
        .build();
  }

  @Override
  public final Integer call() {
    try {
      return execute();
    } catch (IllegalArgumentException | IllegalStateException | KafkaException e) {
      err.println("error: " + e.getMessage());
      return 1;
    }
  }

  abstract int execute() throws IllegalArgumentException, IllegalStateException;

  void printJson(Object tree) {
    try {
      out.println(JSON.writeValueAsString(tree));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
