import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Checks the relative links of every Markdown file of the repository: the file or directory a link
 * names must exist, and a {@code #anchor} on a link to a Markdown file (or on a link within the
 * same file) must name one of its headings, slugged as GitHub does (lowercase; letters, digits,
 * '-', '_' and spaces kept, spaces turned into '-', everything else dropped; a repeated heading
 * gets -1, -2, ...). External links (any URL scheme: http, https, mailto, ...) are not checked;
 * links inside code blocks and code spans are not links.
 *
 * <p>Run with a JDK 21+, no build needed: {@code java dev/CheckLinks.java [repo]}. Prints one line
 * per broken link, {@code file:line: link -> why}, and exits 1 if there is any.
 */
public class CheckLinks {

  private static final Set<String> SKIPPED_DIRS = Set.of(".git", "target", "node_modules");
  private static final Pattern INLINE_LINK =
      Pattern.compile(
          "!?\\[([^\\]]*)\\]\\(\\s*(<[^>]*>|[^\\s()]*(?:\\([^\\s()]*\\)[^\\s()]*)*)"
              + "(?:\\s+(?:\"[^\"]*\"|'[^']*'))?\\s*\\)");
  private static final Pattern REFERENCE_DEFINITION =
      Pattern.compile("^ {0,3}\\[([^\\]]+)\\]:\\s*(<[^>]*>|\\S+)");
  private static final Pattern ATX_HEADING = Pattern.compile("^ {0,3}(#{1,6})(?:\\s+(.*?))?\\s*$");
  private static final Pattern HTML_ANCHOR =
      Pattern.compile("<a\\s[^>]*(?:name|id)\\s*=\\s*\"([^\"]+)\"", Pattern.CASE_INSENSITIVE);
  private static final Pattern CODE_SPAN = Pattern.compile("(`+)(.+?)\\1", Pattern.DOTALL);
  private static final Pattern FENCE = Pattern.compile("^ {0,3}(`{3,}|~{3,})");
  private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:");

  private final Path root;
  private final Map<Path, Set<String>> anchorsByFile = new HashMap<>();
  private final List<String> problems = new ArrayList<>();

  CheckLinks(Path root) {
    this.root = root;
  }

  public static void main(String[] args) throws IOException, InterruptedException {
    Path root = Path.of(args.length > 0 ? args[0] : ".").toAbsolutePath().normalize();
    CheckLinks check = new CheckLinks(root);
    List<Path> files = check.markdownFiles();
    for (Path file : files) {
      check.checkFile(file);
    }
    check.problems.forEach(System.out::println);
    if (!check.problems.isEmpty()) {
      System.err.println(
          check.problems.size() + " broken link(s) in " + files.size() + " Markdown files");
      System.exit(1);
    }
    System.err.println("links: " + files.size() + " Markdown files checked, no broken link");
  }

  /** The tracked Markdown files ({@code git ls-files}), or all of them when git cannot say. */
  List<Path> markdownFiles() throws IOException, InterruptedException {
    List<Path> files = new ArrayList<>();
    try {
      Process git =
          new ProcessBuilder("git", "-C", root.toString(), "ls-files", "-z", "--", "*.md")
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (git.waitFor() == 0) {
        for (String name : out.split("\0")) {
          if (!name.isEmpty() && Files.isRegularFile(root.resolve(name))) {
            files.add(root.resolve(name).normalize());
          }
        }
        return files;
      }
    } catch (IOException notGit) {
      // no git on the machine: walk the tree instead
    }
    try (Stream<Path> walk = Files.walk(root)) {
      walk.filter(p -> p.toString().endsWith(".md"))
          .filter(Files::isRegularFile)
          .filter(p -> root.relativize(p).toString().isEmpty() || !inSkippedDir(root.relativize(p)))
          .sorted()
          .forEach(files::add);
    }
    return files;
  }

  private static boolean inSkippedDir(Path relative) {
    for (Path part : relative) {
      if (SKIPPED_DIRS.contains(part.toString())) {
        return true;
      }
    }
    return false;
  }

  void checkFile(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    // A link's text may wrap: links are looked for in each paragraph (consecutive lines outside
    // code blocks), joined with '\n', and reported at the line where they start.
    StringBuilder paragraph = new StringBuilder();
    List<Integer> starts = new ArrayList<>(); // offset in paragraph -> line, by index
    int firstLine = 0;
    String fence = null;
    for (int i = 0; i <= lines.size(); i++) {
      String line = i < lines.size() ? lines.get(i) : "";
      boolean code = false;
      Matcher f = FENCE.matcher(line);
      if (i < lines.size() && f.find()) {
        String marker = f.group(1);
        if (fence == null) {
          fence = marker;
          code = true;
        } else if (marker.charAt(0) == fence.charAt(0) && marker.length() >= fence.length()) {
          fence = null;
          code = true;
        }
      }
      code |= fence != null;
      if (code || line.isBlank()) {
        checkParagraph(file, paragraph.toString(), starts, firstLine);
        paragraph.setLength(0);
        starts.clear();
        continue;
      }
      if (paragraph.isEmpty()) {
        firstLine = i + 1;
      } else {
        paragraph.append('\n');
      }
      starts.add(paragraph.length());
      paragraph.append(line);
    }
  }

