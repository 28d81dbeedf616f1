import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
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
 * <p>The allow-list holds one entry a line: the test as the report names it ({@code pkg.Class#method}, or {@code
 * pkg.Class} for all of a class), white space, then the reason it may skip. Blank lines and lines starting with
 * {@code #} are comments; an entry without a reason is refused.
 *
 * <p>Run with Java's source launcher: {@code java .ci/TestReports.java --allow .ci/allowed-skips [--newer-than
 * FILE] ROOT}; with {@code --newer-than}, reports older than FILE (left by an earlier run) are passed over.
 */
public final class TestReports {
  private static final Set<String> REPORT_FOLDERS = Set.of("surefire-reports", "failsafe-reports");
  private static final Set<String> PASSED_OVER = Set.of(".git", "node_modules", "src", ".mvn");

  record Totals(int tests, int failures, int errors, int skipped) {
    Totals plus(Totals o) {
      return new Totals(tests + o.tests, failures + o.failures, errors + o.errors, skipped + o.skipped);
    }
  }

  public static void main(String[] args) throws Exception {
    Path allowFile = null;
    Path since = null;
    List<Path> roots = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--allow") && i + 1 < args.length) {
        allowFile = Path.of(args[++i]);
      } else if (args[i].equals("--newer-than") && i + 1 < args.length) {
        since = Path.of(args[++i]);
      } else {
        roots.add(Path.of(args[i]));
      }
    }
    if (roots.isEmpty()) {
      System.err.println("usage: java TestReports.java [--allow FILE] [--newer-than FILE] ROOT...");
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

    TreeSet<String> used = new TreeSet<>();
    List<String> unexplained = new ArrayList<>();
    int allowedSkips = 0;
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
        System.out.println("note: " + allowFile + " lists " + entry + ", which did not skip: remove the entry");
      }
    }
    for (String test : unexplained) {
      problems.add("skipped: " + test + (test.contains("#") ? "" : " (the class ran no test: its @BeforeAll was"
          + " aborted, or it has none)") + (allowFile == null ? "" : ", not in " + allowFile));
    }
    for (String test : failed) {
      problems.add("failed: " + test);
    }

    for (String p : problems) {
      System.out.println(p);
    }
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
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    Element root = factory.newDocumentBuilder().parse(report.toFile()).getDocumentElement();
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
