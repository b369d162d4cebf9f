package dev.stagecraft.planner.service.source;

import java.util.Optional;

/**
 * What a git source may name besides its URL ({@link RepositoryUrls}): a branch or a tag (written
 * as the full ref {@code refs/heads/B} or {@code refs/tags/T}), and a directory inside the
 * repository (relative, {@code /}-separated, no {@code .} or {@code ..}; {@code ""} for the root).
 * Stateless.
 */
public final class GitSourceRules {
  public static final String HEADS = "refs/heads/";
  public static final String TAGS = "refs/tags/";

  private GitSourceRules() {}

  /**
   * Why {@code name} is not a branch or tag name git accepts (as {@code git check-ref-format} would
   * say, in short); empty when it is.
   */
  public static Optional<String> nameProblem(String what, String name) {
    if (name == null || name.isBlank()) {
      return Optional.of("The " + what + " name is empty.");
    }
    boolean control = name.chars().anyMatch(c -> c <= ' ' || c == 0x7f);
    if (control
        || name.contains("..")
        || name.contains("@{")
        || name.contains("//")
        || name.startsWith("/")
        || name.startsWith("-")
        || name.endsWith("/")
        || name.endsWith(".")
        || name.endsWith(".lock")
        || name.chars().anyMatch(c -> "~^:?*[\\".indexOf(c) >= 0)) {
      return Optional.of("'" + name + "' is not a valid git " + what + " name.");
    }
    return Optional.empty();
  }

  /**
   * The full ref of a branch ({@code main} or {@code refs/heads/main} → {@code refs/heads/main}).
   */
  public static String branchRef(String branch) {
    return branch.startsWith(HEADS) ? branch : HEADS + branch;
  }

  /** The full ref of a tag ({@code v1} or {@code refs/tags/v1} → {@code refs/tags/v1}). */
  public static String tagRef(String tag) {
    return tag.startsWith(TAGS) ? tag : TAGS + tag;
  }

  /** The full ref {@code ref} names: a tag ref as is, anything else as a branch. */
  public static String fullRef(String ref) {
    return ref.startsWith(TAGS) ? ref : branchRef(ref);
  }

  /** Why {@code directory} cannot be a source's directory; empty when it can. */
  public static Optional<String> directoryProblem(String directory) {
    if (directory == null || directory.isEmpty()) {
      return Optional.empty();
    }
    if (directory.startsWith("/") || directory.startsWith("\\")) {
      return Optional.of(
          "The directory '"
              + directory
              + "' starts with '/': give it relative to the repository's root, e.g. deploy/prod.");
    }
    for (String segment : normalDirectory(directory).split("/", -1)) {
      if (segment.equals("..") || segment.equals(".") || segment.isEmpty()) {
        return Optional.of(
            "The directory '"
                + directory
                + "' has an empty, '.' or '..' segment: name a directory inside the repository.");
      }
      if (segment.chars().anyMatch(c -> c < ' ' || c == 0x7f || c == '\\')) {
        return Optional.of("The directory '" + directory + "' holds a control character or '\\'.");
      }
    }
    return Optional.empty();
  }

  /** The directory without trailing {@code /}; {@code ""} for the root (or null). */
  public static String normalDirectory(String directory) {
    if (directory == null) {
      return "";
    }
    String d = directory.strip();
    while (d.endsWith("/")) {
      d = d.substring(0, d.length() - 1);
    }
    return d;
  }

  /** True when {@code path} (a repository path) is {@code directory} or below it. */
  public static boolean under(String path, String directory) {
    String d = normalDirectory(directory);
    if (d.isEmpty()) {
      return true;
    }
    return path.equals(d) || path.startsWith(d + "/");
  }
}
