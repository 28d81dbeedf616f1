import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * Writes the licenses of what a Sluice distribution bundles, at build time ({@code java Licenses.java HOME REPOSITORY
 * VERSION}, run by the sluice-app build after lib/ and plugins/ are laid out):
 *
 * <ul>
 *   <li>{@code HOME/licenses/THIRD-PARTY.txt}: every jar under lib/ and plugins/, its Maven coordinates and the
 *       licenses its pom declares, or the nearest parent pom that does (from the local Maven repository the build
 *       resolved them into);
 *   <li>{@code HOME/licenses/NOTICE.txt}: the NOTICE files the jars carry (Apache-2.0 section 4d), each text once with
 *       the jars that carry it;
 *   <li>{@code HOME/licenses/LICENSE-TEXTS.txt}: the license files the jars carry (the copyright lines MIT and BSD
 *       licenses ask to be kept), likewise.
 * </ul>
 *
 * A jar whose license cannot be found is listed as {@code UNKNOWN}: InstallIT fails on it, so a new dependency cannot
 * ship without its license being known. JDK classes only: it runs as a single source file, before any module of ours
 * could be on a class path.
 */
public final class Licenses {
  static final String UNKNOWN = "UNKNOWN";

  private final Path repository;
  private final Map<String, Path> repositoryJars = new HashMap<>();
  private final Map<Path, Optional<Element>> poms = new HashMap<>();

  Licenses(Path repository) {
    this.repository = repository;
  }

