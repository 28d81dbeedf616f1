package io.sluice.app.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The reference of every {@code sluice.yaml} setting in {@code docs/configuration.md}, made from
 * {@link ConfigDefinitions}: the part between {@link #BEGIN} and {@link #END} is this class's output and nothing else,
 * and {@code ConfigReferenceTest} fails when the file holds anything different.
 */
public final class ConfigReference {
  /** How to bring the document in line with the table, as the test's failure says it. */
  public static final String REGENERATE = "nice -n 19 ./mvnw -B -o test -pl sluice-app -am -Dtest=ConfigReferenceTest "
      + "-Dsurefire.failIfNoSpecifiedTests=false -Dsluice.docs.write=true";
  public static final String BEGIN = "<!-- BEGIN GENERATED from ConfigDefinitions (sluice-app): do not edit by hand; "
      + "regenerate with: " + REGENERATE + " -->";
  public static final String END = "<!-- END GENERATED -->";

  private ConfigReference() {}

  /** The reference: one row per entry of the table, in its order. */
  public static String markdown() {
    List<String> lines = new ArrayList<>();
    lines.add("| key | value | default | flag | what it is for |");
    lines.add("|---|---|---|---|---|");
    for (ConfigDefinition d : ConfigDefinitions.ALL) {
      lines.add(row(d));
    }
    return String.join("\n", lines) + "\n";
  }

  private static String row(ConfigDefinition d) {
    // Java 17: no pattern switch over the sealed interface; these are its three kinds.
    if (d instanceof ConfigKey<?> k) {
      String doc = k.doc() + (k.aliases().isEmpty() ? ""
          : " Also read under its older name" + (k.aliases().size() == 1 ? " " : "s ") + code(k.aliases()) + ".")
          + k.flag().filter(f -> !f.oldNames().isEmpty())
              .map(f -> " The flag's older name " + code(f.oldNames()) + " still works.").orElse("");
      return cells(code(k.name()), k.type().allowed(), k.defaultValue().map(ConfigReference::code).orElse("none"),
          k.flag().map(f -> code(f.name() + " " + f.label())).orElse(""), doc);
    }
    if (d instanceof ComponentKeys<?> c) {
      return cells(code("<component>." + c.base().name()), c.base().type().allowed(), code(c.base().name()), "",
          d.doc() + " Components: " + code(c.components()) + "." + oldComponents(c));
    }
    ConfigPrefix p = (ConfigPrefix) d;
    return cells(code(p.prefix() + "*"), "the engine's own", "none", code("--set " + p.prefix() + "KEY=VALUE"),
        p.doc() + " Example: " + code(p.example()) + ".");
  }

  /** The older names of components still read, as the row of their keys says them. */
  private static String oldComponents(ComponentKeys<?> c) {
    return c.oldComponents().entrySet().stream().sorted(Map.Entry.comparingByKey())
        .map(e -> " " + code(c.name(e.getValue())) + " is also read under its older name " + code(e.getKey() + "."
            + c.base().name()) + ".")
        .collect(Collectors.joining());
  }

  private static String code(List<String> names) {
    return String.join(", ", names.stream().map(ConfigReference::code).toList());
  }

  private static String code(String text) {
    return "`" + text + "`";
  }

  private static String cells(String... cells) {
    return "| " + String.join(" | ", List.of(cells).stream().map(c -> c.replace("|", "\\|")).toList()) + " |";
  }

  /**
   * {@code document} with the part between the markers replaced by {@link #markdown()}; an
   * {@link IllegalArgumentException} when the markers are missing.
   */
  public static String rewrite(String document) {
    int begin = document.indexOf(BEGIN);
    int end = document.indexOf(END);
    if (begin < 0 || end < begin) {
      throw new IllegalArgumentException("the document has no " + BEGIN + " … " + END + " to fill");
    }
    return document.substring(0, begin + BEGIN.length()) + "\n" + markdown() + document.substring(end);
  }
}
