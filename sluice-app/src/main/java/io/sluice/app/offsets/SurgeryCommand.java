package io.sluice.app.offsets;

import io.sluice.app.cli.ClusterOptions;
import io.sluice.ops.offsets.OffsetSurgery;
import io.sluice.ops.progress.ProgressBar;
import java.util.concurrent.Callable;
import picocli.CommandLine;

/**
 * What every {@code sluice offsets} subcommand shares: where the cluster is, how to print. A refused surgery (nothing
 * changed) ends with {@link io.sluice.app.cli.ExitCode#REFUSED}, one that failed part way (the message says what state
 * it left) with {@link io.sluice.app.cli.ExitCode#PARTIAL}, as {@link io.sluice.app.cli.CommandErrors} maps them.
 */
abstract class SurgeryCommand implements Callable<Integer> {

  @CommandLine.Mixin ClusterOptions cluster;
  @CommandLine.Mixin Output output;

  @CommandLine.Option(names = "--offsets-topic", defaultValue = "connect-offsets",
      description = "the workers' offset.storage.topic (default ${DEFAULT-VALUE})")
  String offsetsTopic;

  @CommandLine.Option(names = "--secrets-topic", defaultValue = "sluice-connect-secrets",
      description = "where $${sluice:...} source passwords are kept (default ${DEFAULT-VALUE})")
  String secretsTopic;

  @CommandLine.Option(names = "--source-jdbc", paramLabel = "URL",
      description = "JDBC URL of the source for the read-only checks (default: from the connector config)")
  String sourceJdbc;

  @CommandLine.Option(names = "--source-user", paramLabel = "USER", description = "source user (default: the connector's)")
  String sourceUser;

  @CommandLine.Option(names = "--source-password", paramLabel = "PASSWORD", interactive = true, arity = "0..1",
      description = "source password (default: the connector's, resolved like the worker does)")
  String sourcePassword;

  OffsetSurgery surgery() {
    return OffsetSurgery.builder()
        .cluster(cluster.cluster())
        .connectUrl(cluster.connectUrl())
        .clientOptions(cluster.clientOptions())
        .offsetsTopic(offsetsTopic)
        .secretsTopic(secretsTopic)
        .backupDir(cluster.dataDir().resolve("backups").resolve("offsets"))
        .source(sourceJdbc, sourceUser, sourcePassword)
        .operator(cluster.user().orElse(System.getProperty("user.name", "an operator")))
        .progress(ProgressBar::onStderr)
        .log(line -> System.err.println("sluice offsets: " + line))
        .build();
  }

  abstract int execute();

  @Override
  public final Integer call() {
    return execute();
  }
}
