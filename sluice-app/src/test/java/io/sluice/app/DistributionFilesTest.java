package io.sluice.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.app.config.ConfigDefinitions;
import io.sluice.app.config.SluiceConfig;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
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
    assertEquals(SluiceConfig.defaults(), shipped.values());
    assertEquals(SluiceConfig.defaults().keySet(),
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
    Set<String> missing = new TreeSet<>(ConfigDefinitions.KEYS);
    missing.removeAll(shown);
    assertEquals(Set.of(), missing, "settings conf/sluice.yaml does not show");
    for (String prefix : ConfigDefinitions.PREFIXES) {
      assertTrue(shown.stream().anyMatch(k -> k.startsWith(prefix)), "an example of " + prefix + "*");
    }
    Set<String> unknown = new TreeSet<>(shown);
    unknown.removeIf(SluiceConfig::known);
    assertEquals(Set.of(), unknown, "conf/sluice.yaml shows keys Sluice does not read");
  }

  @Test
  void everySettingSluiceConfigNamesIsAKnownOne() throws Exception {
    for (Field f : SluiceConfig.class.getFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
        String key = (String) f.get(null);
        assertTrue(key.endsWith(".") ? ConfigDefinitions.PREFIXES.contains(key) : ConfigDefinitions.KEYS.contains(key)
            || key.equals(ConfigDefinitions.WEB_CONFIG_FILE) || key.equals(ConfigDefinitions.WEB_ROLES_FILE),
            f.getName() + " (" + key + ") missing from ConfigDefinitions.KEYS or PREFIXES");
      }
    }
    assertTrue(SluiceConfig.known("metrics.web.config.file") && SluiceConfig.known("ui.web.roles.file"));
    assertTrue(!SluiceConfig.known("kafka.prot") && !SluiceConfig.known("connect.worker.")
        && !SluiceConfig.known("broker.web.config.file"));
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
    assertTrue(stop.compareTo(Supervisor.CONTROL_STOP.plus(Supervisor.DATA_STOP)) > 0,
        "TimeoutStopSec " + stop + " must exceed the planes' stop times");
  }

  private static String setting(String unit, String name) {
    return unit.lines().filter(l -> l.startsWith(name + "=")).map(l -> l.substring(name.length() + 1).strip())
        .findFirst().orElseThrow(() -> new AssertionError("no " + name + "= in the unit"));
  }
}
