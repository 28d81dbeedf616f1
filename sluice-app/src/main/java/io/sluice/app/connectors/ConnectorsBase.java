package io.sluice.app.connectors;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.sluice.app.cli.ClusterOptions;
import io.sluice.app.cli.OutputFormat;
import io.sluice.client.HttpTransport;
import io.sluice.connect.client.ConnectApiException;
import io.sluice.connect.client.ConnectRestClient;
import java.io.PrintStream;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;

/** What every {@code sluice connectors} subcommand shares: where Connect is, the output format, exit codes. */
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

  @Override
  public final Integer call() {
    try {
      return execute();
    } catch (HttpTransport.UnreachableException e) {
      err.println("error: " + e.getMessage());
      return ConnectorsCommand.UNREACHABLE;
    } catch (ConnectApiException e) {
      err.println("error: " + e.connectMessage() + " (HTTP " + e.status() + ")");
      return ConnectorsCommand.REFUSED;
    } catch (IllegalArgumentException | IllegalStateException | java.io.IOException e) {
      err.println("error: " + e.getMessage());
      return ConnectorsCommand.REFUSED;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 130;
    }
  }

  abstract int execute() throws java.io.IOException, InterruptedException;

  void printJson(Object tree) {
    OutputFormat.printJson(out, tree);
  }
}
