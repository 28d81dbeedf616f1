package io.sluice.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.app.config.ConfigDefinitions;
import io.sluice.app.config.ConfigPrefix;
import io.sluice.app.config.SluiceConfig;
import io.sluice.app.up.Supervisor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The files the archive ships beside the jars (src/dist), held against the code so they cannot drift: conf/sluice.yaml
 * sets every setting that has a default at that default and shows every other one, and the systemd unit gives
 * {@code sluice up} the time its ordered stop takes.
 */
class DistributionFilesTest {
  private static final Path DIST = Path.of("src/dist");
  /** A setting shown but off: {@code #key: value}, the {@code #} right before the key (a remark is {@code # text}). */
  private static final Pattern OFF = Pattern.compile("^(\\s*)#([a-z][\\w.-]*:.*)$");

  @Test
  void theShippedConfigurationSetsEveryDefaultAtItsDefaultAndNothingElse() {
    SluiceConfig shipped = SluiceConfig.load(Optional.of(DIST.resolve("conf/sluice.yaml")), Map.of());
    assertEquals(ConfigDefinitions.defaults(), shipped.values());
    assertEquals(ConfigDefinitions.defaults().keySet(),
        SluiceConfig.readYaml(DIST.resolve("conf/sluice.yaml")).keySet(), "every default written out");
  }

  @Test
  void theShippedConfigurationShowsEverySetting(@TempDir Path dir) throws Exception {
    List<String> lines = new ArrayList<>();
    for (String line : Files.readAllLines(DIST.resolve("conf/sluice.yaml"))) {
      Matcher m = OFF.matcher(line);
      lines.add(m.matches() ? m.group(1) + m.group(2) : line);
    }
    Path uncommented = Files.write(dir.resolve("all.yaml"), lines);
    Set<String> shown = SluiceConfig.readYaml(uncommented).keySet();
    Set<String> missing = new TreeSet<>();
    ConfigDefinitions.keys().forEach(k -> missing.add(k.name()));
    missing.removeAll(shown);
    assertEquals(Set.of(), missing, "settings conf/sluice.yaml does not show");
    for (ConfigPrefix prefix : ConfigDefinitions.prefixes()) {
      assertTrue(shown.stream().anyMatch(k -> k.startsWith(prefix.prefix())), "an example of " + prefix.prefix() + "*");
    }
    Set<String> unknown = new TreeSet<>(shown);
    unknown.removeIf(ConfigDefinitions::known);
    assertEquals(Set.of(), unknown, "conf/sluice.yaml shows keys Sluice does not read");
  }

  @Test
  void theSystemdUnitRunsUpAsItsOwnUserAndWaitsForTheOrderedStop() throws Exception {
    String unit = Files.readString(DIST.resolve("systemd/sluice.service"));
    assertEquals("/opt/sluice/bin/sluice up --config /etc/sluice/sluice.yaml", setting(unit, "ExecStart"));
    assertEquals("sluice", setting(unit, "User"));
    assertEquals("on-failure", setting(unit, "Restart"));
    assertEquals("SIGTERM", setting(unit, "KillSignal"));
    // The signal to sluice up alone: it stops its planes in order; all of them at once would not be.
    assertEquals("mixed", setting(unit, "KillMode"));
    Duration stop = Duration.ofSeconds(Long.parseLong(setting(unit, "TimeoutStopSec")));
    assertTrue(stop.compareTo(Supervisor.stopTime()) > 0,
        "TimeoutStopSec " + stop + " must exceed the planes' stop times");
  }

  private static String setting(String unit, String name) {
    return unit.lines().filter(l -> l.startsWith(name + "=")).map(l -> l.substring(name.length() + 1).strip())
        .findFirst().orElseThrow(() -> new AssertionError("no " + name + "= in the unit"));
  }
}