  /** One bundled jar as the files list it. */
  record Bundled(String path, String coordinates, List<String> licenses) {}

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: java Licenses.java DISTRIBUTION_HOME LOCAL_REPOSITORY VERSION");
      System.exit(2);
    }
    Path home = Path.of(args[0]);
    Licenses licenses = new Licenses(Path.of(args[1]));
    List<Path> jars = new ArrayList<>();
    try (Stream<Path> lib = Files.list(home.resolve("lib")); Stream<Path> plugins = Files.walk(home.resolve("plugins"))) {
      jars.addAll(lib.filter(p -> p.toString().endsWith(".jar")).sorted().toList());
      jars.addAll(plugins.filter(p -> p.toString().endsWith(".jar")).sorted().toList());
    }
    List<Bundled> bundled = new ArrayList<>();
    Map<String, Set<String>> notices = new LinkedHashMap<>();
    Map<String, Set<String>> licenseTexts = new LinkedHashMap<>();
    for (Path jar : jars) {
      String where = home.relativize(jar).toString();
      bundled.add(licenses.describe(jar, where));
      for (String text : texts(jar, "NOTICE")) {
        notices.computeIfAbsent(text, t -> new LinkedHashSet<>()).add(where);
      }
      for (String text : texts(jar, "LICENSE")) {
        licenseTexts.computeIfAbsent(text, t -> new LinkedHashSet<>()).add(where);
      }
    }
    Path out = Files.createDirectories(home.resolve("licenses"));
    Files.writeString(out.resolve("THIRD-PARTY.txt"), thirdParty(args[2], bundled));
    Files.writeString(out.resolve("NOTICE.txt"), textsFile(args[2], "NOTICE", notices));
    Files.writeString(out.resolve("LICENSE-TEXTS.txt"), textsFile(args[2], "license", licenseTexts));
    long unknown = bundled.stream().filter(b -> b.licenses().contains(UNKNOWN)).count();
    System.out.println("licenses: " + bundled.size() + " jars, " + notices.size() + " distinct NOTICE texts"
        + (unknown > 0 ? ", " + unknown + " without a known license" : ""));
  }

  static String thirdParty(String version, List<Bundled> bundled) {
    StringBuilder sb = new StringBuilder();
    sb.append("Sluice ").append(version).append(" bundles the jars below: where each is, its Maven coordinates, and the\n")
        .append("licenses its pom (or the nearest parent pom) declares. The NOTICE files they carry are in NOTICE.txt.\n")
        .append("Sluice's own jars (io.sluice) are marked as such.\n\n");
    for (Bundled b : bundled) {
      sb.append(b.path()).append('\n')
          .append("    ").append(b.coordinates()).append('\n')
          .append("    ").append(String.join("; ", b.licenses())).append('\n');
    }
    return sb.toString();
  }

  static String textsFile(String version, String what, Map<String, Set<String>> texts) {
    StringBuilder sb = new StringBuilder();
    sb.append("Sluice ").append(version).append(": the ").append(what)
        .append(" files of the jars it bundles, each text once, after the jars that carry it.\n");
    texts.forEach((text, jars) -> {
      sb.append("\n").append("=".repeat(100)).append('\n');
      jars.forEach(j -> sb.append(j).append('\n'));
      sb.append("-".repeat(100)).append('\n').append(text).append('\n');
    });
    return sb.toString();
  }

  /** The coordinates and licenses of one jar. */
  Bundled describe(Path jar, String where) throws IOException {
    Optional<String[]> gav = coordinatesInside(jar).or(() -> coordinatesInRepository(jar));
    if (gav.isEmpty()) {
      return new Bundled(where, "(no Maven coordinates found)", List.of(manifestLicense(jar).orElse(UNKNOWN)));
    }
    String[] c = gav.get();
    String coordinates = c[0] + ":" + c[1] + ":" + c[2];
    if (c[0].equals("io.sluice")) {
      return new Bundled(where, coordinates, List.of("Sluice (this distribution)"));
    }
    List<String> licenses = licenses(c[0], c[1], c[2], embeddedPom(jar, c[0], c[1]), 0);
    if (licenses.isEmpty()) {
      licenses = List.of(manifestLicense(jar).orElse(UNKNOWN));
    }
    return new Bundled(where, coordinates, licenses);
  }

  /** From {@code META-INF/maven/G/A/pom.properties}: the one that names this jar, or the only one. */
  static Optional<String[]> coordinatesInside(Path jar) throws IOException {
    String name = jar.getFileName().toString();
    List<String[]> found = new ArrayList<>();
    try (JarFile j = new JarFile(jar.toFile())) {
      for (ZipEntry e : j.stream().filter(e -> e.getName().startsWith("META-INF/maven/")
          && e.getName().endsWith("/pom.properties")).toList()) {
        Properties p = new Properties();
        try (InputStream in = j.getInputStream(e)) {
          p.load(in);
        }
        String g = p.getProperty("groupId");
        String a = p.getProperty("artifactId");
        String v = p.getProperty("version");
        if (g != null && a != null && v != null) {
          found.add(new String[] {g, a, v});
        }
      }
    }
    return found.stream().filter(c -> name.startsWith(c[1] + "-" + c[2])).findFirst()
        .or(() -> found.size() == 1 ? Optional.of(found.get(0)) : Optional.empty());
  }

  /** From where a jar of the same name lies in the local repository: {@code G/A/V/A-V.jar}. */
  Optional<String[]> coordinatesInRepository(Path jar) {
    if (repositoryJars.isEmpty()) {
      try (Stream<Path> all = Files.walk(repository)) {
        all.filter(p -> p.toString().endsWith(".jar"))
            .forEach(p -> repositoryJars.putIfAbsent(p.getFileName().toString(), p));
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    Path found = repositoryJars.get(jar.getFileName().toString());
    if (found == null) {
      return Optional.empty();
    }
    Path rel = repository.relativize(found);
    int n = rel.getNameCount();
    if (n < 4) {
      return Optional.empty();
    }
    String group = rel.subpath(0, n - 3).toString().replace(rel.getFileSystem().getSeparator(), ".");
    return Optional.of(new String[] {group, rel.getName(n - 3).toString(), rel.getName(n - 2).toString()});
  }

  /** The licenses of a pom, else of its parents, nearest first; empty when none declares any. */
  private List<String> licenses(String g, String a, String v, Optional<Element> fallback, int depth) {
    if (depth > 10) {
      return List.of();
    }
    Optional<Element> pom = pom(g, a, v).or(() -> fallback);
    if (pom.isEmpty()) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    for (Element license : children(child(pom.get(), "licenses"), "license")) {
      String name = text(license, "name");
      String url = text(license, "url");
      if (!name.isEmpty() || !url.isEmpty()) {
        out.add(name.isEmpty() ? url : url.isEmpty() ? name : name + " (" + url + ")");
      }
    }
    if (!out.isEmpty()) {
      return out;
    }
    Element parent = child(pom.get(), "parent");
    if (parent == null) {
      return List.of();
    }
    return licenses(text(parent, "groupId"), text(parent, "artifactId"), text(parent, "version"), Optional.empty(),
        depth + 1);
  }

  private Optional<Element> pom(String g, String a, String v) {
    Path file = repository.resolve(g.replace('.', '/')).resolve(a).resolve(v).resolve(a + "-" + v + ".pom");
    return poms.computeIfAbsent(file, f -> {
      if (!Files.isRegularFile(f)) {
        return Optional.empty();
      }
      try (InputStream in = Files.newInputStream(f)) {
        return Optional.of(parse(in));
      } catch (Exception e) {
        return Optional.empty();
      }
    });
  }

  /** The pom a jar carries of itself, for one the local repository does not hold. */
  private static Optional<Element> embeddedPom(Path jar, String g, String a) throws IOException {
    try (JarFile j = new JarFile(jar.toFile())) {
      ZipEntry e = j.getEntry("META-INF/maven/" + g + "/" + a + "/pom.xml");
      if (e == null) {
        return Optional.empty();
      }
      try (InputStream in = j.getInputStream(e)) {
        return Optional.of(parse(in));
      } catch (Exception broken) {
        return Optional.empty();
      }
    }
  }

  private static Element parse(InputStream in) throws Exception {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setNamespaceAware(false);
    f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
    Document d = f.newDocumentBuilder().parse(in);
    return d.getDocumentElement();
  }

  private static Optional<String> manifestLicense(Path jar) throws IOException {
    try (JarFile j = new JarFile(jar.toFile())) {
      Manifest m = j.getManifest();
      String license = m == null ? null : m.getMainAttributes().getValue("Bundle-License");
      return Optional.ofNullable(license).filter(s -> !s.isBlank()).map(s -> s + " (from the jar's manifest)");
    }
  }

  /** The texts of the files named {@code NAME*} at a jar's root or in its META-INF ({@code NOTICE}, {@code LICENSE}). */
  static List<String> texts(Path jar, String name) throws IOException {
    List<String> out = new ArrayList<>();
    try (JarFile j = new JarFile(jar.toFile())) {
      List<? extends ZipEntry> entries = j.stream().filter(e -> !e.isDirectory()).filter(e -> {
        String n = e.getName();
        String base = n.startsWith("META-INF/") ? n.substring("META-INF/".length()) : n;
        return !base.contains("/") && base.toUpperCase(java.util.Locale.ROOT).startsWith(name);
      }).sorted((x, y) -> x.getName().compareTo(y.getName())).toList();
      for (ZipEntry e : entries) {
        try (InputStream in = j.getInputStream(e)) {
          String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
          if (!text.isEmpty()) {
            out.add(text);
          }
        }
      }
    }
    return out;
  }

  private static Element child(Element parent, String name) {
    if (parent == null) {
      return null;
    }
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(name)) {
        return e;
      }
    }
    return null;
  }

  private static List<Element> children(Element parent, String name) {
    List<Element> out = new ArrayList<>();
    if (parent == null) {
      return out;
    }
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(name)) {
        out.add(e);
      }
    }
    return out;
  }

  private static String text(Element parent, String name) {
    Element e = child(parent, name);
    return e == null ? "" : e.getTextContent().strip().replaceAll("\\s+", " ");
  }
}
