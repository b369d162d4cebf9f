package dev.stagecraft.planner.service.source;

/**
 * A workspace's configuration in a git repository (docs/workspaces.md): {@code url} (https, ssh or
 * git), the branch or tag to follow ({@code ref}: a branch name, {@code refs/heads/B} or {@code
 * refs/tags/T}), the {@code directory} inside it that holds the configuration ({@code ""} for the
 * root), the credentials to fetch with, and whether a push that changes nothing under {@code
 * directory} still starts a run ({@code triggerOnAnyPath}).
 */
public record GitSource(
    String url,
    String ref,
    String directory,
    GitCredentials credentials,
    boolean triggerOnAnyPath) {

  public GitSource {
    directory = directory == null ? "" : directory;
    credentials = credentials == null ? new GitCredentials.None() : credentials;
  }
}
