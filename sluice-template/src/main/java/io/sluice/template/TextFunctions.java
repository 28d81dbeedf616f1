package io.sluice.template;

import io.sluice.template.Template.TemplateFunction;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import com.google.re2j.Pattern;

/**
 * The string functions Prometheus's and Alertmanager's template sets both add to Go's builtins, with the same
 * meaning in each: {@code toUpper}, {@code toLower}, {@code title}, {@code match}, {@code reReplaceAll},
 * {@code safeHtml}.
 */
public final class TextFunctions {
  private TextFunctions() {}

  public static final Map<String, TemplateFunction> ALL;

  static {
    Map<String, TemplateFunction> all = new HashMap<>();
    all.put("toUpper", a -> Builtins.string(a.get(0)).toUpperCase(Locale.ROOT));
    all.put("toLower", a -> Builtins.string(a.get(0)).toLowerCase(Locale.ROOT));
    all.put("title", a -> title(Builtins.string(a.get(0))));
    all.put("match", a -> Pattern.compile(Builtins.string(a.get(0))).matcher(Builtins.string(a.get(1))).find());
    all.put("reReplaceAll", a -> Pattern.compile(Builtins.string(a.get(0))).matcher(Builtins.string(a.get(2)))
        .replaceAll(goReplacement(Builtins.string(a.get(1)))));
    all.put("safeHtml", a -> Builtins.string(a.get(0)));
    ALL = Map.copyOf(all);
  }

  /** Go's regexp replacement syntax ($1, ${1}, $name) in Java's (which reads $1 and ${name} alike). */
  private static String goReplacement(String r) {
    return r.replace("\\", "\\\\").replaceAll("\\$(\\d+)([A-Za-z_])", "\\${$1}$2");
  }

  /** Go's {@code strings.Title}: the first letter of every word upper-cased. */
  private static String title(String s) {
    StringBuilder sb = new StringBuilder();
    boolean prevLetter = false;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      sb.append(!prevLetter ? Character.toTitleCase(c) : c);
      prevLetter = Character.isLetterOrDigit(c) || c == '_' || c == '\'';
    }
    return sb.toString();
  }

}
