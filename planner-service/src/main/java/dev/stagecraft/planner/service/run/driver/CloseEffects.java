package dev.stagecraft.planner.service.run.driver;

import dev.stagecraft.planner.service.run.UploadedFiles;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect;
import dev.stagecraft.planner.service.run.lifecycle.RunState;
import java.nio.file.Path;

/**
 * Carries out what a run's end asks of the handler ({@link RunEffect.Close}, part of the run's
 * {@link EffectHandler}, docs/adr/0073), as {@code RunCoordinator.finish} does: the run's uploaded
 * files deleted (nothing reads them once the run is terminal), its lease no longer renewed (the
 * decider stops the heartbeat before it releases the lock; a renewal still scheduled is cancelled
 * here all the same). The run's journal was closed by its terminal transition ({@code
 * Run.recordTransition}); the admission slot is freed by {@link AdmissionEffects}, the opened state
 * forgotten by {@link OpenEffects}, which also see {@code Close}.
 *
 * <p>Concurrency: called by each run's driver thread; holds no per-run state.
 */
public final class CloseEffects {

  /** The run's files: {@code Run.takeFilesDir}, null when there are none (or taken already). */
  @FunctionalInterface
  public interface Files {
    Path take();
  }

  private final LockEffects lockEffects;

  public CloseEffects(LockEffects lockEffects) {
    this.lockEffects = lockEffects;
  }

  /**
   * Carries out {@code effect} when it is {@link RunEffect.Close}.
   *
   * @return false always: {@code Close} is also left to the other parts of the handler
   */
  public boolean handle(RunEffect effect, RunState state, Files files) {
    if (effect instanceof RunEffect.Close) {
      lockEffects.stopHeartbeat(state.runId());
      UploadedFiles.delete(files.take());
    }
    return false;
  }
}
