package io.sluice.app.up;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.app.Main;
import io.sluice.app.cli.StopSignal;
import io.sluice.app.config.SluiceConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code sluice plane data|control}: one plane of a {@code sluice up}, as the {@link Supervisor} starts it. Not for
 * people: the supervisor writes the whole configuration as one line of JSON on its standard input ({@link Handoff})
 * and keeps that input open; its end means the supervisor is gone, and the plane stops. The plane answers with one
 * line, {@code sluice plane ready name=address …}, once its components answer.
 */
@Command(name = "plane", hidden = true, description = "One plane of sluice up, started by it (not for direct use).")
public final class PlaneCommand implements Callable<Integer> {
  private static final Logger log = LoggerFactory.getLogger(PlaneCommand.class);
  static final String READY = "sluice plane ready";
  /** The line a plane that cannot start ends with, its reason after it, for the supervisor to say. */
  static final String FAILED = "sluice plane failed";
  /** The lines a plane says while it stops ({@link Stopping}). */
  static final String STOPPING = "sluice plane stopping";

  @Parameters(index = "0", description = "data or control")
  String plane;

  /**
   * What the supervisor hands each plane: the configuration after flags, the internal user (null where no surface asks
   * for credentials), the plugins.
   */
  record Handoff(Map<String, String> config, WebSurfaces.InternalUser internalUser, String plugins) {
    private static final ObjectMapper JSON = new ObjectMapper();

    String toJson() {
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("config", config);
      if (internalUser != null) {
        out.put("internalPassword", internalUser.password());
        out.put("internalHash", internalUser.hash());
      }
      out.put("plugins", plugins);
      try {
        return JSON.writeValueAsString(out);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }

    static Handoff fromJson(String line) throws IOException {
      JsonNode n = JSON.readTree(line);
      Map<String, String> config = new LinkedHashMap<>();
      n.path("config").fields().forEachRemaining(e -> config.put(e.getKey(), e.getValue().asText()));
      WebSurfaces.InternalUser internal = n.path("internalPassword").isTextual()
          ? new WebSurfaces.InternalUser(n.get("internalPassword").asText(), n.path("internalHash").asText())
          : null;
      return new Handoff(config, internal, n.path("plugins").asText());
    }

    @Override
    public String toString() {
      return "Handoff[" + config.size() + " settings, plugins " + plugins + "]";
    }
  }

  /**
   * What a plane says while it stops, at once and whenever it changes: the Connect tasks it still runs, which its
   * supervisor's {@link StopAllowance} follows, and the step it is at, which the supervisor names should it kill the
   * plane after its allowance.
   */
  record Stopping(int tasks, String step) {
    /** The last step of a plane whose JVM writes its class-data archive as it exits. */
    static final String RECORDING = "its exit, recording its class-data archive";
    private static final Pattern LINE = Pattern.compile(Pattern.quote(STOPPING) + " tasks=(\\d+) (.*)");

    String line() {
      return STOPPING + " tasks=" + tasks + " " + step;
    }

    static Optional<Stopping> parse(String line) {
      Matcher m = LINE.matcher(line);
      return m.matches() ? Optional.of(new Stopping(Integer.parseInt(m.group(1)), m.group(2))) : Optional.empty();
    }
  }

  /** The plane named, run without picocli (see {@link Main#main}); its exit status. */
  public static int run(String plane) {
    PlaneCommand command = new PlaneCommand();
    command.plane = plane;
    try {
      return command.call();
    } catch (IOException | RuntimeException e) {
      e.printStackTrace();
      return 1;
    }
  }

  @Override
  public Integer call() throws IOException {
    if (!plane.equals("data") && !plane.equals("control")) {
      System.err.println("sluice: plane is data or control, not " + plane);
      return 2;
    }
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line = in.readLine();
    if (line == null) {
      System.err.println("sluice: sluice plane reads its configuration from sluice up on its standard input");
      return 2;
    }
    Handoff handoff = Handoff.fromJson(line);
    StopSignal stop = StopSignal.install(false);
    Thread orphan = new Thread(() -> {
      try {
        while (in.read() >= 0) {
          // Nothing more is sent; the supervisor only holds the pipe open while it lives.
        }
      } catch (IOException e) {
        // The pipe broke: the same as its end.
      }
      log.warn("sluice up is gone; stopping the {} plane", plane);
      stop.stop();
    }, "sluice-supervisor-watch");
    orphan.setDaemon(true);
    orphan.start();

    AutoCloseable running;
    Map<String, String> urls;
    try {
      SluiceConfig config = new SluiceConfig(handoff.config());
      WebSurfaces web = WebSurfaces.load(config, handoff.internalUser());
      Map<String, String> dataUrls = DataPlane.expectedUrls(config, web.scheme());
      if (plane.equals("data")) {
        DataPlane data = DataPlane.start(config, Path.of(handoff.plugins()), web);
        running = data;
        urls = data.urls();
      } else {
        ControlPlane control = ControlPlane.start(config, web, config.kafkaCluster(dataUrls.get("kafka")), dataUrls);
        running = control;
        urls = control.urls();
      }
    } catch (SluiceConfig.ConfigException e) {
      return failed(e.getMessage(), 2);
    } catch (RuntimeException e) {
      log.error("the {} plane could not start", plane, e);
      return failed(e.getMessage(), 1);
    }
    System.out.println(Platform.readyLine(urls).replaceFirst("^sluice ready", READY));
    System.out.flush();
    stop.await();
    try {
      if (running instanceof DataPlane data) {
        data.close(PlaneCommand::say);
      } else {
        say(new Stopping(0, "its components"));
        running.close();
      }
    } catch (Exception e) {
      log.warn("the {} plane did not stop cleanly", plane, e);
    }
    // What is left is the JVM's exit, which after a build also writes the plane's class-data archive: on a loaded
    // machine, longer than the rest of the stop (42 s of the data plane's 51 s in bench/ FleetBenchmark at load 40).
    say(new Stopping(0, ClassDataArchive.recordedAtExit() ? Stopping.RECORDING : "its exit"));
    return stop.status();
  }

  private static void say(Stopping stopping) {
    System.out.println(stopping.line());
    System.out.flush();
  }

  private static int failed(String reason, int status) {
    System.out.println(FAILED + " " + String.valueOf(reason).replaceAll("\\s*\\R\\s*", " "));
    System.out.flush();
    return status;
  }
}
