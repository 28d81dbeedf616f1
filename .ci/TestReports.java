import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * CI's reading of a test run: every Surefire and Failsafe report below a folder ({@code target/surefire-reports/*.xml},
 * {@code target/failsafe-reports/*.xml}), so that a green run means every test ran. Exit 1 when a test was skipped
 * without an entry in the allow-list, when a test failed, when a report cannot be read, or when there is no report at
 * all; the totals (tests, failures, errors, skipped) are always the last lines.
 *
 * <p>A skipped test is a {@code <testcase>} with a {@code <skipped>} element, or a test class whose report holds no
 * test at all: JUnit does not report the tests of a class whose {@code @BeforeAll} was aborted (a missing tool outside
 * CI), so an empty report is the only trace such a skip leaves.
 *
 * <p>A test class that never started leaves no report at all (a JVM that ended early, as Jazzer's fuzzing mode ends
 * it, takes every class after it along without an error), so the sources are read too: every module folder below a
 * root (a {@code pom.xml} beside a {@code src/test/java}) must have a report, {@code TEST-<class>.xml} in its {@code
 * target/surefire-reports} or {@code target/failsafe-reports}, for each test class its build runs, or the class "never
 * ran". Which classes the build runs is read from the poms (see {@link #ranByTheBuild}); which of them are test
 * classes, from the sources (see {@link #isTestClass}).
 *
 * <p>The allow-list holds one entry a line: the test as the report names it ({@code pkg.Class#method}, or {@code
 * pkg.Class} for all of a class, which also excuses a class that never ran), white space, then the reason it may
 * skip. Blank lines and lines starting with {@code #} are comments; an entry without a reason is refused.
 *
 * <p>Run with Java's source launcher: {@code java .ci/TestReports.java --allow .ci/allowed-skips [--newer-than
 * FILE] [--profile ID]... ROOT}; with {@code --newer-than}, reports older than FILE (left by an earlier run) are passed
 * over, and a class whose only report is such an old one never ran. {@code --profile} names the Maven profiles of a
 * second run read with the first (which ran with none): a class either run runs is expected.
 */
public final class TestReports {
  private static final Set<String> REPORT_FOLDERS = Set.of("surefire-reports", "failsafe-reports");
  private static final Set<String> PASSED_OVER = Set.of(".git", "node_modules", "src", ".mvn");
  private static final String SUREFIRE = "maven-surefire-plugin";
  private static final String FAILSAFE = "maven-failsafe-plugin";
  /** The plugins' own defaults, used where no pom sets {@code <includes>}. */
  private static final Map<String, List<String>> DEFAULT_INCLUDES = Map.of(
      SUREFIRE, List.of("**/Test*.java", "**/*Test.java", "**/*Tests.java", "**/*TestCase.java"),
      FAILSAFE, List.of("**/IT*.java", "**/*IT.java", "**/*ITCase.java"));
  /** The goal that runs tests: an execution without it runs none. */
  private static final Map<String, String> TEST_GOAL = Map.of(SUREFIRE, "test", FAILSAFE, "integration-test");
  private static final Pattern TEST_ANNOTATION = Pattern.compile(
      "@(?:[\\w.]+\\.)?(?:Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate|FuzzTest)\\b");
  private static final Pattern PACKAGE = Pattern.compile("(?m)^\\s*package\\s+([\\w.]+)\\s*;");

  record Totals(int tests, int failures, int errors, int skipped) {
    Totals plus(Totals o) {
      return new Totals(tests + o.tests, failures + o.failures, errors + o.errors, skipped + o.skipped);
    }
  }

  public static void main(String[] args) throws Exception {
    Path allowFile = null;
    Path since = null;
    Set<String> profiles = new LinkedHashSet<>();
    List<Path> roots = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--allow") && i + 1 < args.length) {
        allowFile = Path.of(args[++i]);
      } else if (args[i].equals("--newer-than") && i + 1 < args.length) {
        since = Path.of(args[++i]);
      } else if (args[i].equals("--profile") && i + 1 < args.length) {
        profiles.add(args[++i]);
      } else {
        roots.add(Path.of(args[i]));
      }
    }
    if (roots.isEmpty()) {
      System.err.println("usage: java TestReports.java [--allow FILE] [--newer-than FILE] [--profile ID]... ROOT...");
      System.exit(2);
    }
    List<String> problems = new ArrayList<>();
    Map<String, String> allowed = allowFile == null ? Map.of() : allowList(allowFile, problems);

    List<Path> reports = new ArrayList<>();
    for (Path root : roots) {
      reports.addAll(reports(root));
    }
    if (since != null) {
      // Reports an earlier run left (a test class since renamed or deleted) are not this run's.
      long start = Files.getLastModifiedTime(since).toMillis();
      reports.removeIf(r -> {
        try {
          return Files.getLastModifiedTime(r).toMillis() < start;
        } catch (IOException e) {
          return false;
        }
      });
    }
    Totals totals = new Totals(0, 0, 0, 0);
    List<String> skipped = new ArrayList<>();
    List<String> failed = new ArrayList<>();
    for (Path report : reports) {
      try {
        totals = totals.plus(read(report, skipped, failed));
      } catch (Exception e) {
        problems.add("cannot read " + report + ": " + e.getMessage());
      }
    }
    if (reports.isEmpty()) {
      problems.add("no Surefire or Failsafe report below " + roots + ": did the tests run?");
    }

    List<Set<String>> runs = profiles.isEmpty() ? List.of(Set.of()) : List.of(Set.of(), profiles);
    List<String> neverRan = new ArrayList<>();
    int testClasses = 0;
    for (Path root : roots) {
      for (Path module : modules(root)) {
        Set<String> reported = new HashSet<>();
        for (Path r : reports) {
          String name = r.getFileName().toString();
          if (r.getParent().getParent().equals(module.resolve("target")) && name.startsWith("TEST-")) {
            reported.add(name.substring("TEST-".length(), name.length() - ".xml".length()));
          }
        }
        try {
          for (String testClass : ranByTheBuild(module, runs, problems)) {
            testClasses++;
            if (!reported.contains(testClass)) {
              neverRan.add(testClass);
            }
          }
        } catch (Exception e) {
          problems.add("cannot read the build of " + module + ": " + e.getMessage());
        }
      }
    }

    TreeSet<String> used = new TreeSet<>();
    List<String> unexplained = new ArrayList<>();
    int allowedSkips = 0;
    List<String> unreported = new ArrayList<>();
    for (String testClass : neverRan) {
      if (allowed.containsKey(testClass)) {
        used.add(testClass);
        System.out.println("never ran, allowed: " + testClass + " (" + allowed.get(testClass) + ")");
      } else {
        unreported.add(testClass);
      }
    }
    for (String test : skipped) {
      String entry = allowed.containsKey(test) ? test : allowed.containsKey(classOf(test)) ? classOf(test) : null;
      if (entry == null) {
        unexplained.add(test);
      } else {
        used.add(entry);
        allowedSkips++;
        System.out.println("skipped, allowed: " + test + " (" + allowed.get(entry) + ")");
      }
    }
    for (String entry : allowed.keySet()) {
      if (!used.contains(entry)) {
        System.out.println("note: " + allowFile + " lists " + entry + ", which did not skip and ran: remove the"
            + " entry");
      }
    }
    for (String test : unexplained) {
      problems.add("skipped: " + test + (test.contains("#") ? "" : " (the class ran no test: its @BeforeAll was"
          + " aborted, or it has none)") + (allowFile == null ? "" : ", not in " + allowFile));
    }
    for (String test : failed) {
      problems.add("failed: " + test);
    }
    for (String testClass : unreported) {
      problems.add("never ran: " + testClass + " (no report; did its JVM end early?)");
    }

    for (String p : problems) {
      System.out.println(p);
    }
    System.out.println("test classes the build runs: " + testClasses + ", without a report: " + neverRan.size()
        + " (" + neverRan.stream().filter(allowed::containsKey).count() + " allowed)");
    System.out.println("reports: " + reports.size() + (problems.isEmpty() ? ", every test ran and passed"
        : ", " + problems.size() + " problem(s) above: the run is not green"));
    System.out.printf("tests: %d, failures: %d, errors: %d, skipped: %d (%d allowed)%n", totals.tests,
        totals.failures, totals.errors, totals.skipped, allowedSkips);
    System.exit(problems.isEmpty() ? 0 : 1);
  }

  /**
   * The reports below {@code root}: the {@code .xml} files of every {@code target/surefire-reports} and {@code
   * target/failsafe-reports}, without walking the rest of a {@code target} folder, sources or {@code node_modules}.
   */
  static List<Path> reports(Path root) throws IOException {
    List<Path> found = new ArrayList<>();
    Files.walkFileTree(root, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
        String name = dir.getFileName() == null ? "" : dir.getFileName().toString();
        Path parent = dir.getParent();
        boolean inTarget = parent != null && parent.getFileName() != null
            && parent.getFileName().toString().equals("target");
        if (inTarget) {
          return REPORT_FOLDERS.contains(name) ? FileVisitResult.CONTINUE : FileVisitResult.SKIP_SUBTREE;
        }
        return PASSED_OVER.contains(name) && !dir.equals(root) ? FileVisitResult.SKIP_SUBTREE
            : FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
        Path dir = file.getParent();
        if (file.toString().endsWith(".xml") && REPORT_FOLDERS.contains(dir.getFileName().toString())
            && dir.getParent() != null && dir.getParent().getFileName().toString().equals("target")) {
          found.add(file);
        }
        return FileVisitResult.CONTINUE;
      }
    });
    found.sort(null);
    return found;
  }

  /**
   * One report's totals; adds its skipped tests to {@code skipped} ({@code Class#method}, or {@code Class} for a class
   * that ran none) and its failed ones to {@code failed}.
   */
  static Totals read(Path report, List<String> skipped, List<String> failed) throws Exception {
    Element root = parse(report);
    List<Element> suites = new ArrayList<>();
    if (root.getTagName().equals("testsuite")) {
      suites.add(root);
    } else if (root.getTagName().equals("testsuites")) {
      NodeList nested = root.getElementsByTagName("testsuite");
      for (int i = 0; i < nested.getLength(); i++) {
        suites.add((Element) nested.item(i));
      }
    } else {
      return new Totals(0, 0, 0, 0); // failsafe-summary.xml and the like: the suites' own reports hold the tests
    }
    Totals totals = new Totals(0, 0, 0, 0);
    for (Element suite : suites) {
      int tests = 0;
      int failures = 0;
      int errors = 0;
      int skips = 0;
      NodeList cases = suite.getElementsByTagName("testcase");
      for (int i = 0; i < cases.getLength(); i++) {
        Element c = (Element) cases.item(i);
        tests++;
        String name = c.getAttribute("name");
        String cls = c.getAttribute("classname").isEmpty() ? suite.getAttribute("name") : c.getAttribute("classname");
        String test = name.isEmpty() ? cls : cls + "#" + name;
        if (c.getElementsByTagName("failure").getLength() > 0) {
          failures++;
          failed.add(test);
        } else if (c.getElementsByTagName("error").getLength() > 0) {
          errors++;
          failed.add(test);
        } else if (c.getElementsByTagName("skipped").getLength() > 0) {
          skips++;
          skipped.add(test);
        }
      }
      if (tests == 0) {
        skips++;
        skipped.add(suite.getAttribute("name"));
      }
      totals = totals.plus(new Totals(tests, failures, errors, skips));
    }
    return totals;
  }

  /**
   * The module folders below {@code root}: each folder with a {@code pom.xml} and a {@code src/test/java}, passing
   * over {@code target}, sources and {@code node_modules} (a fixture project in test resources is no module).
   */
  static List<Path> modules(Path root) throws IOException {
    List<Path> found = new ArrayList<>();
    Files.walkFileTree(root, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
        String name = dir.getFileName() == null ? "" : dir.getFileName().toString();
        if (!dir.equals(root) && (PASSED_OVER.contains(name) || name.equals("target"))) {
          return FileVisitResult.SKIP_SUBTREE;
        }
        if (Files.isRegularFile(dir.resolve("pom.xml")) && Files.isDirectory(dir.resolve("src/test/java"))) {
          found.add(dir);
        }
        return FileVisitResult.CONTINUE;
      }
    });
    found.sort(null);
    return found;
  }

  /**
   * The test classes (fully qualified) the build of {@code module} runs in any of {@code runs}, each run being the
   * set of profiles it activates: the classes of {@code src/test/java} that some execution of Surefire or Failsafe
   * includes and does not exclude, and that are test classes ({@link #isTestClass}).
   *
   * <p>The poms are read as Maven merges them, simplified: the module's pom and its parents (by {@code relativePath},
   * {@code ../pom.xml} by default), nearest first; in each, the plugin in the named profiles before the one in {@code
   * build/plugins} before the one in {@code pluginManagement}. A parameter ({@code includes}, {@code excludes}, {@code
   * skip}, {@code skipTests}, {@code skipITs}, {@code skipExec}) comes from the first execution configuration that sets
   * it, else the first plugin configuration; a list replaces the list below it (an empty one only with {@code
   * combine.self="override"}). Surefire's {@code default-test} runs in every module that is not a {@code pom}; any
   * other execution runs when one of its declarations lists the plugin's test goal and its phase is not {@code none}.
   * Not read: property values ({@code ${...}}: a skip set by a property counts as not set), profiles activated any
   * other way than by name, and {@code -Dtest} on the command line (.ci/run's fault matrix passes {@code -Dtest=none},
   * so its Surefire runs nothing, but its profile leaves Surefire's configuration as the main run has it).
   */
  static Set<String> ranByTheBuild(Path module, List<Set<String>> runs, List<String> problems) throws Exception {
    List<Element> poms = lineage(module.resolve("pom.xml"));
    String packaging = text(child(poms.get(0), "packaging"), "jar");
    Path sources = module.resolve("src/test/java");
    List<Path> files;
    try (Stream<Path> walk = Files.walk(sources)) {
      files = walk.filter(f -> f.toString().endsWith(".java")).sorted().toList();
    }
    Set<String> ran = new TreeSet<>();
    for (Path file : files) {
      String relative = sources.relativize(file).toString().replace('\\', '/');
      if (!includedByARun(relative, poms, packaging, runs, module, problems)) {
        continue;
      }
      String text = Files.readString(file);
      String simpleName = file.getFileName().toString().replaceFirst("\\.java$", "");
      if (isTestClass(simpleName, text)) {
        Matcher pkg = PACKAGE.matcher(text);
        ran.add(pkg.find() ? pkg.group(1) + "." + simpleName : simpleName);
      }
    }
    return ran;
  }

  private static boolean includedByARun(String relative, List<Element> poms, String packaging, List<Set<String>> runs,
      Path module, List<String> problems) {
    for (Set<String> profiles : runs) {
      for (String plugin : List.of(SUREFIRE, FAILSAFE)) {
        for (List<Element> configs : executions(poms, plugin, profiles, packaging)) {
          boolean skipped = Stream.of("skip", "skipTests", "skipITs", "skipExec")
              .anyMatch(p -> "true".equals(text(setting(configs, p), "")));
          if (skipped) {
            continue;
          }
          Element includes = setting(configs, "includes");
          Element excludes = setting(configs, "excludes");
          List<String> in = includes == null ? DEFAULT_INCLUDES.get(plugin) : patterns(includes);
          List<String> out = excludes == null ? List.of() : patterns(excludes);
          if (matchesAny(relative, in, module, problems) && !matchesAny(relative, out, module, problems)) {
            return true;
          }
        }
      }
    }
    return false;
  }

  /**
   * Whether a source file is a test class the JUnit platform runs: the file declares a class of its own name, not
   * {@code abstract} on the line that declares it, and has a test method: an annotation {@code @Test}, {@code
   * @ParameterizedTest}, {@code @RepeatedTest}, {@code @TestFactory}, {@code @TestTemplate} or {@code @FuzzTest}
   * anywhere in its text (of the class or a nested one). That passes over helpers whose names happen to match the
   * patterns (TestTables, TestWorkers) and abstract bases. It reads text, not Java: a class whose tests are all
   * inherited from a base is not expected (none is so written), and a helper that names one of these annotations in a
   * comment is expected and fails the check, which the allow-list can excuse.
   */
  static boolean isTestClass(String simpleName, String text) {
    Matcher declaration = Pattern.compile("\\b(class|interface|enum|record)\\s+" + Pattern.quote(simpleName)
        + "\\b").matcher(text);
    if (!declaration.find() || !declaration.group(1).equals("class")) {
      return false;
    }
    int lineStart = text.lastIndexOf('\n', declaration.start()) + 1;
    if (Pattern.compile("\\babstract\\b").matcher(text.substring(lineStart, declaration.start())).find()) {
      return false;
    }
    return TEST_ANNOTATION.matcher(text).find();
  }

  /** The pom and its parents, nearest first. */
  private static List<Element> lineage(Path pom) throws Exception {
    List<Element> poms = new ArrayList<>();
    Set<Path> seen = new HashSet<>();
    while (pom != null && Files.isRegularFile(pom) && seen.add(pom.toAbsolutePath().normalize())) {
      Element project = parse(pom);
      poms.add(project);
      Element parent = child(project, "parent");
      String relativePath = text(child(parent, "relativePath"), "../pom.xml");
      if (parent == null || relativePath.isEmpty()) {
        break;
      }
      Path next = pom.toAbsolutePath().getParent().resolve(relativePath).normalize();
      pom = Files.isDirectory(next) ? next.resolve("pom.xml") : next;
    }
    return poms;
  }

  /**
   * The executions of {@code plugin} that run tests with {@code profiles} active, each as its configurations, most
   * dominant first: its own (nearest pom first), then the plugin's.
   */
  private static List<List<Element>> executions(List<Element> poms, String plugin, Set<String> profiles,
      String packaging) {
    List<Element> declarations = new ArrayList<>();
    boolean bound = plugin.equals(SUREFIRE) && !packaging.equals("pom");
    for (Element pom : poms) {
      for (Element profile : children(child(pom, "profiles"), "profile")) {
        if (profiles.contains(text(child(profile, "id"), ""))) {
          Element declared = plugin(child(child(profile, "build"), "plugins"), plugin);
          if (declared != null) {
            declarations.add(declared);
            bound = true;
          }
        }
      }
      Element build = child(pom, "build");
      Element declared = plugin(child(build, "plugins"), plugin);
      if (declared != null) {
        declarations.add(declared);
        bound = true;
      }
      Element managed = plugin(child(child(build, "pluginManagement"), "plugins"), plugin);
      if (managed != null) {
        declarations.add(managed);
      }
    }
    if (!bound) {
      return List.of();
    }
    Map<String, List<Element>> configs = new LinkedHashMap<>();
    Map<String, Boolean> runsTests = new LinkedHashMap<>();
    Map<String, String> phases = new LinkedHashMap<>();
    if (plugin.equals(SUREFIRE) && !packaging.equals("pom")) {
      configs.put("default-test", new ArrayList<>());
      runsTests.put("default-test", true);
    }
    for (Element declaration : declarations) {
      for (Element execution : children(child(declaration, "executions"), "execution")) {
        String id = text(child(execution, "id"), "default");
        List<Element> own = configs.computeIfAbsent(id, k -> new ArrayList<>());
        Element config = child(execution, "configuration");
        if (config != null) {
          own.add(config);
        }
        boolean goal = children(child(execution, "goals"), "goal").stream()
            .anyMatch(g -> g.getTextContent().strip().equals(TEST_GOAL.get(plugin)));
        runsTests.merge(id, goal, Boolean::logicalOr);
        String phase = text(child(execution, "phase"), "");
        if (!phase.isEmpty()) {
          phases.putIfAbsent(id, phase);
        }
      }
    }
    List<Element> pluginConfigs = new ArrayList<>();
    for (Element declaration : declarations) {
      Element config = child(declaration, "configuration");
      if (config != null) {
        pluginConfigs.add(config);
      }
    }
    List<List<Element>> executions = new ArrayList<>();
    for (Map.Entry<String, List<Element>> e : configs.entrySet()) {
      if (runsTests.getOrDefault(e.getKey(), false) && !"none".equals(phases.get(e.getKey()))) {
        List<Element> all = new ArrayList<>(e.getValue());
        all.addAll(pluginConfigs);
        executions.add(all);
      }
    }
    return executions;
  }

  private static Element plugin(Element plugins, String artifactId) {
    for (Element p : children(plugins, "plugin")) {
      if (text(child(p, "artifactId"), "").equals(artifactId)) {
        return p;
      }
    }
    return null;
  }

  /** The first configuration that sets {@code name}: a value, a list, or an empty list meant to override. */
  private static Element setting(List<Element> configs, String name) {
    for (Element config : configs) {
      Element e = child(config, name);
      if (e != null && (!children(e, null).isEmpty() || !e.getTextContent().isBlank()
          || e.getAttribute("combine.self").equals("override"))) {
        return e;
      }
    }
    return null;
  }

  /** A list's patterns; an item may hold several, separated by commas, as Surefire reads them. */
  private static List<String> patterns(Element list) {
    List<String> patterns = new ArrayList<>();
    for (Element item : children(list, null)) {
      for (String p : item.getTextContent().split(",")) {
        if (!p.isBlank()) {
          patterns.add(p.strip());
        }
      }
    }
    return patterns;
  }

  /**
   * Whether a source path ({@code io/sluice/FooTest.java}) matches one of Surefire's include or exclude patterns: Ant
   * style ({@code **} any folders, {@code *} and {@code ?} within a name), on the source or the class file, or {@code
   * %regex[...]} on the class file. A method filter ({@code #method}) is passed over: the class runs.
   */
  private static boolean matchesAny(String source, List<String> patterns, Path module, List<String> problems) {
    String classFile = source.replaceFirst("\\.java$", ".class");
    for (String p : patterns) {
      String pattern = p.contains("#") ? p.substring(0, p.indexOf('#')) : p;
      try {
        if (pattern.startsWith("%regex[") && pattern.endsWith("]")) {
          if (Pattern.compile(pattern.substring("%regex[".length(), pattern.length() - 1)).matcher(classFile)
              .matches()) {
            return true;
          }
          continue;
        }
        if (!pattern.endsWith(".java") && !pattern.endsWith(".class")) {
          pattern = pattern + ".java";
        }
        if (ant(pattern).matcher(pattern.endsWith(".class") ? classFile : source).matches()) {
          return true;
        }
      } catch (RuntimeException e) {
        String problem = "cannot read the pattern " + p + " of " + module + "'s build: " + e.getMessage();
        if (!problems.contains(problem)) { // each pattern is read for every source file: said once
          problems.add(problem);
        }
      }
    }
    return false;
  }

  private static Pattern ant(String glob) {
    StringBuilder re = new StringBuilder();
    for (int i = 0; i < glob.length(); i++) {
      char c = glob.charAt(i);
      if (glob.startsWith("**/", i)) {
        re.append("(?:.*/)?");
        i += 2;
      } else if (glob.startsWith("**", i)) {
        re.append(".*");
        i++;
      } else if (c == '*') {
        re.append("[^/]*");
      } else if (c == '?') {
        re.append("[^/]");
      } else {
        re.append(Pattern.quote(String.valueOf(c)));
      }
    }
    return Pattern.compile(re.toString());
  }

  private static Element parse(Path xml) throws Exception {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    return factory.newDocumentBuilder().parse(xml.toFile()).getDocumentElement();
  }

  /** The first child element named {@code name}; null when there is none or {@code parent} is null. */
  private static Element child(Element parent, String name) {
    List<Element> all = children(parent, name);
    return all.isEmpty() ? null : all.get(0);
  }

  /** The child elements named {@code name} (all of them for null), in order; none when {@code parent} is null. */
  private static List<Element> children(Element parent, String name) {
    List<Element> found = new ArrayList<>();
    if (parent == null) {
      return found;
    }
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && (name == null || e.getTagName().equals(name))) {
        found.add(e);
      }
    }
    return found;
  }

  private static String text(Element e, String otherwise) {
    return e == null ? otherwise : e.getTextContent().strip();
  }

  private static String classOf(String test) {
    int hash = test.indexOf('#');
    return hash < 0 ? test : test.substring(0, hash);
  }

  private static Map<String, String> allowList(Path file, List<String> problems) throws IOException {
    Map<String, String> allowed = new LinkedHashMap<>();
    if (!Files.exists(file)) {
      return allowed;
    }
    int n = 0;
    for (String line : Files.readAllLines(file)) {
      n++;
      String l = line.strip();
      if (l.isEmpty() || l.startsWith("#")) {
        continue;
      }
      String[] parts = l.split("\\s+", 2);
      if (parts.length < 2 || parts[1].isBlank()) {
        problems.add(file + ":" + n + ": " + parts[0] + " has no reason: say why it may skip");
      } else {
        allowed.put(parts[0], parts[1].strip());
      }
    }
    return allowed;
  }
}
