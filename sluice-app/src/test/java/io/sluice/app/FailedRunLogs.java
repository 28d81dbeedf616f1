package io.sluice.app;

import java.nio.file.Path;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.LifecycleMethodExecutionExceptionHandler;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Keeps the nodes' logs of a cluster test that failed (a test, or the class' start) under
 * {@code sluice-app/target/cluster-faults-logs/<Class.test>/<node>/}: the nodes run in the test's temporary folder,
 * which is gone once the class ends, and a fault run is too long to repeat for its logs.
 */
final class FailedRunLogs implements TestWatcher, LifecycleMethodExecutionExceptionHandler {
  private final Supplier<SluiceNodes> cluster;

  FailedRunLogs(Supplier<SluiceNodes> cluster) {
    this.cluster = cluster;
  }

  static Path folder(String test) {
    return PackagedSluice.root().resolve("sluice-app/target/cluster-faults-logs").resolve(test);
  }

  @Override
  public void testFailed(ExtensionContext context, Throwable cause) {
    keep(context.getRequiredTestClass().getSimpleName() + "." + context.getRequiredTestMethod().getName());
  }

  @Override
  public void handleBeforeAllMethodExecutionException(ExtensionContext context, Throwable failure)
      throws Throwable {
    keep(context.getRequiredTestClass().getSimpleName() + ".start");
    throw failure;
  }

  private void keep(String test) {
    SluiceNodes nodes = cluster.get();
    if (nodes == null) {
      return;
    }
    Path into = folder(test);
    try {
      nodes.keepLogs(into);
      System.out.println(test + " failed: the nodes' logs are in " + into);
    } catch (Exception e) {
      // The failure itself is what the run reports; its logs are a help.
      System.out.println(test + " failed, and its nodes' logs could not be kept in " + into + ": " + e);
    }
  }
}
