package dev.stagecraft.planner.service.run.lifecycle;

import dev.stagecraft.planner.service.run.RunStatus;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.Transitioned;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The events and effects of one decision of {@link RunDecider} (and {@link ActionDecisions}),
 * applied to the state as they are emitted, with the steps every part of the lifecycle takes the
 * same way: a transition (recorded and published), the end of a run (credential revoked, lock
 * released, then the terminal transition).
 *
 * <p>Plain Java, one decision's scratch pad: not shared between threads.
 */
final class DecisionDraft {
  RunState state;
  private final Duration approvalTimeout;
  private final List<RunEvent> events = new ArrayList<>();
  private final List<RunEffect> effects = new ArrayList<>();

  DecisionDraft(RunState state, Duration approvalTimeout) {
    this.state = state;
    this.approvalTimeout = approvalTimeout;
  }

  void emit(RunEvent event) {
    events.add(event);
    state = RunDecider.apply(state, event);
  }

  void effect(RunEffect effect) {
    effects.add(effect);
  }

  Decision decision() {
    return new Decision(events, effects, Optional.empty());
  }

  Decision decision(Refusal refusal) {
    return new Decision(events, effects, Optional.of(refusal));
  }

  /** Ends the run {@code errored} with {@code message}. */
  Decision failRun(String message) {
    finish(RunStatus.ERRORED, message);
    return decision();
  }

  /**
   * Ends the run in {@code status}: its credential revoked and its lock released before the
   * terminal transition is announced, then the driver closes the run.
   */
  void finish(RunStatus status, String message) {
    RunState s = state;
    if (s.isTerminal()) {
      return;
    }
    if (s.credential() != null) {
      emit(new RunEvent.CredentialRevoked());
      effect(new RunEffect.RevokeCredential());
    }
    if (s.lock() != null) {
      emit(new RunEvent.LockReleased(s.lock().lockId()));
      effect(new RunEffect.StopHeartbeat());
      effect(new RunEffect.ReleaseLock(s.lock().lockId()));
    }
    transition(status, message);
    effect(new RunEffect.Close());
  }

  /** Moves the run to {@code to}: recorded and published (with the approval deadline, if any). */
  void transition(RunStatus to, String message) {
    Transitioned t = new Transitioned(state.status(), to, message, state.sequence() + 1);
    emit(t);
    effect(new RunEffect.RecordTransition(t));
    Optional<Instant> deadline = RunDecider.approvalDeadline(state, approvalTimeout);
    effect(
        new RunEffect.PublishTransition(
            t, deadline.isPresent() ? state.shownDigest() : null, deadline.orElse(null)));
  }
}