  private void checkParagraph(Path file, String text, List<Integer> starts, int firstLine)
      throws IOException {
    if (text.isEmpty()) {
      return;
    }
    text = blankCodeSpans(text);
    for (int k = 0; k < starts.size(); k++) {
      int end = k + 1 < starts.size() ? starts.get(k + 1) - 1 : text.length();
      Matcher ref = REFERENCE_DEFINITION.matcher(text.substring(starts.get(k), end));
      if (ref.find()) {
        checkLink(file, firstLine + k, ref.group(2));
      }
    }
    Matcher m = INLINE_LINK.matcher(text);
    while (m.find()) {
      int k = 0;
      while (k + 1 < starts.size() && starts.get(k + 1) <= m.start()) {
        k++;
      }
      checkLink(file, firstLine + k, m.group(2));
    }
  }

  private static String blankCodeSpans(String line) {
    Matcher m = CODE_SPAN.matcher(line);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(out, " ".repeat(m.group().length()));
    }
    m.appendTail(out);
    return out.toString();
  }

  private void checkLink(Path file, int lineNumber, String rawTarget) throws IOException {
    String target = rawTarget;
    if (target.startsWith("<") && target.endsWith(">")) {
      target = target.substring(1, target.length() - 1);
    }
    if (target.isEmpty() || SCHEME.matcher(target).find()) {
      return;
    }
    int hash = target.indexOf('#');
    String pathPart = hash < 0 ? target : target.substring(0, hash);
    String anchor = hash < 0 ? null : target.substring(hash + 1);
    int query = pathPart.indexOf('?');
    if (query >= 0) {
      pathPart = pathPart.substring(0, query);
    }
    Path resolved;
    if (pathPart.isEmpty()) {
      resolved = file;
    } else {
      String decoded = decode(pathPart);
      resolved =
          (decoded.startsWith("/") ? root.resolve(decoded.substring(1)) : file.getParent().resolve(decoded))
              .normalize();
      if (!resolved.startsWith(root)) {
        report(file, lineNumber, rawTarget, "points outside the repository");
        return;
      }
      if (!Files.exists(resolved)) {
        report(file, lineNumber, rawTarget, "no such file: " + root.relativize(resolved));
        return;
      }
    }
    if (anchor == null || anchor.isEmpty() || !resolved.toString().endsWith(".md")) {
      return;
    }
    if (Files.isDirectory(resolved)) {
      return;
    }
    String wanted = decode(anchor).toLowerCase(Locale.ROOT);
    if (!anchors(resolved).contains(wanted)) {
      report(
          file,
          lineNumber,
          rawTarget,
          "no heading '#" + anchor + "' in " + root.relativize(resolved));
    }
  }

  private static String decode(String s) {
    try {
      return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException notEncoded) {
      return s;
    }
  }

  private void report(Path file, int lineNumber, String link, String why) {
    problems.add(root.relativize(file) + ":" + lineNumber + ": " + link + " -> " + why);
  }

  /** The anchors GitHub gives a Markdown file's headings, and explicit {@code <a name/id>}s. */
  Set<String> anchors(Path file) throws IOException {
    Set<String> cached = anchorsByFile.get(file);
    if (cached != null) {
      return cached;
    }
    Set<String> anchors = new HashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    String fence = null;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      Matcher f = FENCE.matcher(line);
      if (f.find()) {
        String marker = f.group(1);
        if (fence == null) {
          fence = marker;
          continue;
        }
        if (marker.charAt(0) == fence.charAt(0) && marker.length() >= fence.length()) {
          fence = null;
          continue;
        }
      }
      if (fence != null) {
        continue;
      }
      Matcher html = HTML_ANCHOR.matcher(line);
      while (html.find()) {
        anchors.add(html.group(1).toLowerCase(Locale.ROOT));
      }
      String heading = null;
      Matcher atx = ATX_HEADING.matcher(line);
      if (atx.matches()) {
        heading = atx.group(2) == null ? "" : atx.group(2).replaceAll("\\s+#+$", "");
      } else if (i + 1 < lines.size()
          && !line.isBlank()
          && lines.get(i + 1).matches("^ {0,3}(=+|-+)\\s*$")
          && !line.startsWith("|")
          && !line.matches("^\\s*([-*+]|\\d+[.)])\\s.*")) {
        heading = line.strip();
      }
      if (heading != null) {
        String slug = slug(heading);
        int n = seen.merge(slug, 1, Integer::sum) - 1;
        anchors.add(n == 0 ? slug : slug + "-" + n);
      }
    }
    anchorsByFile.put(file, anchors);
    return anchors;
  }

  /** GitHub's heading slug: the heading's text, lowercase, without punctuation, spaces to '-'. */
  static String slug(String heading) {
    String text = heading.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1"); // a link: its text
    text = text.replaceAll("<[^>]+>", ""); // inline HTML
    StringBuilder out = new StringBuilder();
    text.toLowerCase(Locale.ROOT)
        .codePoints()
        .forEach(
            c -> {
              int type = Character.getType(c);
              if (Character.isLetterOrDigit(c)
                  || type == Character.NON_SPACING_MARK
                  || type == Character.COMBINING_SPACING_MARK
                  || type == Character.ENCLOSING_MARK
                  || type == Character.LETTER_NUMBER
                  || type == Character.OTHER_NUMBER
                  || type == Character.CONNECTOR_PUNCTUATION
                  || c == '-') {
                out.appendCodePoint(c);
              } else if (c == ' ') {
                out.append('-');
              }
            });
    return out.toString();
  }
}
