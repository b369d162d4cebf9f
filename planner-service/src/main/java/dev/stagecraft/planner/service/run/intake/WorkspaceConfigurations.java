package dev.stagecraft.planner.service.run.intake;

import dev.stagecraft.planner.service.source.FetchedConfiguration;
import dev.stagecraft.planner.service.source.GitFetcher;
import dev.stagecraft.planner.service.source.GitSource;
import dev.stagecraft.planner.service.source.RunSource;
import dev.stagecraft.planner.service.source.SourceUnavailable;
import dev.stagecraft.planner.service.source.WorkspaceSources;
import java.util.Map;
import java.util.Optional;

/**
 * Where a run that names only its workspace gets its configuration (docs/workspaces.md): from the
 * workspace's git repository — at the commit or ref the request names, else at the source's own ref
 * — or else from the configuration version last uploaded to the workspace.
 *
 * <p>Thread-safe when its ports are.
 */
public final class WorkspaceConfigurations {
  /** The configuration version last uploaded to a workspace. */
  @FunctionalInterface
  public interface LatestUploads {
    /**
     * @throws RuntimeException when it cannot be read: nothing is started
     */
    Optional<Upload> latest(String tenant, String workspace);

    /** No workspace has an upload. */
    LatestUploads NONE = (tenant, workspace) -> Optional.empty();
  }

  /** An uploaded configuration version's id and files. */
  public record Upload(
      String versionId, Map<String, String> files, Map<String, byte[]> supportFiles) {}

  /** What the workspace gave. */
  sealed interface Resolution {}

  /** A configuration, and where it came from. */
  record Found(Map<String, String> files, Map<String, byte[]> supportFiles, RunSource source)
      implements Resolution {}

  /** The workspace's source could not give one: the run fails at {@code planning} with why. */
  record Failed(RunSource source, String reason) implements Resolution {}

  /** The workspace has nothing to run (or the request asks what it cannot give): refused. */
  record Missing(String reason) implements Resolution {}

  /** Neither git sources nor uploads. */
  public static final WorkspaceConfigurations NONE =
      new WorkspaceConfigurations(WorkspaceSources.NONE, null, LatestUploads.NONE);

  private final WorkspaceSources sources;
  private final GitFetcher fetcher;
  private final LatestUploads uploads;

  public WorkspaceConfigurations(
      WorkspaceSources sources, GitFetcher fetcher, LatestUploads uploads) {
    this.sources = sources;
    this.fetcher = fetcher;
    this.uploads = uploads;
  }

  /**
   * The configuration of {@code workspace}.
   *
   * @param ref a branch or tag instead of the source's own (null: the source's)
   * @param commit the commit to read (null: the one {@code ref} names now)
   */
  Resolution resolve(String tenant, String workspace, String ref, String commit) {
    Optional<GitSource> git = sources.gitSourceOf(tenant, workspace);
    if (git.isPresent() && fetcher != null) {
      GitSource source = git.get();
      if (ref != null) {
        source =
            new GitSource(
                source.url(),
                ref,
                source.directory(),
                source.credentials(),
                source.triggerOnAnyPath());
      }
      try {
        FetchedConfiguration fetched = fetcher.fetch(tenant, source, commit);
        return new Found(
            fetched.files(),
            fetched.supportFiles(),
            RunSource.git(source.url(), source.ref(), fetched.commit()));
      } catch (SourceUnavailable e) {
        return new Failed(RunSource.git(source.url(), source.ref(), commit), e.getMessage());
      }
    }
    if (ref != null || commit != null) {
      return new Missing(
          "Workspace '"
              + workspace
              + "' does not follow a git repository, so a run of it cannot name a "
              + (commit != null ? "commit" : "ref")
              + ". Set its source (PUT /api/v1/workspaces/"
              + workspace
              + "/source, or stagecraft workspaces set "
              + workspace
              + " -source=git -repo=URL -branch=B), or leave the "
              + (commit != null ? "commit" : "ref")
              + " out.");
    }
    Optional<Upload> upload = uploads.latest(tenant, workspace);
    if (upload.isEmpty()) {
      return new Missing(
          "Workspace '"
              + workspace
              + "' has no configuration: the request sends no files, the workspace follows no"
              + " git repository and no configuration version was uploaded to it. Send \"files\","
              + " upload a configuration version to it (POST"
              + " /api/v1/configuration-versions?workspace="
              + workspace
              + "), or set its git source (PUT /api/v1/workspaces/"
              + workspace
              + "/source).");
    }
    return new Found(
        upload.get().files(),
        upload.get().supportFiles(),
        RunSource.upload(upload.get().versionId()));
  }
}
