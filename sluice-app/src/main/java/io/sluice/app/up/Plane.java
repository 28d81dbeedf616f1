package io.sluice.app.up;

import io.sluice.app.config.ConfigDefinitions;
import io.sluice.app.config.ConfigKey;
import java.time.Duration;

/** The two processes {@link Supervisor} runs, in the order they stop. */
enum Plane {
  CONTROL("control", "control-plane", "the control plane (alert router, metrics server, registry, console)",
      ConfigDefinitions.CONTROL_PLANE_HEAP, ConfigDefinitions.CONTROL_PLANE_JAVA_OPTIONS,
      StopAllowance.fixed(Duration.ofSeconds(60))),
  /**
   * Given longer to stop, and longer still with more tasks: each task commits its last offsets and closes its producer
   * and its database connection. The tasks stop side by side; what each still does alone shares the machine's cores.
   */
  DATA("data", "data-plane", "the data plane (broker, Connect, exporter)", ConfigDefinitions.DATA_PLANE_HEAP,
      ConfigDefinitions.DATA_PLANE_JAVA_OPTIONS, new StopAllowance(Duration.ofSeconds(90), Duration.ofMillis(250),
          Duration.ofMinutes(5)));

  /** Its name in {@code sluice plane NAME}, in its class-data archive's and in its threads'. */
  final String name;
  /** The {@code component} label of its {@link ComponentAlert}. */
  final String component;
  final String what;
  /** The settings of its JVM: its heap and more options. */
  final ConfigKey<String> heap;
  final ConfigKey<String> javaOptions;
  /** How long it is given to stop after SIGTERM before it is killed. */
  final StopAllowance stopAllowance;

  Plane(String name, String component, String what, ConfigKey<String> heap, ConfigKey<String> javaOptions,
      StopAllowance stopAllowance) {
    this.name = name;
    this.component = component;
    this.what = what;
    this.heap = heap;
    this.javaOptions = javaOptions;
    this.stopAllowance = stopAllowance;
  }
}
