import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.ImportTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.PackageTree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.SourcePositions;
import com.sun.source.util.TreeScanner;
import com.sun.source.util.Trees;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * Guards the shape of the main code ({@code <module>/src/main/java}) of the repository, so that no
 * new offender lands (issue 31, item 8 and its acceptance):
 *
 * <ul>
 *   <li>{@code fqn}: no class named fully qualified inline ({@code java.util.List} in code rather
 *       than imported); imports, package lines, strings and comments are not code;
 *   <li>{@code class}: no source file over {@value #MAX_CLASS_LINES} lines;
 *   <li>{@code method}: no method or constructor over {@value #MAX_METHOD_LINES} lines, counted
 *       from its first modifier or annotation to its closing brace (its Javadoc not counted).
 * </ul>
 *
 * <p>Today's offenders are listed in {@code dev/code-shape-allowlist.txt}, each with its size (a
 * cap it may not grow past) and why. The list only shrinks: an entry that no longer offends fails
 * the check until it is removed, and a smaller offender is told its new cap.
 *
 * <p>The files are parsed (not compiled) with javac's tree API ({@code com.sun.source}), so the
 * check needs no build and no classpath. Its limits: names are not resolved, so an inline name is
 * recognised by its shape — a chain of two or more lowercase segments followed by a segment that
 * starts with an uppercase letter ({@code java.util.Map.Entry} reports {@code java.util.Map}); a
 * field chain shaped like a package ({@code config.limits.MAX}, not starting with {@code this})
 * would be reported too, and a one-segment package ({@code foo.Bar}) is not. Overloads of a method share one
 * allow-list entry ({@code Outer.Inner.name}; constructors are named after their class, methods of
 * an anonymous class {@code Outer.<anonymous>.name}).
 *
 * <p>Run with a JDK 21+, no build needed: {@code java dev/CheckCodeShape.java [repo]}. It first runs
 * its own negative cases (fixtures written to a temporary directory, each guard must fire), then
 * checks the repository; prints one line per problem and exits 1 if there is any. {@code dev/test}
 * runs it.
 */
public class CheckCodeShape {

  static final int MAX_CLASS_LINES = 800;
  static final int MAX_METHOD_LINES = 80;
  static final String ALLOWLIST = "dev/code-shape-allowlist.txt";

  private static final Set<String> SKIPPED_DIRS = Set.of(".git", "target", "node_modules");
  private static final Pattern PACKAGE_SEGMENT = Pattern.compile("[a-z][a-z0-9_]*");
  private static final Pattern CLASS_SEGMENT = Pattern.compile("[A-Z][A-Za-z0-9_]*");

  /** One offender: kind (fqn, class, method), allow-list key, size (lines; 0 for fqn), where. */
  record Finding(String kind, String key, int size, String where) {}

  /** One allow-list line: kind, key, cap (lines; 0 for fqn), reason, its line in the list. */
  record Allowed(String kind, String key, int cap, String reason, int line) {}

  public static void main(String[] args) throws IOException {
    List<String> selfTest = selfTest();
    if (!selfTest.isEmpty()) {
      selfTest.forEach(System.out::println);
      System.err.println("code shape: the check's own negative cases failed");
      System.exit(1);
    }
    Path root = Path.of(args.length > 0 ? args[0] : ".").toAbsolutePath().normalize();
    List<Path> files = mainSources(root);
    List<String> notes = new ArrayList<>();
    List<String> problems = check(root, files, readAllowList(root.resolve(ALLOWLIST)), notes);
    notes.forEach(System.err::println);
    problems.forEach(System.out::println);
    if (!problems.isEmpty()) {
      System.err.println(
          problems.size()
              + " code shape problem(s) in "
              + files.size()
              + " main source files (limits and allow-list: "
              + ALLOWLIST
              + ")");
      System.exit(1);
    }
    System.err.println(
        "code shape: "
            + files.size()
            + " main source files checked (inline class names, files over "
            + MAX_CLASS_LINES
            + " lines, methods over "
            + MAX_METHOD_LINES
            + " lines), no new offender");
  }

  /** Every {@code .java} file under a {@code src/main/java} directory, outside build output. */
  static List<Path> mainSources(Path root) throws IOException {
    try (Stream<Path> walk = Files.walk(root)) {
      return walk.filter(p -> p.toString().endsWith(".java"))
          .filter(Files::isRegularFile)
          .filter(p -> isMainSource(root.relativize(p)))
          .sorted()
          .toList();
    }
  }

  private static boolean isMainSource(Path relative) {
    for (Path part : relative) {
      if (SKIPPED_DIRS.contains(part.toString())) {
        return false;
      }
    }
    return relative.toString().replace('\\', '/').contains("src/main/java/");
  }

  /** The problems of {@code files} against {@code allowed}; advice that does not fail in notes. */
  static List<String> check(
      Path root, List<Path> files, List<Allowed> allowed, List<String> notes) throws IOException {
    List<String> problems = new ArrayList<>();
    Map<String, Allowed> byKey = new LinkedHashMap<>();
    for (Allowed a : allowed) {
      String id = a.kind() + " " + a.key();
      if (a.reason().isBlank()) {
        problems.add(ALLOWLIST + ":" + a.line() + ": " + id + " has no reason (after --)");
      }
      if (byKey.put(id, a) != null) {
        problems.add(ALLOWLIST + ":" + a.line() + ": " + id + " is listed twice");
      }
    }
    Map<String, Integer> largest = new TreeMap<>();
    for (Finding f : findings(root, files, problems)) {
      String id = f.kind() + " " + f.key();
      largest.merge(id, f.size(), Math::max);
      Allowed a = byKey.get(id);
      if (a == null) {
        problems.add(f.where() + ": " + advice(f));
      } else if (!f.kind().equals("fqn") && f.size() > a.cap()) {
        problems.add(
            f.where()
                + ": "
                + advice(f)
                + " — it is allow-listed at "
                + a.cap()
                + " lines and may not grow ("
                + ALLOWLIST
                + ":"
                + a.line()
                + ")");
      }
    }
    for (Map.Entry<String, Allowed> e : byKey.entrySet()) {
      Allowed a = e.getValue();
      Integer now = largest.get(e.getKey());
      if (now == null) {
        problems.add(
            ALLOWLIST
                + ":"
                + a.line()
                + ": "
                + e.getKey()
                + " no longer offends: remove it from the allow-list (it only shrinks)");
      } else if (!a.kind().equals("fqn") && now < a.cap()) {
        notes.add(
            ALLOWLIST
                + ":"
                + a.line()
                + ": "
                + e.getKey()
                + " shrank to "
                + now
                + " lines: lower its cap from "
                + a.cap());
      }
    }
    return problems;
  }

  private static String advice(Finding f) {
    return switch (f.kind()) {
      case "fqn" ->
          "class "
              + f.key().substring(f.key().indexOf('#') + 1)
              + " named fully qualified inline: import it (allow-list it only for a real name"
              + " clash, with the reason)";
      case "class" ->
          "file has "
              + f.size()
              + " lines (max "
              + MAX_CLASS_LINES
              + "): split the class along its seams";
      default ->
          "method "
              + f.key().substring(f.key().indexOf('#') + 1)
              + " has "
              + f.size()
              + " lines (max "
              + MAX_METHOD_LINES
              + "): extract its steps into methods or classes";
    };
  }

  /** Parses every file and lists its offenders; a file that does not parse is a problem. */
  static List<Finding> findings(Path root, List<Path> files, List<String> problems)
      throws IOException {
    List<Finding> found = new ArrayList<>();
    if (files.isEmpty()) {
      return found;
    }
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    try (StandardJavaFileManager fm =
        javac.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
      JavacTask task =
          (JavacTask)
              javac.getTask(
                  null,
                  fm,
                  diagnostics,
                  List.of("-proc:none"),
                  null,
                  fm.getJavaFileObjectsFromPaths(files));
      SourcePositions positions = Trees.instance(task).getSourcePositions();
      for (CompilationUnitTree unit : task.parse()) {
        Path file = Path.of(unit.getSourceFile().toUri());
        String rel = root.relativize(file).toString().replace('\\', '/');
        int lines = lineCount(file);
        if (lines > MAX_CLASS_LINES) {
          found.add(new Finding("class", rel, lines, rel + ":1"));
        }
        new Shape(unit, positions, rel, found).scan(unit, null);
      }
    }
    diagnostics.getDiagnostics().stream()
        .filter(d -> d.getKind() == Diagnostic.Kind.ERROR)
        .forEach(
            d ->
                problems.add(
                    d.getSource().getName()
                        + ":"
                        + d.getLineNumber()
                        + ": does not parse: "
                        + d.getMessage(Locale.ROOT)));
    return found;
  }

  private static int lineCount(Path file) {
    try {
      return Files.readAllLines(file, StandardCharsets.UTF_8).size();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Walks one compilation unit: methods' lengths and inline qualified class names. */
  static final class Shape extends TreeScanner<Void, Void> {
    private final CompilationUnitTree unit;
    private final SourcePositions positions;
    private final String rel;
    private final List<Finding> found;
    private final Deque<String> classes = new ArrayDeque<>();

    Shape(CompilationUnitTree unit, SourcePositions positions, String rel, List<Finding> found) {
      this.unit = unit;
      this.positions = positions;
      this.rel = rel;
      this.found = found;
    }

    @Override
    public Void visitPackage(PackageTree tree, Void unused) {
      return null; // the package line names no class
    }

    @Override
    public Void visitImport(ImportTree tree, Void unused) {
      return null; // imports are where qualified names belong
    }

    @Override
    public Void visitClass(ClassTree tree, Void unused) {
      String name = tree.getSimpleName().toString();
      classes.push(name.isEmpty() ? "<anonymous>" : name);
      try {
        return super.visitClass(tree, unused);
      } finally {
        classes.pop();
      }
    }

    @Override
    public Void visitMethod(MethodTree tree, Void unused) {
      if (tree.getBody() != null) {
        long start = positions.getStartPosition(unit, tree);
        long end = positions.getEndPosition(unit, tree);
        int lines =
            (int) (unit.getLineMap().getLineNumber(end) - unit.getLineMap().getLineNumber(start))
                + 1;
        if (lines > MAX_METHOD_LINES) {
          String name =
              tree.getName().contentEquals("<init>") ? classes.peek() : tree.getName().toString();
          List<String> path = new ArrayList<>(classes);
          Collections.reverse(path);
          found.add(
              new Finding(
                  "method",
                  rel + "#" + String.join(".", path) + "." + name,
                  lines,
                  rel + ":" + unit.getLineMap().getLineNumber(start)));
        }
      }
      return super.visitMethod(tree, unused);
    }

    @Override
    public Void visitMemberSelect(MemberSelectTree tree, Void unused) {
      List<String> segments = new ArrayList<>();
      ExpressionTree e = tree;
      while (e instanceof MemberSelectTree select) {
        segments.add(0, select.getIdentifier().toString());
        e = select.getExpression();
      }
      if (e instanceof IdentifierTree first
          && !first.getName().contentEquals("this")
          && !first.getName().contentEquals("super")) {
        segments.add(0, first.getName().toString());
        int k = 0;
        while (k < segments.size() && PACKAGE_SEGMENT.matcher(segments.get(k)).matches()) {
          k++;
        }
        if (k >= 2 && k < segments.size() && CLASS_SEGMENT.matcher(segments.get(k)).matches()) {
          String name = String.join(".", segments.subList(0, k + 1));
          long line = unit.getLineMap().getLineNumber(positions.getStartPosition(unit, tree));
          found.add(new Finding("fqn", rel + "#" + name, 0, rel + ":" + line));
          return null;
        }
      }
      return super.visitMemberSelect(tree, unused);
    }
  }

  /** {@code kind key [cap] -- reason} per line; {@code #} starts a comment line. */
  static List<Allowed> readAllowList(Path file) throws IOException {
    List<Allowed> allowed = new ArrayList<>();
    if (!Files.exists(file)) {
      return allowed;
    }
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int dashes = line.indexOf(" -- ");
      String head = dashes < 0 ? line : line.substring(0, dashes).strip();
      String reason = dashes < 0 ? "" : line.substring(dashes + 4).strip();
      String[] parts = head.split("\\s+");
      boolean sized = parts.length == 3 && !parts[0].equals("fqn");
      boolean fqn = parts.length == 2 && parts[0].equals("fqn");
      if (!sized && !fqn || !Set.of("fqn", "class", "method").contains(parts[0])) {
        throw new IllegalArgumentException(
            file
                + ":"
                + (i + 1)
                + ": expected 'fqn <file>#<name> -- reason' or"
                + " 'class|method <key> <lines> -- reason', got: "
                + line);
      }
      allowed.add(
          new Allowed(parts[0], parts[1], sized ? Integer.parseInt(parts[2]) : 0, reason, i + 1));
    }
    return allowed;
  }

  /**
   * The negative cases: fixtures written to a temporary directory, checked with a small allow-list;
   * answers what differs from the expected problems (empty when the guards work).
   */
  static List<String> selfTest() throws IOException {
    Path root = Files.createTempDirectory("code-shape-fixtures");
    try {
      String fqn =
          """
          package fx;

          import java.util.List;

          /** Mentions java.util.Set in a comment. */
          class Fqn {
            // java.util.Optional in a line comment
            String text = "java.util.Map in a string";
            java.util.Map<String, String> map = new java.util.HashMap<>();
            List<java.util.Map.Entry<String, String>> entries = List.of();
            int max = this.limits.MAX;
            Object uri = java.net.URI.create("x");
            Object allowed = java.time.Instant.now();
          }
          """;
      write(root, "m/src/main/java/fx/Fqn.java", fqn);
      write(root, "m/src/test/java/fx/InTest.java", "class InTest { java.util.List<String> l; }\n");
      write(root, "m/src/main/java/fx/Big.java", "class Big {\n" + "\n".repeat(799) + "}\n");
      write(root, "m/src/main/java/fx/Fits.java", "class Fits {\n" + "\n".repeat(798) + "}\n");
      write(root, "m/src/main/java/fx/Methods.java", methods());
      write(root, "m/target/src/main/java/fx/Built.java", "class Built { java.util.List l; }\n");
      List<Allowed> allowed =
          List.of(
              new Allowed("fqn", "m/src/main/java/fx/Fqn.java#java.time.Instant", 0, "fixture", 1),
              new Allowed("method", "m/src/main/java/fx/Methods.java#Methods.grown", 82, "fx", 2),
              new Allowed("method", "m/src/main/java/fx/Methods.java#Methods.gone", 90, "fx", 3),
              new Allowed("class", "m/src/main/java/fx/Fits.java", 900, "", 4));
      List<String> notes = new ArrayList<>();
      List<String> got = check(root, mainSources(root), allowed, notes);
      List<String> expected =
          List.of(
              "m/src/main/java/fx/Fqn.java:9: class java.util.Map named fully qualified inline",
              "m/src/main/java/fx/Fqn.java:9: class java.util.HashMap named fully qualified inline",
              "m/src/main/java/fx/Fqn.java:10: class java.util.Map named fully qualified inline",
              "m/src/main/java/fx/Fqn.java:12: class java.net.URI named fully qualified inline",
              "m/src/main/java/fx/Big.java:1: file has 801 lines (max 800)",
              "m/src/main/java/fx/Methods.java:3: method Methods.tooLong has 81 lines",
              "m/src/main/java/fx/Methods.java:85: method Methods.<anonymous>.run has 81 lines",
              "m/src/main/java/fx/Methods.java:247: method Methods.grown has 83 lines"
                  + " (max 80): extract its steps into methods or classes — it is allow-listed"
                  + " at 82 lines and may not grow",
              ALLOWLIST + ":3: method m/src/main/java/fx/Methods.java#Methods.gone no longer offends",
              ALLOWLIST + ":4: class m/src/main/java/fx/Fits.java has no reason",
              ALLOWLIST + ":4: class m/src/main/java/fx/Fits.java no longer offends");
      List<String> mismatches = new ArrayList<>();
      for (String e : expected) {
        if (got.stream().noneMatch(g -> g.startsWith(e))) {
          mismatches.add("self-test: expected a problem starting with: " + e);
        }
      }
      for (String g : got) {
        if (expected.stream().noneMatch(g::startsWith)) {
          mismatches.add("self-test: unexpected problem: " + g);
        }
      }
      return mismatches;
    } finally {
      try (Stream<Path> walk = Files.walk(root)) {
        walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /** Fixture: methods of 81 (too long), 80 (fits), 83 (grown past its cap) lines. */
  private static String methods() {
    StringBuilder b = new StringBuilder("class Methods {\n\n"); // lines 1-2
    b.append("  void tooLong() {\n").append("    int a = 0;\n".repeat(79)).append("  }\n"); // 3-83
    b.append("  Runnable r = new Runnable() {\n"); // 84
    b.append("    @Override\n"); // 85
    b.append("    public void run() {\n").append("    int a = 0;\n".repeat(78)).append("  }\n");
    b.append("  };\n"); // 85-165 (81 lines with the annotation), 166
    b.append("  Methods() {\n").append("\n".repeat(78)).append("  }\n"); // 167-246: 80 lines
    b.append("  void grown() {\n").append("\n".repeat(81)).append("  }\n"); // 247-329: 83
    b.append("}\n");
    return b.toString();
  }

  private static void write(Path root, String rel, String text) throws IOException {
    Path file = root.resolve(rel);
    Files.createDirectories(file.getParent());
    Files.writeString(file, text, StandardCharsets.UTF_8);
  }
}
