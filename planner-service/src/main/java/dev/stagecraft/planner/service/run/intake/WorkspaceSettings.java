package dev.stagecraft.planner.service.run.intake;

import dev.stagecraft.planner.service.run.RunRequest;

/**
 * The settings of a workspace that decide how a submitted run goes: without {@code autoApply} the
 * run waits for a decision at {@code planned}; {@code parallelism} bounds its concurrent actions
 * (unless the submission names its own); with {@code coalescing} it asks for the lock with a
 * coalescing key, so a newer run with the same key replaces it while it is queued (docs/adr/0023);
 * {@code stepTimeoutSeconds} bounds each step without a timeout of its own.
 */
public record WorkspaceSettings(
    boolean autoApply, int parallelism, boolean coalescing, int stepTimeoutSeconds) {
  /**
   * A workspace's settings until changed: auto-apply, parallelism 10, no coalescing, steps of at
   * most {@link RunRequest#DEFAULT_STEP_TIMEOUT_SECONDS}.
   */
  public static final WorkspaceSettings DEFAULTS =
      new WorkspaceSettings(true, 10, false, RunRequest.DEFAULT_STEP_TIMEOUT_SECONDS);

  /** Settings with the default step timeout. */
  public WorkspaceSettings(boolean autoApply, int parallelism, boolean coalescing) {
    this(autoApply, parallelism, coalescing, RunRequest.DEFAULT_STEP_TIMEOUT_SECONDS);
  }
}
