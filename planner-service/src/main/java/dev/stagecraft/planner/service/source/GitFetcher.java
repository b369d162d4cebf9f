package dev.stagecraft.planner.service.source;

/**
 * Reads a configuration from a git repository (the adapter uses Eclipse JGit: a shallow fetch of
 * the one commit into a cache kept per repository).
 */
public interface GitFetcher {
  /**
   * The configuration of {@code commit} when given (40 hex digits, or a unique prefix of at least
   * 7), else of the commit {@code source.ref()} names now.
   *
   * @throws SourceUnavailable what went wrong, in words a user can act on
   */
  FetchedConfiguration fetch(String tenant, GitSource source, String commit)
      throws SourceUnavailable;
}
