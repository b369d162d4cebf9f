package dev.stagecraft.planner.service.run.lifecycle;

import dev.stagecraft.planner.apply.ApplySteps;
import dev.stagecraft.planner.service.run.RunStatus;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What a run's lifecycle decisions depend on, as an immutable value: changed only by {@link
 * RunDecider#apply}. Holds no I/O handle; the run credential is a secret whose {@code toString}
 * shows nothing.
 *
 * @param sequence the last event sequence the run used (transitions, dispatches, cancel and
 *     interrupted reports share it; consumers order by it)
 * @param message the latest transition's message
 * @param queuePosition the position last announced in the workspace's lock queue, or -1
 * @param lock the workspace lock while the run holds it, else null
 * @param opened the state service opened the run (its fencing token registered, docs/adr/0025): it
 *     may plan; true also when the state service minted no credential
 * @param credential the run's state credential while it is opened, else null (also when the state
 *     service mints none, as a test port's {@code mintRunCredential} default)
 * @param plan the plan the run made (for a carried-on run: the plan of the rest), or null
 * @param steps where each step of the applied plan stands, from {@code applying} on, else null
 * @param plannedAt when the approval timeout starts counting (for a resumed run: the first plan)
 * @param resumedPlanDigest for a run resumed while it awaited approval: the digest shown before the
 *     restart, which the new plan must equal (docs/adr/0029); else null
 * @param restarted started again after a planner restart or an adoption (resumed, carried on)
 * @param carried for a run carried on after a restart: what it had dispatched; else null
 * @param inFlight dispatched actions whose outcome is not recorded, by action id
 * @param cutShort why actions were cut (interrupted, never started), by address
 * @param cancelRequestedBy who canceled the run while it applied: dispatch nothing more
 * @param finishingMessage set while the outputs of an applied run are recorded (docs/adr/0064)
 */
public record RunState(
    String runId,
    RunSettings settings,
    RunStatus status,
    long sequence,
    String message,
    int queuePosition,
    Lock lock,
    boolean opened,
    RunCredential credential,
    PlanInfo plan,
    ApplySteps steps,
    Instant plannedAt,
    String approvedBy,
    Instant approvedAt,
    String resumedPlanDigest,
    boolean restarted,
    CarriedOver carried,
    Map<String, ActionLease> inFlight,
    Map<String, String> cutShort,
    String cancelRequestedBy,
    String finishingMessage) {

  /** The workspace lock a run holds: its id and the fencing token its writes carry. */
  public record Lock(String lockId, long fencingToken) {}

  public RunState {
    Objects.requireNonNull(runId, "runId");
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(status, "status");
    inFlight = Collections.unmodifiableMap(new LinkedHashMap<>(inFlight));
    cutShort = Collections.unmodifiableMap(new LinkedHashMap<>(cutShort));
  }

  /** A run not started yet: {@code pending} at sequence 0, before its first transition. */
  public static RunState initial(String runId, RunSettings settings) {
    return new RunState(
        runId,
        settings,
        RunStatus.PENDING,
        0,
        null,
        -1,
        null,
        false,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        false,
        null,
        Map.of(),
        Map.of(),
        null,
        null);
  }

  public boolean isTerminal() {
    return status.isTerminal();
  }

  /** No transition yet: the state {@link #initial} made. */
  public boolean isNew() {
    return sequence == 0 && message == null && status == RunStatus.PENDING;
  }

  /** {@code planned}, its plan not approved nor discarded, on a workspace without auto-apply. */
  public boolean awaitsApproval() {
    return status == RunStatus.PLANNED
        && settings.awaitingApproval()
        && approvedBy == null
        && plannedAt != null
        && plan != null
        && plan.hasChanges();
  }

  /** Actions started (or carried over a restart, which may run) whose outcome is not recorded. */
  public long startedUnrecorded() {
    return inFlight.values().stream().filter(l -> l.started() || l.carried()).count();
  }

  /** The digest the run shows: the approved plan's when it applies the rest of it. */
  public String shownDigest() {
    if (carried != null && carried.approvedPlanDigest() != null) {
      return carried.approvedPlanDigest();
    }
    return plan == null ? null : plan.digest();
  }

  Builder toBuilder() {
    return new Builder(this);
  }

  /** A mutable copy used by {@link RunDecider#apply} to build the next state. */
  static final class Builder {
    private final String runId;
    private final RunSettings settings;
    RunStatus status;
    long sequence;
    String message;
    int queuePosition;
    Lock lock;
    boolean opened;
    RunCredential credential;
    PlanInfo plan;
    ApplySteps steps;
    Instant plannedAt;
    String approvedBy;
    Instant approvedAt;
    String resumedPlanDigest;
    boolean restarted;
    CarriedOver carried;
    final Map<String, ActionLease> inFlight;
    final Map<String, String> cutShort;
    String cancelRequestedBy;
    String finishingMessage;

    private Builder(RunState s) {
      runId = s.runId;
      settings = s.settings;
      status = s.status;
      sequence = s.sequence;
      message = s.message;
      queuePosition = s.queuePosition;
      lock = s.lock;
      opened = s.opened;
      credential = s.credential;
      plan = s.plan;
      steps = s.steps;
      plannedAt = s.plannedAt;
      approvedBy = s.approvedBy;
      approvedAt = s.approvedAt;
      resumedPlanDigest = s.resumedPlanDigest;
      restarted = s.restarted;
      carried = s.carried;
      inFlight = new LinkedHashMap<>(s.inFlight);
      cutShort = new LinkedHashMap<>(s.cutShort);
      cancelRequestedBy = s.cancelRequestedBy;
      finishingMessage = s.finishingMessage;
    }

    RunState build() {
      return new RunState(
          runId,
          settings,
          status,
          sequence,
          message,
          queuePosition,
          lock,
          opened,
          credential,
          plan,
          steps,
          plannedAt,
          approvedBy,
          approvedAt,
          resumedPlanDigest,
          restarted,
          carried,
          inFlight,
          cutShort,
          cancelRequestedBy,
          finishingMessage);
    }
  }
}
