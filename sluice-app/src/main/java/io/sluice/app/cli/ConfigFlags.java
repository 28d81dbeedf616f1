package io.sluice.app.cli;

import io.sluice.app.config.ConfigKey;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.ISetter;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The command-line flags of {@code sluice.yaml} keys, made from their entries in
 * {@link io.sluice.app.config.ConfigDefinitions}: the flag's name, its placeholder, its description and the default it
 * names are the key's. A flag given is put among a command's overrides under the key's name, as it was typed; the
 * key's type judges it with the rest of the configuration, so a bad flag and a bad line in the file get the same
 * message.
 */
public final class ConfigFlags {
  private ConfigFlags() {}

  /** Adds the flag of each of {@code keys} to {@code spec}; a flag given lands in {@code given}. */
  public static void add(CommandSpec spec, List<ConfigKey<?>> keys, Map<String, String> given) {
    for (ConfigKey<?> key : keys) {
      ConfigKey.Flag flag = key.flag().orElseThrow(() -> new IllegalArgumentException(key.name() + " has no flag"));
      ISetter into = new ISetter() {
        @Override
        public <T> T set(T value) {
          if (value != null) {
            given.put(key.name(), value.toString());
          }
          return null;
        }
      };
      spec.addOption(OptionSpec.builder(flag.name()).paramLabel(flag.label()).type(String.class)
          .description(description(key)).setter(into).build());
      // An older name of the flag, which scripts may still give: taken as the flag, not shown in the help.
      for (String old : flag.oldNames()) {
        spec.addOption(OptionSpec.builder(old).paramLabel(flag.label()).type(String.class).hidden(true)
            .description(description(key)).setter(into).build());
      }
    }
  }

  /** The key's doc (its first sentence), the key it sets and its default, as {@code --help} shows them. */
  static String description(ConfigKey<?> key) {
    String doc = key.doc().replace("`", "");
    int end = doc.indexOf(". ");
    String first = end < 0 ? doc : doc.substring(0, end + 1);
    String more = key.name() + key.defaultValue().map(d -> ", default " + d).orElse("");
    // Picocli formats descriptions: a % of ours must reach it doubled.
    return (first.endsWith(".") ? first.substring(0, first.length() - 1) : first).replace("%", "%%")
        + " (" + more.replace("%", "%%") + ")";
  }
}
