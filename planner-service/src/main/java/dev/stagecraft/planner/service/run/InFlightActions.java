package dev.stagecraft.planner.service.run;

import dev.stagecraft.planner.service.run.lifecycle.RunMessages;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.action.ActionFinished;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The dispatched actions of one run whose outcome is not recorded yet, and what the planner knows
 * of their liveness: dispatched (no executor took it yet), started by an executor (which sends
 * heartbeats naming the step it runs), reported ({@code action.finished} seen), or given up on.
 *
 * <p>Two leases decide when the planner stops waiting (docs/adr/0007):
 *
 * <ul>
 *   <li>the <b>action lease</b>: a started action from which nothing (heartbeat, step record, log
 *       line) arrived for that long is {@link #silentFor silent}: its executor died or lost the
 *       broker. The planner then reports it {@code interrupted} on the executor's behalf.
 *   <li>the <b>dispatch lease</b>: an action no executor started within it is {@link
 *       #neverStartedFor abandoned}. Executors refuse dispatches older than their (shorter)
 *       dispatch expiry, so an abandoned action is not started later.
 * </ul>
 *
 * <p>Plain Java, time passed in. Not thread-safe: guarded by the monitor of the {@link Run} that
 * owns it.
 */
final class InFlightActions {

  /** One dispatched action and its liveness. */
  static final class Lease {
    final ActionDispatched dispatch;
    final Instant dispatchedAt;
    String executorId;
    Instant lastSeen;
    Integer step;
    String stepType;
    String stepTarget;
    boolean reported;

    /**
     * Dispatched before this planner instance restarted (docs/adr/0035): whether an executor took
     * it is unknown until it reports, so it is never treated as not started.
     */
    boolean carried;

    /**
     * Carried, taken by an executor before the restart (docs/adr/0056: no executor will be given it
     * again, so the action lease applies from the restart), and not heard from since.
     */
    boolean takenBeforeRestart;

    Lease(ActionDispatched dispatch, Instant dispatchedAt) {
      this.dispatch = dispatch;
      this.dispatchedAt = dispatchedAt;
    }

    boolean started() {
      return executorId != null;
    }

    String address() {
      return dispatch.address();
    }
  }

  private final Map<String, Lease> byActionId = new LinkedHashMap<>();

  /**
   * The executor of a carried action known alive from a log line only (log lines do not name it);
   * its next heartbeat or step record names it.
   */
  static final String UNNAMED = "(unnamed: it started before its planner instance stopped)";

  void dispatched(ActionDispatched dispatch, Instant now) {
    byActionId.putIfAbsent(dispatch.actionId(), new Lease(dispatch, now));
  }

  /**
   * An action dispatched at {@code dispatchedAt} by this run before the planner restarted, whose
   * outcome is not recorded (docs/adr/0035). Until its executor reports (heartbeat, step, log line,
   * start) it may be running or still waiting in Kafka: it is reported interrupted only once its
   * dispatch is older than the dispatch lease ({@link #unheardSinceRestart}), when no executor can
   * start it any more; once its executor reports, the action lease applies as to any action.
   */
  void carried(ActionDispatched dispatch, Instant dispatchedAt) {
    carried(dispatch, dispatchedAt, false, null);
  }

  /**
   * Like {@link #carried(ActionDispatched, Instant)}; when {@code taken} (an executor had taken the
   * dispatch before the restart: it is never delivered again, docs/adr/0056) the action counts as
   * started at {@code now} by an executor not named yet, so it is reported interrupted once it has
   * been silent for the action lease rather than after the dispatch lease: an executor that runs it
   * heartbeats within that, one that died never will.
   */
  void carried(ActionDispatched dispatch, Instant dispatchedAt, boolean taken, Instant now) {
    Lease lease = new Lease(dispatch, dispatchedAt);
    lease.carried = true;
    if (taken) {
      lease.takenBeforeRestart = true;
      lease.executorId = UNNAMED;
      lease.lastSeen = now;
    }
    byActionId.putIfAbsent(dispatch.actionId(), lease);
  }

  /**
   * An executor started the action. A second {@code action.started} (the first executor's claim
   * failed and another took it) makes the newer executor the one whose heartbeats count.
   */
  void started(String actionId, String executorId, Instant now) {
    Lease lease = byActionId.get(actionId);
    if (lease != null) {
      lease.executorId = executorId;
      lease.lastSeen = now;
      lease.takenBeforeRestart = false; // heard from
    }
  }

  /** A heartbeat, step record or log line: the executor is alive and runs {@code step}. */
  void seen(
      String actionId,
      String executorId,
      Integer step,
      String stepType,
      String stepTarget,
      Instant now) {
    Lease lease = byActionId.get(actionId);
    if (lease == null) {
      return;
    }
    if (lease.executorId == null || UNNAMED.equals(lease.executorId)) {
      lease.executorId = executorId; // its action.started is still on the way
    }
    lease.lastSeen = now;
    lease.takenBeforeRestart = false; // heard from
    if (step != null) {
      lease.step = step;
      lease.stepType = stepType;
      lease.stepTarget = stepTarget;
    }
  }

  /** A log line: alive, the step unchanged. */
  void seen(String actionId, Instant now) {
    Lease lease = byActionId.get(actionId);
    if (lease != null && lease.started()) {
      lease.lastSeen = now;
      lease.takenBeforeRestart = false; // heard from
    } else if (lease != null && lease.carried) {
      // a carried action's executor is alive; its name comes with its next heartbeat
      lease.executorId = UNNAMED;
      lease.lastSeen = now;
    }
  }

  /** {@code action.finished} arrived (from the executor or from this planner): no lease runs. */
  void reported(String actionId) {
    Lease lease = byActionId.get(actionId);
    if (lease != null) {
      lease.reported = true;
    }
  }

  /** Publishing the interrupted outcome failed: report it again at the next check. */
  void retryReport(String actionId) {
    Lease lease = byActionId.get(actionId);
    if (lease != null) {
      lease.reported = false;
    }
  }

  /** The state service recorded the outcome: the action is no longer in flight. */
  void recorded(String actionId) {
    byActionId.remove(actionId);
  }

  /**
   * Started, unreported actions with no sign of life for longer than {@code lease}; each is
   * returned once (marked reported).
   */
  List<Lease> silentFor(Duration lease, Instant now) {
    List<Lease> silent = new ArrayList<>();
    for (Lease l : byActionId.values()) {
      if (l.started() && !l.reported && l.lastSeen.plus(lease).isBefore(now)) {
        l.reported = true;
        silent.add(l);
      }
    }
    return silent;
  }

  /** Actions no executor started within {@code lease}; removed (the run stops waiting for them). */
  List<Lease> neverStartedFor(Duration lease, Instant now) {
    List<Lease> abandoned = new ArrayList<>();
    for (Iterator<Lease> it = byActionId.values().iterator(); it.hasNext(); ) {
      Lease l = it.next();
      if (!l.started() && !l.carried && l.dispatchedAt.plus(lease).isBefore(now)) {
        it.remove();
        abandoned.add(l);
      }
    }
    return abandoned;
  }

  /**
   * Carried actions (dispatched before a restart) from which no executor reported since, whose
   * dispatch is older than {@code dispatchLease}: no executor can start them any more (executors
   * refuse dispatches older than their shorter dispatch expiry), and one that started them before
   * the restart is gone. Each is returned once (marked reported), to be reported interrupted.
   */
  List<Lease> unheardSinceRestart(Duration dispatchLease, Instant now) {
    List<Lease> unheard = new ArrayList<>();
    for (Lease l : byActionId.values()) {
      if (l.carried
          && !l.started()
          && !l.reported
          && l.dispatchedAt.plus(dispatchLease).isBefore(now)) {
        l.reported = true;
        unheard.add(l);
      }
    }
    return unheard;
  }

  /** What happened to an action {@link #unheardSinceRestart}, for the user. */
  static String unheardMessage(Lease lease, Duration dispatchLease) {
    return RunMessages.unheardSinceRestart(lease.dispatch.action(), dispatchLease);
  }

  /**
   * Stops waiting for actions no executor started yet (a canceled run); returns them. Carried
   * actions are kept: an executor may be running them.
   */
  List<Lease> dropNotStarted() {
    List<Lease> dropped = new ArrayList<>();
    for (Iterator<Lease> it = byActionId.values().iterator(); it.hasNext(); ) {
      Lease l = it.next();
      if (!l.started() && !l.carried) {
        it.remove();
        dropped.add(l);
      }
    }
    return dropped;
  }

  /**
   * How many actions are started (or carried over a restart, which may be) and still wait for their
   * outcome to be recorded.
   */
  int startedUnrecorded() {
    return (int) byActionId.values().stream().filter(l -> l.started() || l.carried).count();
  }

  boolean isEmpty() {
    return byActionId.isEmpty();
  }

  /**
   * What happened to a silent action, for the user: which step on which host, which executor went
   * quiet, that the step was not run again, and what happens to the instance.
   */
  static String interruptionMessage(Lease lease, Duration actionLease) {
    return RunMessages.interrupted(
        lease.takenBeforeRestart,
        lease.executorId,
        lease.step,
        lease.stepType,
        lease.stepTarget,
        lease.dispatch.action(),
        actionLease);
  }

  /** The {@code action.finished} the planner publishes for a silent action. */
  static ActionFinished interrupted(Lease lease, String error) {
    ActionDispatched d = lease.dispatch;
    return new ActionFinished(
            d.runId(),
            d.actionId(),
            d.address(),
            d.resourceType(),
            d.action(),
            ActionFinished.INTERRUPTED,
            null,
            error,
            d.attributes(),
            d.dependencies(),
            d.fencingToken(),
            lease.executorId,
            d.createBeforeDestroy(),
            d.skipDestroy())
        .withPreviousAddress(d.previousAddress());
  }
}
