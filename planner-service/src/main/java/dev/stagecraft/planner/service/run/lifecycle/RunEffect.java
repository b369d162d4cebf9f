package dev.stagecraft.planner.service.run.lifecycle;

import dev.stagecraft.planner.service.run.lifecycle.RunEvent.Transitioned;
import java.time.Instant;
import java.util.List;

/**
 * What the run's driver must do through the ports after a decision, in order. Each effect whose
 * answer matters comes back as a {@link RunCommand} (named in its Javadoc); a failure comes back as
 * {@link RunCommand.EffectFailed}.
 */
public sealed interface RunEffect {

  /** Record what the new run was requested with (run_requests), after its pending record. */
  record RecordRequest() implements RunEffect {}

  /** Wait for the tenant's admission slot: {@link RunCommand.Admitted}. */
  record AwaitAdmission() implements RunEffect {}

  /**
   * Ask for the workspace lock with the run id as holder (a restarted run keeps its place or gets
   * its lease back): {@link RunCommand.LockGranted}, {@link RunCommand.LockQueued} or {@link
   * RunCommand.Superseded}. {@code waiting}: the first ask does not wait, so a queued run says so
   * at once.
   */
  record RequestLock(boolean waiting) implements RunEffect {}

  /** Renew the lease from now on ({@code renewNow}: at once, for a lease got back). */
  record StartHeartbeat(String lockId, boolean renewNow) implements RunEffect {}

  record StopHeartbeat() implements RunEffect {}

  record ReleaseLock(String lockId) implements RunEffect {}

  /**
   * Open the run at the state service: {@link RunCommand.Opened} or {@link RunCommand.OpenFailed}.
   */
  record OpenRun(long fencingToken) implements RunEffect {}

  /** Revoke the run's state credential (before its terminal transition is announced). */
  record RevokeCredential() implements RunEffect {}

  /**
   * Read the recorded outcomes of a carried-on run's actions: {@link
   * RunCommand.CarriedOutcomesRead}.
   */
  record ReadCarriedOutcomes() implements RunEffect {}

  /**
   * Plan against the current state: {@link RunCommand.Planned} or {@link RunCommand.PlanFailed}.
   */
  record Plan() implements RunEffect {}

  /** One action to resolve and publish on {@code stagecraft.actions}. */
  record DispatchAction(String actionId, String address, String action, long sequence) {}

  /**
   * Resolve and publish these actions with the run's fencing token and credential; a step that does
   * not resolve comes back as {@link RunCommand.DispatchFailed}.
   */
  record Dispatch(List<DispatchAction> actions, long fencingToken) implements RunEffect {
    public Dispatch {
      actions = List.copyOf(actions);
    }
  }

  /** Publish {@code action.finished} {@code interrupted} on the silent executor's behalf. */
  record ReportInterrupted(
      String actionId, String address, String executorId, String error, long sequence)
      implements RunEffect {}

  /** Publish {@code run.cancel-requested} on {@code stagecraft.control}. */
  record BroadcastCancel(String reason, long sequence) implements RunEffect {}

  /** Record the applied run's root outputs: {@link RunCommand.OutputsRecorded} or failed. */
  record RecordOutputs() implements RunEffect {}

  /** Queue the transition's record on the run's recording lane. */
  record RecordTransition(Transitioned transition) implements RunEffect {}

  /**
   * Publish {@code dev.stagecraft.run.transitioned}; for a run waiting for approval with the plan's
   * digest and when the approval expires.
   */
  record PublishTransition(Transitioned transition, String planDigest, Instant approvalExpiresAt)
      implements RunEffect {}

  /** The run ended: stop its timers, free its admission slot, delete its files; stop the driver. */
  record Close() implements RunEffect {}
}
