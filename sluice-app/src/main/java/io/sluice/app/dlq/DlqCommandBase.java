package io.sluice.app.dlq;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.sluice.app.cli.ClusterOptions;
import io.sluice.app.cli.OutputFormat;
import io.sluice.ops.dlq.DeadLetterQueue;
import java.io.PrintStream;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;

/** What every {@code sluice dlq} subcommand shares: where the cluster is, the output format. */
abstract class DlqCommandBase implements Callable<Integer> {
  static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  @Mixin ClusterOptions cluster;

  @Mixin OutputFormat output;

  PrintStream out = System.out;
  PrintStream err = System.err;

  DeadLetterQueue dlq() {
    return DeadLetterQueue.builder()
        .cluster(cluster.cluster())
        .registryUrl(cluster.registryUrl())
        .clientOptions(cluster.clientOptions())
        .connectUrl(cluster.connectUrl())
        .backupDir(cluster.dataDir().resolve("backups").resolve("dlq"))
        .clientProperty("request.timeout.ms", 30_000)
        .clientProperty("default.api.timeout.ms", 60_000)
        .build();
  }

  /** Errors go up to {@link io.sluice.app.cli.CommandErrors}, which gives every command the same exit codes. */
  @Override
  public final Integer call() {
    return execute();
  }

  abstract int execute() throws IllegalArgumentException, IllegalStateException;

  void printJson(Object tree) {
    OutputFormat.printJson(out, tree);
  }
}
