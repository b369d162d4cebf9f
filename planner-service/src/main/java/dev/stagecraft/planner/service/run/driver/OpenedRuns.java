package dev.stagecraft.planner.service.run.driver;

import dev.stagecraft.planner.service.run.WorkspaceStates;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the state service answered when it opened each run (host keys, state; docs/adr/0025), kept
 * by the run's {@link EffectHandler} from {@code OpenRun} until the run ends: planning reads the
 * state and the host keys, dispatching the host keys. Not part of {@code RunState}: no decision
 * depends on it, and the state is large.
 *
 * <p>Concurrency: thread-safe; each run's entry is written and read by its driver's thread.
 */
public final class OpenedRuns {
  private final Map<String, WorkspaceStates.OpenedRun> opened = new ConcurrentHashMap<>();

  void keep(String runId, WorkspaceStates.OpenedRun run) {
    opened.put(runId, run);
  }

  /** What the run opened with, if it is opened and not ended. */
  public Optional<WorkspaceStates.OpenedRun> of(String runId) {
    return Optional.ofNullable(opened.get(runId));
  }

  void forget(String runId) {
    opened.remove(runId);
  }
}
