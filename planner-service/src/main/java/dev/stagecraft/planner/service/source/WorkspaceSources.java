package dev.stagecraft.planner.service.source;

import java.util.List;
import java.util.Optional;

/** Where each workspace's configuration comes from, as its admin set it (docs/workspaces.md). */
public interface WorkspaceSources {
  /**
   * The workspace's git source (credentials opened, in memory only); empty for a workspace whose
   * runs use the configuration version last uploaded to it, or the files a request sends.
   *
   * @throws RuntimeException when it cannot be read: nothing is started
   */
  Optional<GitSource> gitSourceOf(String tenant, String workspace);

  /** The tenant's workspaces that follow {@code repositoryUrls} (any of them) at {@code branch}. */
  List<String> following(String tenant, List<String> repositoryUrls, String branch);

  /** No workspace has a git source. */
  WorkspaceSources NONE =
      new WorkspaceSources() {
        @Override
        public Optional<GitSource> gitSourceOf(String tenant, String workspace) {
          return Optional.empty();
        }

        @Override
        public List<String> following(String tenant, List<String> repositoryUrls, String branch) {
          return List.of();
        }
      };
}
