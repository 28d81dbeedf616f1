package io.sluice.app.connectors;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.sluice.app.cli.ClusterOptions;
import io.sluice.app.cli.OutputFormat;
import io.sluice.connect.client.ConnectRestClient;
import java.io.PrintStream;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;

/** What every {@code sluice connectors} subcommand shares: where Connect is, the output format. */
abstract class ConnectorsBase implements Callable<Integer> {
  static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  @Mixin ClusterOptions cluster;

  @Mixin OutputFormat output;

  PrintStream out = System.out;
  PrintStream err = System.err;
  private ConnectRestClient connect;

  ConnectRestClient connect() {
    if (connect == null) {
      connect = new ConnectRestClient(cluster.connectUrl(), cluster.clientOptions());
    }
    return connect;
  }

  /** Errors go up to {@link io.sluice.app.cli.CommandErrors}, which gives every command the same exit codes. */
  @Override
  public final Integer call() throws java.io.IOException, InterruptedException {
    return execute();
  }

  abstract int execute() throws java.io.IOException, InterruptedException;

  void printJson(Object tree) {
    OutputFormat.printJson(out, tree);
  }
}
