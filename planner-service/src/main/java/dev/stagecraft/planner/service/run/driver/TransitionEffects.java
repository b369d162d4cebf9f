package dev.stagecraft.planner.service.run.driver;

import dev.stagecraft.planner.service.run.RunStatus;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.Transitioned;
import dev.stagecraft.planner.service.run.lifecycle.RunSettings;
import dev.stagecraft.planner.service.run.lifecycle.RunState;
import java.time.Clock;
import java.time.Instant;

/**
 * Carries out a run's transition effects (part of the run's {@link EffectHandler}, docs/adr/0073),
 * as {@code RunCoordinator.transition} does: {@link RunEffect.RecordTransition} hands the
 * transition to the run's {@link Records} ({@code Run.recordTransition}: the journal at once, the
 * observer's record on the run's recording lane), {@link RunEffect.PublishTransition} hands {@code
 * run.transitioned} to the producer through the {@link TransitionPublisher} — with the plan's
 * digest and the approval deadline for a run waiting for approval. Nothing waits for a commit; the
 * driver hands the effects over in the order the decider asked for them, so records and events keep
 * the run's sequence order.
 *
 * <p>Concurrency: called by each run's driver thread; holds no per-run state.
 */
public final class TransitionEffects {

  /** Where one run's transitions are recorded: {@code Run.recordTransition} with the observer. */
  @FunctionalInterface
  public interface Records {
    void transitioned(long sequence, RunStatus status, String message, Instant at);
  }

  private final TransitionPublisher publisher;
  private final Clock clock;

  public TransitionEffects(TransitionPublisher publisher, Clock clock) {
    this.publisher = publisher;
    this.clock = clock;
  }

  /**
   * Carries out {@code effect} when it is a transition effect.
   *
   * @return false when it is not one
   */
  public boolean handle(RunEffect effect, RunState state, Records records) {
    switch (effect) {
      case RunEffect.RecordTransition r -> {
        Transitioned t = r.transition();
        records.transitioned(t.sequence(), t.to(), t.message(), clock.instant());
        return true;
      }
      case RunEffect.PublishTransition p -> {
        Transitioned t = p.transition();
        RunSettings s = state.settings();
        publisher.publish(
            s.tenant(),
            s.workspace(),
            state.runId(),
            t.sequence(),
            t.to(),
            t.message(),
            p.planDigest(),
            p.approvalExpiresAt());
        return true;
      }
      default -> {
        return false;
      }
    }
  }
}
