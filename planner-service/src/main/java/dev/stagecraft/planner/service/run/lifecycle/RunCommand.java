package dev.stagecraft.planner.service.run.lifecycle;

import dev.stagecraft.planner.service.run.RunStatus;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What may happen to a run, as {@link RunDecider#decide} takes it: requests (HTTP, chat-ops),
 * answers of the ports the driver called for an earlier {@link RunEffect}, events of other services
 * (lock, executors, state) and the passing of time. Time is always in the command; the decider
 * reads no clock.
 */
public sealed interface RunCommand {

  /** A new run was accepted: it records its request and waits for its tenant's admission slot. */
  record Start(String pendingMessage) implements RunCommand {}

  /**
   * A run that a previous life of this planner instance (or a dead instance, on adoption) accepted
   * and that applied nothing is started again under its own id (docs/adr/0029, 0034), from its
   * recorded history.
   *
   * @param recordedStatus the last recorded status: {@code pending}, {@code queued}, {@code
   *     planning} or {@code planned}
   * @param lastSequence the highest recorded event sequence; the run continues {@link
   *     RunDecider#RESUME_SEQUENCE_GAP} above it
   * @param planDigest for a run {@code planned} awaiting approval: the digest shown, else null
   * @param plannedAt when that plan was made (the approval timeout counts from it), else null
   */
  record Resume(
      RunStatus recordedStatus,
      long lastSequence,
      String message,
      String planDigest,
      Instant plannedAt)
      implements RunCommand {}

  /**
   * A run a previous life of this planner instance was applying is carried on, never started again
   * (docs/adr/0035).
   *
   * @param dispatched what it dispatched before the restart, read from {@code stagecraft.actions}
   * @param approvedPlanDigest for a run applying a plan approved as a whole: its recorded digest
   * @param credential the run's state credential its dispatches carried (the latest), or null: the
   *     run takes it back once it holds the lock again, for the proofs of its interrupted reports
   *     (docs/adr/0013), and revokes it when it ends
   */
  record CarryOn(
      long lastSequence,
      String message,
      List<CarriedAction> dispatched,
      String approvedPlanDigest,
      RunCredential credential)
      implements RunCommand {
    public CarryOn {
      dispatched = List.copyOf(dispatched);
    }

    /** A carry-on whose dispatches carried no credential. */
    public CarryOn(
        long lastSequence,
        String message,
        List<CarriedAction> dispatched,
        String approvedPlanDigest) {
      this(lastSequence, message, dispatched, approvedPlanDigest, null);
    }
  }

  /** The run's tenant has a slot for it now (tenant admission). */
  record Admitted() implements RunCommand {}

  /**
   * The run's tenant has no free slot (tenant admission): the run waits {@code queued}, {@code
   * reason} saying why (the tenant's cap or the planner's limit), until {@link Admitted}.
   */
  record AdmissionQueued(String reason) implements RunCommand {}

  /** The workspace lock is held by another run; this one waits at {@code position}. */
  record LockQueued(int position) implements RunCommand {}

  /** The workspace lock is the run's (for a restarted run possibly the very lease it held). */
  record LockGranted(String lockId, long fencingToken) implements RunCommand {}

  /** A newer run with the same coalescing key took this queued run's place (docs/adr/0023). */
  record Superseded(String byRun, String coalescingKey) implements RunCommand {}

  /** Why a run's workspace lock is no longer its own. */
  enum LockLoss {
    /** {@code dev.stagecraft.lock.lease-expired}: matched by lock id. */
    LEASE_EXPIRED,
    /** {@code dev.stagecraft.lock.force-unlocked}: matched by fencing token. */
    FORCE_UNLOCKED,
    /** The lock service refused the run's heartbeat: matched by lock id. */
    HEARTBEAT_REFUSED
  }

  /**
   * The run's workspace lock was lost; {@code message} ({@link RunMessages}) says how. Ignored when
   * it names another lock than the one the run holds (a redelivery, an older lock).
   */
  record LockLost(LockLoss cause, String lockId, long fencingToken, String message)
      implements RunCommand {}

  /**
   * The state service opened the run: its fencing token registered, its credential minted — or
   * {@code credential} null when the state service mints none (the run is opened all the same and
   * plans, as the coordinator runs with such a port).
   */
  record Opened(RunCredential credential) implements RunCommand {}

  /** Opening the run at the state service failed. */
  record OpenFailed(String error) implements RunCommand {}

  /**
   * A carried-on run read the outcomes the state service recorded for its dispatched actions, by
   * action id (docs/adr/0035).
   */
  record CarriedOutcomesRead(Map<String, String> outcomes, Instant at) implements RunCommand {
    public CarriedOutcomesRead {
      outcomes = Map.copyOf(outcomes);
    }
  }

  /**
   * The plan was made against the state at {@code priorSerial}.
   *
   * @param restNotApproved for a carried-on run applying an approved plan: why the rest is not part
   *     of it ({@code CarriedActions#unapprovedRest}), or null when it is
   */
  record Planned(PlanInfo plan, long priorSerial, String restNotApproved, Instant at)
      implements RunCommand {}

  /** The configuration could not be planned (invalid configuration): the rendered diagnostics. */
  record PlanFailed(String diagnostics) implements RunCommand {}

  /** Approve the planned run's plan named by its digest (docs/adr/0005). */
  record Approve(String planDigest, String by, Instant at) implements RunCommand {}

  /** Discard the run waiting for approval. */
  record Discard(String by) implements RunCommand {}

  /** Cancel the run (docs/adr/0007). Idempotent. */
  record CancelRequested(String by) implements RunCommand {}

  /** A dispatched step could not be resolved (its arguments failed to evaluate): it failed. */
  record DispatchFailed(String address, String diagnostics, Instant at) implements RunCommand {}

  /** {@code action.started}: an executor took the action. */
  record ActionStarted(String actionId, String executorId, Instant at) implements RunCommand {}

  /**
   * {@code action.heartbeat}, {@code action.step} or {@code action.log}: the action's executor is
   * alive ({@code executorId} is null for a log line, which does not name it) and runs {@code step}
   * ({@code stepType} on {@code stepTarget}, null for the executor host) — all three null when the
   * event names no step (a log line).
   */
  record ActionHeartbeat(
      String actionId,
      String executorId,
      Integer step,
      String stepType,
      String stepTarget,
      Instant at)
      implements RunCommand {
    /** A sign of life that names no step. */
    public ActionHeartbeat(String actionId, String executorId, Instant at) {
      this(actionId, executorId, null, null, null, at);
    }
  }

  /** {@code action.finished} from the executor: its lease stops; the outcome is not durable yet. */
  record ActionFinished(String actionId, boolean succeeded, String error) implements RunCommand {}

  /**
   * {@code state.recorded}: the outcome of one action is durable.
   *
   * @param outcome {@code succeeded}, {@code failed}, {@code interrupted}, {@code rejected}, …
   * @param postconditionFailure for a succeeded action whose postconditions fail with the applied
   *     values: the rendered diagnostics (checked by the driver, which holds the apply context)
   */
  record StateRecorded(
      String actionId,
      String address,
      String outcome,
      String error,
      String postconditionFailure,
      Instant at)
      implements RunCommand {}

  /** The root outputs of an applied run were recorded (docs/adr/0064), with their warnings. */
  record OutputsRecorded(String warnings) implements RunCommand {}

  /** The root outputs of an applied run could not be recorded. */
  record OutputsFailed(String error) implements RunCommand {}

  /**
   * Time passed: the approval timeout and the action leases are judged at {@code now}. {@code
   * lastBrokerOutage} is when the broker was last unreachable (no lease is judged within an action
   * lease of it), or null.
   */
  record Tick(Instant now, Instant lastBrokerOutage) implements RunCommand {}

  /** The driver could not carry out {@code effect}. */
  record EffectFailed(RunEffect effect, String error) implements RunCommand {}
}
