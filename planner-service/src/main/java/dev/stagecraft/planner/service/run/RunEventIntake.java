package dev.stagecraft.planner.service.run;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.planner.plan.PlanResult;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand;
import dev.stagecraft.planner.service.run.lifecycle.RunMessages;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.EventType;
import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.schemas.action.ActionHeartbeat;
import dev.stagecraft.schemas.action.ActionLog;
import dev.stagecraft.schemas.action.ActionStarted;
import dev.stagecraft.schemas.action.ActionStep;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.lock.LockForceUnlocked;
import dev.stagecraft.schemas.lock.LockLeaseExpired;
import dev.stagecraft.schemas.state.StateRecorded;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * Turns the Kafka events about this instance's runs into their commands (docs/adr/0077): lock
 * events ({@code lease-expired}, {@code force-unlocked}) into {@link RunCommand.LockLost}, executor
 * events into {@link RunCommand.ActionStarted}, {@link RunCommand.ActionHeartbeat} and {@link
 * RunCommand.ActionFinished} (their log lines and errors into the run's journal), {@code
 * state.recorded} into {@link RunCommand.StateRecorded} with the postconditions checked against the
 * applied values. An event of a run this instance does not drive is ignored; one that names another
 * tenant's or workspace's run is refused ({@link EventOrigin}).
 *
 * <p>Concurrency: called by the Kafka listener threads; each event is decided by the run's driver
 * (the listener waits, at most {@code Run#ANSWER_WAIT}, for lock events, starts, finishes and
 * outcomes; log lines and heartbeats are only enqueued, in order). A run slow to decide (blocked on
 * a state-service call that is retried) decides the event in turn; the listener goes on.
 */
final class RunEventIntake {
  private final Map<String, Run> runs;
  private final Clock clock;

  RunEventIntake(Map<String, Run> runs, Clock clock) {
    this.runs = runs;
    this.clock = clock;
  }

  /**
   * Handles an event of {@code stagecraft.lock-events}: a {@code dev.stagecraft.lock.lease-expired}
   * for the lock a run of this instance holds (same tenant, workspace, holder = run id, lock id)
   * ends that run {@code errored} at once, as a lost lease at its heartbeat would — nothing more is
   * dispatched and its late writes are refused by fencing. A {@code
   * dev.stagecraft.lock.force-unlocked} of the lock a run holds (holder = run id, same fencing
   * token: the event may name the lock by a client's id) ends the run the same way, naming who
   * forced it and why. Any other event (another type, another instance's or tenant's run, an older
   * lock of the run, a run already ended) is refused by the run's decider, so a redelivered event
   * is harmless. Called by the lock-events listener; thread-safe.
   */
  void onLockEvent(EventEnvelope envelope) {
    if (EventType.LOCK_FORCE_UNLOCKED.type().equals(envelope.type())) {
      LockForceUnlocked forced = EventCodec.data(envelope, LockForceUnlocked.class);
      runOf(envelope, forced.holder())
          .ifPresent(
              run ->
                  run.tell(
                      new RunCommand.LockLost(
                          RunCommand.LockLoss.FORCE_UNLOCKED,
                          forced.lockId(),
                          forced.fencingToken(),
                          RunMessages.forceUnlocked(
                              forced.actor(), forced.reason(), forced.fencingToken()))));
    } else if (EventType.LOCK_LEASE_EXPIRED.type().equals(envelope.type())) {
      LockLeaseExpired expired = EventCodec.data(envelope, LockLeaseExpired.class);
      runOf(envelope, expired.holder())
          .ifPresent(
              run ->
                  run.tell(
                      new RunCommand.LockLost(
                          RunCommand.LockLoss.LEASE_EXPIRED,
                          expired.lockId(),
                          expired.fencingToken(),
                          RunMessages.leaseExpired(
                              expired.recordedAt(), expired.lockId(), expired.fencingToken()))));
    }
  }

  /** The run a lock event's holder names, when it is this instance's run of that workspace. */
  private Optional<Run> runOf(EventEnvelope envelope, String holder) {
    Run run = holder == null ? null : runs.get(holder);
    if (run == null
        || !run.request.tenant().equals(envelope.tenant())
        || !run.request.workspace().equals(envelope.workspace())) {
      return Optional.empty();
    }
    return Optional.of(run);
  }

  /** Handles {@code state.recorded}: the outcome of one action is durable. Idempotent. */
  void onStateRecorded(EventEnvelope envelope) {
    StateRecorded recorded = EventCodec.data(envelope, StateRecorded.class);
    Run run = runs.get(recorded.runId());
    if (run == null) {
      return;
    }
    EventOrigin.requireRun(envelope, run.request, run.id, recorded.runId(), recorded.actionId());
    run.tell(
        new RunCommand.StateRecorded(
            recorded.actionId(),
            recorded.address(),
            recorded.outcome(),
            recorded.error(),
            postconditionFailure(run, recorded),
            clock.instant()));
  }

  /**
   * For a succeeded action whose postconditions fail with the applied values: the rendered
   * diagnostics (nothing that depends on it may run); else null.
   */
  private static String postconditionFailure(Run run, StateRecorded recorded) {
    PlanResult result = run.planResult;
    if (!"succeeded".equals(recorded.outcome())
        || result == null
        || result.applyContext() == null) {
      return null;
    }
    Diagnostics postconditions;
    synchronized (run) {
      if (!run.appliedAttributes.containsKey(recorded.address())) {
        return null; // dispatched before a restart: not this plan's action
      }
      postconditions =
          result
              .applyContext()
              .checkPostconditions(
                  recorded.address(),
                  run.appliedAttributes.get(recorded.address()),
                  run.appliedAttributes);
    }
    return postconditions.hasErrors() ? postconditions.render(run.request.files()).strip() : null;
  }

  /** Handles executor events: streams logs and outcomes into the run's journal. */
  void onActionEvent(EventEnvelope envelope) {
    Run run = envelope.runid() == null ? null : runs.get(envelope.runid());
    if (run == null) {
      return;
    }
    JsonNode data = envelope.data();
    EventOrigin.requireRun(
        envelope,
        run.request,
        run.id,
        data == null || !data.hasNonNull("runId") ? null : data.get("runId").asText(),
        data == null || !data.hasNonNull("actionId") ? null : data.get("actionId").asText());
    Instant now = clock.instant();
    switch (envelope.type()) {
      case "dev.stagecraft.action.log" -> {
        ActionLog log = EventCodec.data(envelope, ActionLog.class);
        run.enqueue(new RunCommand.ActionHeartbeat(log.actionId(), null, now));
        run.journal.log(log.address(), log.stream(), log.line());
      }
      case "dev.stagecraft.action.started" -> {
        ActionStarted started = EventCodec.data(envelope, ActionStarted.class);
        run.tell(new RunCommand.ActionStarted(started.actionId(), started.executorId(), now));
        run.journal.action(started.address(), "started on " + started.executorId());
      }
      case "dev.stagecraft.action.heartbeat" -> {
        ActionHeartbeat beat = EventCodec.data(envelope, ActionHeartbeat.class);
        run.enqueue(
            new RunCommand.ActionHeartbeat(
                beat.actionId(),
                beat.executorId(),
                beat.step(),
                beat.stepType(),
                beat.stepTarget(),
                now));
      }
      case "dev.stagecraft.action.step" -> {
        ActionStep step = EventCodec.data(envelope, ActionStep.class);
        run.enqueue(
            new RunCommand.ActionHeartbeat(
                step.actionId(), step.executorId(), step.index(), step.type(), step.target(), now));
      }
      case "dev.stagecraft.action.finished" -> {
        ActionFinished finished = EventCodec.data(envelope, ActionFinished.class);
        run.tell(
            new RunCommand.ActionFinished(
                finished.actionId(), finished.succeeded(), finished.error()));
        if (!finished.succeeded()) {
          run.journal.action(
              finished.address(),
              "error: "
                  + finished.error()
                  + (finished.exitCode() == null
                      ? ""
                      : " (exit code " + finished.exitCode() + ")"));
        }
      }
      default -> {}
    }
  }
}
