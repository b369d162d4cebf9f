package dev.stagecraft.planner.service.run.intake;

/** Where a submission's workspace settings come from. */
@FunctionalInterface
public interface Workspaces {
  /**
   * The workspace's settings; a workspace a submission names first is created with the defaults.
   *
   * @throws RuntimeException when they cannot be read: nothing is started (a trigger is retried;
   *     the API answers an error)
   */
  WorkspaceSettings settingsOf(String tenant, String workspace);

  /** Every workspace has {@link WorkspaceSettings#DEFAULTS}. */
  Workspaces DEFAULTS = (tenant, workspace) -> WorkspaceSettings.DEFAULTS;
}
