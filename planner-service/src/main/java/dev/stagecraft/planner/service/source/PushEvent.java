package dev.stagecraft.planner.service.source;

import java.util.List;

/**
 * One repository push as a forge's webhook reports it, in the terms the push webhook needs.
 *
 * @param repositoryUrls every URL the payload gives for the repository (https, git, ssh, web)
 * @param ref the pushed ref ({@code refs/heads/B}, {@code refs/tags/T})
 * @param after the commit the ref points to after the push (40 zeros: the ref was deleted)
 * @param changedPaths the paths the pushed commits add, modify or remove; null when the payload
 *     does not list them all (then every workspace counts as touched)
 * @param pusher who pushed (a user name)
 * @param subject the first line of the head commit's message ({@code ""} when none is given)
 */
public record PushEvent(
    List<String> repositoryUrls,
    String ref,
    String after,
    List<String> changedPaths,
    String pusher,
    String subject) {
  private static final String ZEROS = "0".repeat(40);

  public PushEvent {
    repositoryUrls = List.copyOf(repositoryUrls);
    changedPaths = changedPaths == null ? null : List.copyOf(changedPaths);
  }

  /** The pushed branch, or null when the push is not to a branch (a tag, a note, …). */
  public String branch() {
    return ref != null && ref.startsWith(GitSourceRules.HEADS)
        ? ref.substring(GitSourceRules.HEADS.length())
        : null;
  }

  /** True when the push deleted the ref. */
  public boolean deleted() {
    return after == null || after.equals(ZEROS);
  }

  /** True when a commit of the push changed something at or below {@code directory}. */
  public boolean touches(String directory) {
    if (changedPaths == null) {
      return true;
    }
    return changedPaths.stream().anyMatch(p -> GitSourceRules.under(p, directory));
  }

  /** The run's message: {@code pushed by <pusher>: <subject>}. */
  public String message() {
    String who = pusher == null || pusher.isBlank() ? "someone" : pusher;
    return subject == null || subject.isBlank()
        ? "pushed by " + who
        : "pushed by " + who + ": " + subject;
  }
}
