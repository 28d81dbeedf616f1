package io.sluice.template;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.template.Template.Environment;
import io.sluice.template.Template.Members;
import io.sluice.template.Template.TemplateException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TemplateTest {
  static String run(String text, Object data) {
    return Template.parse("t", text, TextFunctions.ALL).execute(data);
  }

  @Test
  void pipelinesVariablesAndControl() {
    Map<String, Object> data = Map.of("Labels", Map.of("job", "api", "instance", "a:1"), "Value", 2.5);
    assertEquals("api a:1 2.5", run("{{ $l := .Labels }}{{ $l.job }} {{ .Labels.instance }} {{ .Value }}", data));
    assertEquals("API", run("{{ .Labels.job | toUpper }}", data));
    assertEquals("instance=a:1,job=api,", run("{{ range $k, $v := .Labels }}{{ $k }}={{ $v }},{{ end }}", data));
    assertEquals("big", run("{{ if gt .Value 3.0 }}huge{{ else if gt .Value 2.0 }}big{{ else }}small{{ end }}", data));
    assertEquals("x", run("  {{- \"x\" -}}  ", data));
    assertEquals("", run("{{ .Labels.missing }}", data), "a missing label is empty (missingkey=zero)");
  }

  @Test
  void breakAndContinueEndARangeOrAnIterationAsInGo() {
    List<Long> oneTwoThree = List.of(1L, 2L, 3L);
    assertEquals("1", run("{{ range . }}{{ if eq . 2 }}{{ break }}{{ end }}{{ . }}{{ end }}", oneTwoThree));
    assertEquals("13", run("{{ range . }}{{ if eq . 2 }}{{ continue }}{{ end }}{{ . }}{{ end }}", oneTwoThree));
    assertEquals("a", run("{{ range . }}a{{ break }}b{{ end }}", oneTwoThree), "what came before stays");
    assertEquals("[1][2]", run("{{ range . }}{{ range . }}{{ break }}{{ end }}{{ . }}{{ end }}",
        List.of(List.of(1L), List.of(2L))), "the innermost range only");
    assertEquals("", run("{{ range . }}{{ break }}{{ else }}empty{{ end }}", oneTwoThree), "else is for no items");
    assertEquals("0:1,2:3,", run("{{ range $i, $v := . }}{{ if eq $i 1 }}{{ continue }}{{ end }}{{ $i }}:{{ $v }},"
        + "{{ end }}", oneTwoThree));
    assertEquals("1-", run("{{ range . }}{{ with . }}{{ . }}-{{ break }}{{ end }}{{ end }}", oneTwoThree));
  }

  @Test
  void breakAndContinueOutsideARangeAreGoParseErrors() {
    for (String[] c : new String[][] {
        {"{{ break }}", "template: t:1: {{break}} outside {{range}}"},
        {"{{ if true }}\n{{ continue }}{{ end }}", "template: t:2: {{continue}} outside {{range}}"},
        {"{{ range . }}{{ else }}{{ break }}{{ end }}", "template: t:1: {{break}} outside {{range}}"},
        {"{{ range . }}{{ block \"b\" . }}{{ continue }}{{ end }}{{ end }}",
            "template: t:1: {{continue}} outside {{range}}"},
        {"{{ range . }}{{ break 1 }}{{ end }}", "template: t:1: unexpected \"1\" in {{break}}"},
        {"{{ range . }}{{ continue .Field }}{{ end }}", "template: t:1: unexpected \".Field\" in {{continue}}"},
    }) {
      TemplateException e = assertThrows(TemplateException.class, () -> Template.parse("t", c[0], Map.of()), c[0]);
      assertEquals(c[1], e.getMessage(), c[0]);
    }
    // A function of that name takes the word back, as Go's lexer does.
    assertEquals("called", Template.parse("t", "{{ break }}", Map.of("break", a -> "called")).execute(null));
  }

  @Test
  void defineAndTemplate() {
    String text = """
        {{- define "item" }}<{{ . }}>{{ end -}}
        {{- define "list" }}{{ range . }}{{ template "item" . }}{{ end }}{{ end -}}
        {{ template "list" .Names }}|{{ template "item" }}|{{ block "footer" .Names }}{{ len . }}{{ end }}""";
    Template t = Template.parse("t", text, Map.of());
    assertEquals("<a><b>|<<no value>>|2", t.execute(Map.of("Names", List.of("a", "b"))));
    assertEquals(Set.of("item", "list", "footer"), t.definedNames());
    assertEquals("<z>", t.executeDefinition("item", "z", Environment.NONE));
  }

  @Test
  void definedTemplatesSeeOnlyTheirData() {
    assertThrows(TemplateException.class,
        () -> Template.parse("t", "{{ $x := 1 }}{{ define \"d\" }}{{ $x }}{{ end }}", Map.of()));
    assertEquals("1", run("{{ define \"d\" }}{{ $ }}{{ end }}{{ $x := 1 }}{{ template \"d\" $x }}", null));
  }

  @Test
  void templatesNotDefinedHereComeFromTheCaller() {
    Template t = Template.parse("t", "{{ define \"own\" }}mine{{ end }}{{ template \"own\" }} {{ template \"ext\" 42 }}",
        Map.of());
    Environment env = new Environment(null, (name, dot) -> name.equals("ext") ? "ext of " + dot : null);
    assertEquals("mine ext of 42", t.execute(null, env));
    // Its own definition wins over the caller's.
    Environment shadow = new Environment(null, (name, dot) -> "theirs");
    assertEquals("mine theirs", t.execute(null, shadow));
    TemplateException e = assertThrows(TemplateException.class,
        () -> Template.parse("t", "{{ template \"nope\" . }}", Map.of()).execute(null));
    assertTrue(e.getMessage().contains("template \"nope\" not defined"), e.getMessage());
  }

  @Test
  void aPrinterSeesEveryPrintedValueButNotTheTemplatesText() {
    Template t = Template.parse("t", "{{ define \"in\" }}<i>{{ . }}</i>{{ end }}<b>{{ .a }}</b>{{ $x := .a }}"
        + "{{ template \"in\" .b }}{{ if .a }}!{{ end }}", Map.of());
    Environment env = new Environment(null, null, v -> "[" + GoFormat.print(v) + "]");
    assertEquals("<b>[x<y]</b><i>[2]</i>!", t.execute(Map.of("a", "x<y", "b", 2L), env));
    assertEquals("<b>x<y</b><i>2</i>!", t.execute(Map.of("a", "x<y", "b", 2L)), "Go's printing by default");
  }

  @Test
  void endlessRecursionFailsTheTemplate() {
    Template t = Template.parse("t", "{{ define \"r\" }}{{ template \"r\" . }}{{ end }}{{ template \"r\" . }}", Map.of());
    TemplateException e = assertThrows(TemplateException.class, () -> t.execute(null));
    assertTrue(e.getMessage().contains("exceeded maximum template depth"), e.getMessage());
  }

  @Test
  void defineOnlyAtTopLevelAndClosed() {
    assertThrows(TemplateException.class,
        () -> Template.parse("t", "{{ if true }}{{ define \"x\" }}{{ end }}{{ end }}", Map.of()));
    assertThrows(TemplateException.class, () -> Template.parse("t", "{{ define \"x\" }}{{ if .A }}", Map.of()));
    assertThrows(TemplateException.class, () -> Template.parse("t", "{{ define x }}{{ end }}", Map.of()));
    assertThrows(TemplateException.class, () -> Template.parse("t", "{{ template }}", Map.of()));
  }

  /** A value that is not a map: a counter with a field, a niladic method, and a method taking arguments. */
  record Counter(long n) {}

  static final Members COUNTER_MEMBERS = (receiver, name, args) -> {
    if (receiver instanceof Counter c) {
      return switch (name) {
        case "N" -> c.n();
        case "Next" -> new Counter(c.n() + 1);
        case "Plus" -> c.n() + (Long) args.get(0);
        default -> Members.NONE;
      };
    }
    if (receiver instanceof Map<?, ?> m && name.equals("Names")) {
      return List.copyOf(new java.util.TreeSet<>(m.keySet().stream().map(String::valueOf).toList()));
    }
    return Members.NONE;
  };

  @Test
  void membersOfValuesThatAreNotMaps() {
    Environment env = new Environment(COUNTER_MEMBERS, null);
    Map<String, Object> data = Map.of("C", new Counter(1), "Labels", Map.of("b", "2", "a", "1"));
    Template t = Template.parse("t",
        "{{ .C.N }} {{ .C.Next.Next.N }} {{ .C.Plus 10 }} {{ 5 | .C.Plus }} {{ .Labels.Names }} {{ .Labels.a }}",
        Map.of());
    assertEquals("1 3 11 6 [a b] 1", t.execute(data, env));
    TemplateException e = assertThrows(TemplateException.class,
        () -> Template.parse("t", "{{ .C.Nope }}", Map.of()).execute(data, env));
    assertTrue(e.getMessage().contains("can't evaluate field Nope"), e.getMessage());
    assertThrows(TemplateException.class, () -> Template.parse("t", "{{ .C.N 1 }}", Map.of()).execute(data));
  }

  @Test
  void goFormatting() {
    assertEquals("1e+06 0.5 NaN +Inf -0", run("{{ 1e6 }} {{ 0.5 }} {{ .NaN }} {{ .Inf }} {{ .NegZero }}",
        Map.of("NaN", Double.NaN, "Inf", Double.POSITIVE_INFINITY, "NegZero", -0.0)));
    assertEquals("3.14", run("{{ printf \"%.2f\" 3.14159 }}", null));
    // A count rounds to whole as Go's %.0f does: half to even, on the float's exact value.
    assertEquals("2 2 4 0 1234567", run("{{ printf \"%.0f\" 2.0625 }} {{ printf \"%.0f\" 2.5 }} "
        + "{{ printf \"%.0f\" 3.5 }} {{ printf \"%.0f\" 0.4 }} {{ printf \"%.0f\" 1234567.4 }}", null));
    assertEquals("Connect-HighLag", run("{{ reReplaceAll \"(Connect)(.*)\" \"$1-$2\" \"ConnectHighLag\" }}", null));
  }

  /** A list that prints itself, as a Go slice type with a String method. */
  private static final class Joined extends java.util.ArrayList<String> implements Template.Stringer {
    Joined(List<String> items) {
      super(items);
    }

    @Override
    public String string() {
      return String.join("+", this);
    }
  }

  @Test
  void valuesWithAStringMethodPrintThemselves() {
    Map<String, Object> data = Map.of("parts", new Joined(List.of("a", "b")), "plain", List.of("a", "b"));
    assertEquals("a+b a+b [a b] a;b; 2", run("{{ .parts }} {{ print .parts }} {{ .plain }}"
        + " {{ range .parts }}{{ . }};{{ end }} {{ len .parts }}", data));
  }

  @Test
  void regexFunctionsUseRe2InLinearTime() {
    String hostile = "a".repeat(5_000) + "b";
    org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(10),
        () -> assertEquals("false", run("{{ match \"^(a+)+$\" \"" + hostile + "\" }}", null)));
    assertEquals("x-42", run("{{ reReplaceAll \"id(\\\\d+)\" \"x-$1\" \"id42\" }}", null));
  }
}
