package dev.stagecraft.planner.service.source;

/**
 * Where a run's configuration came from, as its record and {@code runs show} say it: the files its
 * request sent ({@code request}), a configuration version ({@code upload}: named by the request or
 * the one last uploaded to the workspace), or the workspace's git repository ({@code git}: the
 * repository, the ref the run resolved and the commit it pinned).
 */
public record RunSource(
    String kind, String repository, String ref, String commit, String configurationVersion) {

  /** The files the request sent. */
  public static RunSource request() {
    return new RunSource("request", null, null, null, null);
  }

  /** A configuration version. */
  public static RunSource upload(String configurationVersion) {
    return new RunSource("upload", null, null, null, configurationVersion);
  }

  /** A commit of a git repository ({@code commit} null when it could not be resolved). */
  public static RunSource git(String repository, String ref, String commit) {
    return new RunSource("git", repository, ref, commit, null);
  }

  /**
   * One line for a person: {@code commit 1a2b3c4 of URL (main)}, {@code configuration version X}.
   */
  public String describe() {
    return switch (kind) {
      case "git" ->
          (commit == null ? "" : "commit " + commit.substring(0, Math.min(12, commit.length())))
              + (commit == null ? "" : " of ")
              + repository
              + (ref == null ? "" : " (" + ref + ")");
      case "upload" -> "configuration version " + configurationVersion;
      default -> "files sent with the request";
    };
  }
}
