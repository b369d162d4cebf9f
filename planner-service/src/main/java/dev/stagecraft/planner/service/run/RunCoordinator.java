package dev.stagecraft.planner.service.run;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.planner.apply.ActionResolution;
import dev.stagecraft.planner.apply.ApplySchedule;
import dev.stagecraft.planner.apply.KnownHostKeys;
import dev.stagecraft.planner.plan.PlanRenderer;
import dev.stagecraft.planner.plan.PlanRequest;
import dev.stagecraft.planner.plan.PlanResult;
import dev.stagecraft.planner.plan.PlannedAction;
import dev.stagecraft.planner.plan.Planner;
import dev.stagecraft.planner.plan.PriorState;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.schemas.action.ActionHeartbeat;
import dev.stagecraft.schemas.action.ActionLog;
import dev.stagecraft.schemas.action.ActionStarted;
import dev.stagecraft.schemas.action.ActionStep;
import dev.stagecraft.schemas.action.DispatchSealing;
import dev.stagecraft.schemas.control.RunCancelRequested;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.run.RunTransitioned;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import dev.stagecraft.schemas.state.StateRecorded;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries runs from request to a terminal status: waits for the workspace lock (queued, never
 * failed), announces the fencing token to the state service, reads state, plans, dispatches each
 * action once everything it waits for is recorded by the state service, and releases the lock at
 * the end of every run, failed or not.
 *
 * <p>Concurrency: each run's start-up (lock wait, planning) runs on its own virtual thread; results
 * arrive on Kafka listener threads. Everything touching a run's fields synchronizes on the {@link
 * Run}. Runs live in memory only: after a restart of this planner instance, its unfinished runs are
 * not resumed yet (see planner-service/README.md).
 */
public final class RunCoordinator implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RunCoordinator.class);
  static final int LEASE_SECONDS = 30;
  static final int WAIT_SECONDS = 10;

  private final Map<String, Run> runs = new ConcurrentHashMap<>();
  private final WorkspaceLocks locks;
  private final WorkspaceStates states;
  private final EventOutbox outbox;
  private final EventCodec codec;
  private final Clock clock;
  private final Supplier<String> ids;
  private final UploadedFiles uploads;
  private final SecretsKeyring secrets;
  private final ScheduledExecutorService heartbeats =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "lock-heartbeats");
            t.setDaemon(true);
            return t;
          });
  private final Map<String, ScheduledFuture<?>> heartbeatTasks = new ConcurrentHashMap<>();
  private final ScheduledExecutorService leaseChecks =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "action-leases");
            t.setDaemon(true);
            return t;
          });
  private volatile Duration actionLease = DEFAULT_ACTION_LEASE;
  private volatile Duration dispatchLease = DEFAULT_DISPATCH_LEASE;

  /** How long a started action may stay silent before it is reported interrupted. */
  public static final Duration DEFAULT_ACTION_LEASE = Duration.ofSeconds(15);

  /** How long a dispatched action may wait for an executor to start it. */
  public static final Duration DEFAULT_DISPATCH_LEASE = Duration.ofMinutes(10);

  public RunCoordinator(
      WorkspaceLocks locks,
      WorkspaceStates states,
      EventOutbox outbox,
      EventCodec codec,
      Clock clock,
      Supplier<String> ids) {
    this(locks, states, outbox, codec, clock, ids, UploadedFiles.inTempDirectory());
  }

  /**
   * @param uploads where each run writes the files it was uploaded with
   */
  public RunCoordinator(
      WorkspaceLocks locks,
      WorkspaceStates states,
      EventOutbox outbox,
      EventCodec codec,
      Clock clock,
      Supplier<String> ids,
      UploadedFiles uploads) {
    this(locks, states, outbox, codec, clock, ids, uploads, SecretsKeyring.none());
  }

  /**
   * @param uploads where each run writes the files it was uploaded with
   * @param secrets seals the provisioners and sensitive values of every {@code action.dispatched}
   *     when it has a key; without one they are published in clear (see docs/operations.md)
   */
  public RunCoordinator(
      WorkspaceLocks locks,
      WorkspaceStates states,
      EventOutbox outbox,
      EventCodec codec,
      Clock clock,
      Supplier<String> ids,
      UploadedFiles uploads,
      SecretsKeyring secrets) {
    this.secrets = secrets;
    this.uploads = uploads;
    this.locks = locks;
    this.states = states;
    this.outbox = outbox;
    this.codec = codec;
    this.clock = clock;
    this.ids = ids;
  }

  /** Where plans and runs write the files they were uploaded with. */
  public UploadedFiles uploads() {
    return uploads;
  }

  /** Creates the run and starts it in the background; returns at once. */
  public Run start(RunRequest request) {
    String id = "run-" + ids.get();
    // the run keeps its request for its whole life in memory; the supporting files only until
    // they are written to the run's directory
    Run run = new Run(id, request.withoutSupportFiles(), clock.instant(), new RunJournal(clock));
    Map<String, byte[]> supportFiles = request.supportFiles();
    runs.put(id, run);
    transition(run, RunStatus.PENDING, null);
    Thread.ofVirtual().name("run-" + id).start(() -> execute(run, supportFiles));
    return run;
  }

  /**
   * Sets the leases of dispatched actions (docs/adr/0007) and starts checking them every {@code
   * checkEvery}. Call once, before runs start.
   *
   * @param actionLease a started action silent (no heartbeat, step record or log line) for longer
   *     is reported {@code interrupted} on its executor's behalf
   * @param dispatchLease an action no executor started within it fails the run without having run
   *     (executors refuse dispatches older than their shorter dispatch expiry)
   */
  public RunCoordinator withLeases(
      Duration actionLease, Duration dispatchLease, Duration checkEvery) {
    this.actionLease = actionLease;
    this.dispatchLease = dispatchLease;
    leaseChecks.scheduleWithFixedDelay(
        () -> {
          try {
            checkLeases();
          } catch (RuntimeException e) {
            LOG.warn("checking action leases failed: {}", e.toString(), e);
          }
        },
        checkEvery.toMillis(),
        checkEvery.toMillis(),
        TimeUnit.MILLISECONDS);
    return this;
  }

  /**
   * Reports every silent started action {@code interrupted} (an {@code action.finished} published
   * for its executor, with an envelope id derived from the action id, so the state service records
   * it once and a late real outcome of the executor loses) and fails every action no executor
   * started within the dispatch lease. Called by the lease timer; package-private for tests.
   */
  void checkLeases() {
    Instant now = clock.instant();
    for (Run run : runs.values()) {
      List<EventEnvelope> interrupted = new java.util.ArrayList<>();
      boolean abandonedAny = false;
      synchronized (run) {
        if (run.status.isTerminal() || run.schedule == null) {
          continue;
        }
        for (InFlightActions.Lease lease : run.inFlight.silentFor(actionLease, now)) {
          String error = InFlightActions.interruptionMessage(lease, actionLease);
          LOG.warn("run {}: {} interrupted: {}", run.id, lease.address(), error);
          run.cutShort.put(lease.address(), error);
          interrupted.add(
              codec.wrapWithId(
                  "interrupted-" + lease.dispatch.actionId(),
                  run.request.tenant(),
                  run.request.workspace(),
                  run.id,
                  run.eventSequence.incrementAndGet(),
                  lease.address(),
                  InFlightActions.interrupted(lease, error)));
        }
        for (InFlightActions.Lease lease : run.inFlight.neverStartedFor(dispatchLease, now)) {
          String error =
              "not started: no executor took the action within "
                  + dispatchLease.toSeconds()
                  + " s (are executors running?); it was not run and state was not changed";
          run.cutShort.put(lease.address(), error);
          run.journal.action(lease.address(), "failed: " + error);
          if (run.schedule.status(lease.address()) == ApplySchedule.Status.DISPATCHED) {
            run.schedule.recordFailed(lease.address());
          }
          abandonedAny = true;
        }
      }
      if (!interrupted.isEmpty()) {
        try {
          outbox.publishAll(
              interrupted.stream().map(e -> new EventOutbox.Keyed(e, e.workspaceKey())).toList());
        } catch (RuntimeException e) {
          // the state service never saw it: try again at the next check
          LOG.warn("could not report interrupted actions of run {}: {}", run.id, e.toString());
          synchronized (run) {
            interrupted.forEach(
                env ->
                    run.inFlight.retryReport(
                        EventCodec.data(env, ActionFinished.class).actionId()));
          }
        }
      }
      if (abandonedAny) {
        dispatchReady(run);
      }
      finishCancelIfDone(run);
    }
  }

  /**
   * Cancels a run of this tenant. Before it applies, it ends {@code canceled} at once (a queued run
   * leaves the queue, a granted lock is released). While it applies, nothing more is dispatched,
   * every executor is asked to stop the run's running actions ({@code run.cancel-requested} on
   * {@code stagecraft.control}), and the run ends {@code canceled} once each started action's
   * outcome is recorded or its lease expired. Idempotent.
   *
   * @return the run, or empty when this instance does not know it
   */
  public Optional<Run> cancel(String tenant, String runId, String requestedBy) {
    Optional<Run> found = find(tenant, runId);
    if (found.isEmpty()) {
      return found;
    }
    Run run = found.get();
    String reason = "canceled by " + requestedBy;
    boolean applying;
    synchronized (run) {
      if (run.status.isTerminal() || run.cancelRequestedBy != null) {
        return found;
      }
      applying = run.status == RunStatus.APPLYING;
      run.cancelRequestedBy = requestedBy; // from now on nothing is dispatched
      if (applying) {
        for (InFlightActions.Lease lease : run.inFlight.dropNotStarted()) {
          run.journal.action(lease.address(), "not started: the run was canceled");
        }
        run.journal.action(
            run.id,
            "canceling: stopping "
                + run.inFlight.startedUnrecorded()
                + " running action(s), dispatching nothing more");
      }
    }
    if (!applying) {
      finish(run, RunStatus.CANCELED, "Run " + reason + " before it applied anything.");
      return found;
    }
    EventEnvelope cancel =
        codec.wrap(
            run.request.tenant(),
            run.request.workspace(),
            run.id,
            run.eventSequence.incrementAndGet(),
            run.id,
            new RunCancelRequested(run.id, reason));
    try {
      outbox.publish(cancel, cancel.workspaceKey());
    } catch (RuntimeException e) {
      // running actions then end by themselves or by their lease; the run still ends canceled
      LOG.warn("could not broadcast the cancel of run {}: {}", run.id, e.toString());
    }
    finishCancelIfDone(run);
    return found;
  }

  /** Ends a canceling run once none of its started actions waits for its outcome. */
  private void finishCancelIfDone(Run run) {
    String message;
    synchronized (run) {
      if (run.status.isTerminal()
          || run.cancelRequestedBy == null
          || run.inFlight.startedUnrecorded() > 0) {
        return;
      }
      message =
          "Run canceled by "
              + run.cancelRequestedBy
              + ". "
              + appliedCount(run)
              + (run.cutShort.isEmpty() ? "" : "\n" + cutShortDetails(run));
    }
    finish(run, RunStatus.CANCELED, message);
  }

  private static String appliedCount(Run run) {
    int done = run.schedule.withStatus(ApplySchedule.Status.SUCCEEDED).size();
    int failed = run.schedule.withStatus(ApplySchedule.Status.FAILED).size();
    return done
        + " action(s) completed, "
        + failed
        + " failed or stopped; the rest did not run. Instances whose create-time steps were"
        + " stopped are tainted.";
  }

  private static String cutShortDetails(Run run) {
    StringBuilder b = new StringBuilder();
    run.cutShort.forEach(
        (address, why) ->
            b.append(b.isEmpty() ? "" : "\n").append(address).append(": ").append(why));
    return b.toString();
  }

  /** A run of this tenant, if this instance knows it. */
  public Optional<Run> find(String tenant, String runId) {
    return Optional.ofNullable(runs.get(runId)).filter(r -> r.request.tenant().equals(tenant));
  }

  public Collection<Run> runsOf(String tenant) {
    return runs.values().stream().filter(r -> r.request.tenant().equals(tenant)).toList();
  }

  private void execute(Run run, Map<String, byte[]> supportFiles) {
    RunRequest req = run.request;
    try {
      acquireLock(run);
      states.registerFencingToken(req.tenant(), req.workspace(), run.fencingToken);
      transition(run, RunStatus.PLANNING, null);
      // the apply context reads provisioner files (script, source, key_file) when it dispatches,
      // so the directory lives until the run ends (finish deletes it)
      Path dir = uploads.materialise(req.tenant(), req.files(), supportFiles);
      synchronized (run) {
        if (run.status.isTerminal()) {
          UploadedFiles.delete(dir);
          return;
        }
        run.filesDir = dir;
      }
      // read under the lock: a key recorded by the previous run of the workspace is enforced now
      KnownHostKeys hostKeys = states.knownHostKeys(req.tenant(), req.workspace());
      synchronized (run) {
        run.knownHostKeys = hostKeys;
      }
      PriorState prior = PriorState.fromV4Json(states.read(req.tenant(), req.workspace()));
      PlanResult result =
          Planner.plan(
              new PlanRequest(
                  req.workspace(),
                  req.files(),
                  req.variables(),
                  req.replace(),
                  req.destroy(),
                  dir,
                  true),
              prior);
      synchronized (run) {
        run.planResult = result;
      }
      if (result.hasErrors()) {
        finish(run, RunStatus.ERRORED, result.renderDiagnostics());
        return;
      }
      if (req.expectedSerial() != null && req.expectedSerial() != prior.serial()) {
        finish(
            run,
            RunStatus.ERRORED,
            "The plan is stale: the workspace's state moved from serial "
                + req.expectedSerial()
                + " to "
                + prior.serial()
                + " since it was planned. Plan again.");
        return;
      }
      if (req.expectedDigest() != null && !req.expectedDigest().equals(result.plan().digest())) {
        finish(
            run,
            RunStatus.ERRORED,
            "The saved plan no longer matches what applying it would do now (the configuration,"
                + " variables or state differ). Create a new plan and apply that.");
        return;
      }
      String planText = PlanRenderer.render(result.plan());
      synchronized (run) {
        run.plan = result.plan();
        run.planText = planText;
      }
      transition(run, RunStatus.PLANNED, planText);
      if (!result.plan().hasChanges()) {
        finish(run, RunStatus.PLANNED_AND_FINISHED, "No changes.");
        return;
      }
      synchronized (run) {
        run.schedule = new ApplySchedule(result.plan(), Math.max(1, req.parallelism()));
      }
      transition(run, RunStatus.APPLYING, PlanRenderer.summary(result.plan()));
      dispatchReady(run);
    } catch (RunEndedException e) {
      LOG.info("run {} ended before it applied", run.id);
    } catch (Exception e) {
      LOG.warn("run {} failed: {}", run.id, e.toString(), e);
      finish(run, RunStatus.ERRORED, "Run failed: " + e.getMessage());
    }
  }

  private void acquireLock(Run run) {
    RunRequest req = run.request;
    int lastPosition = -1;
    // the first ask does not wait, so a run that has to queue says so (and where) at once
    int wait = 0;
    while (true) {
      if (isTerminal(run)) {
        throw new RunEndedException(); // canceled while queued: stop asking
      }
      WorkspaceLocks.Acquisition a =
          locks.acquire(
              req.tenant(),
              req.workspace(),
              run.id,
              LEASE_SECONDS,
              wait,
              "stagecraft run " + run.id + " by " + req.requestedBy());
      wait = WAIT_SECONDS;
      switch (a) {
        case WorkspaceLocks.Granted g -> {
          boolean ended;
          synchronized (run) {
            ended = run.status.isTerminal();
            if (!ended) {
              run.lockId = g.lockId();
              run.fencingToken = g.fencingToken();
            }
          }
          if (ended) {
            // canceled while the grant was on its way: give the lock back at once
            locks.release(req.tenant(), req.workspace(), g.lockId());
            throw new RunEndedException();
          }
          heartbeatTasks.put(
              run.id,
              heartbeats.scheduleAtFixedRate(
                  () -> heartbeat(run), LEASE_SECONDS / 3, LEASE_SECONDS / 3, TimeUnit.SECONDS));
          return;
        }
        case WorkspaceLocks.Queued q -> {
          if (q.position() != lastPosition) {
            lastPosition = q.position();
            transition(
                run,
                RunStatus.QUEUED,
                "Waiting for the workspace lock (position " + q.position() + " in the queue).");
          }
        }
      }
    }
  }

  private static boolean isTerminal(Run run) {
    synchronized (run) {
      return run.status.isTerminal();
    }
  }

  /** The run ended (canceled) while its start-up was under way; nothing is left to do. */
  private static final class RunEndedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RunEndedException() {
      super("the run already ended", null, false, false);
    }
  }

  private void heartbeat(Run run) {
    String lockId;
    synchronized (run) {
      if (run.status.isTerminal() || run.lockId == null) {
        return;
      }
      lockId = run.lockId;
    }
    try {
      if (!locks.heartbeat(run.request.tenant(), run.request.workspace(), lockId)) {
        finish(run, RunStatus.ERRORED, "The workspace lock's lease was lost; the run was stopped.");
      }
    } catch (RuntimeException e) {
      LOG.warn("heartbeat for run {} failed: {}", run.id, e.toString());
    }
  }

  /** Handles {@code state.recorded}: the outcome of one action is durable. Idempotent. */
  public void onStateRecorded(EventEnvelope envelope) {
    StateRecorded recorded = EventCodec.data(envelope, StateRecorded.class);
    Run run = runs.get(recorded.runId());
    if (run == null) {
      return;
    }
    boolean recordedLate = false;
    synchronized (run) {
      if (run.schedule == null || run.status.isTerminal()) {
        return;
      }
      run.inFlight.recorded(recorded.actionId());
      if (run.schedule.status(recorded.address()) != ApplySchedule.Status.DISPATCHED) {
        recordedLate = true;
      }
    }
    if (recordedLate) {
      // e.g. the outcome of an action a cancel stopped waiting for
      finishCancelIfDone(run);
      return;
    }
    synchronized (run) {
      if (run.status.isTerminal()
          || run.schedule.status(recorded.address()) != ApplySchedule.Status.DISPATCHED) {
        return; // a duplicate delivery got here first
      }
      Diagnostics postconditions =
          "succeeded".equals(recorded.outcome())
              ? run.planResult
                  .applyContext()
                  .checkPostconditions(
                      recorded.address(),
                      run.appliedAttributes.getOrDefault(recorded.address(), Map.of()),
                      run.appliedAttributes)
              : null;
      if (postconditions != null && !postconditions.hasErrors()) {
        run.schedule.recordSucceeded(recorded.address());
        run.journal.action(recorded.address(), "complete");
      } else if (postconditions != null) {
        // applied and recorded, but its postcondition fails: nothing that depends on it may run
        run.schedule.recordFailed(recorded.address());
        run.journal.action(
            recorded.address(), "failed: " + postconditions.render(run.request.files()).strip());
      } else {
        run.schedule.recordFailed(recorded.address());
        run.journal.action(
            recorded.address(),
            "failed"
                + (recorded.error() == null ? "" : ": " + recorded.error())
                + ("rejected".equals(recorded.outcome())
                    ? " (write refused by the state service)"
                    : ""));
      }
    }
    dispatchReady(run);
  }

  /** Handles executor events: streams logs and outcomes into the run's journal. */
  public void onActionEvent(EventEnvelope envelope) {
    Run run = envelope.runid() == null ? null : runs.get(envelope.runid());
    if (run == null) {
      return;
    }
    switch (envelope.type()) {
      case "dev.stagecraft.action.log" -> {
        ActionLog log = EventCodec.data(envelope, ActionLog.class);
        synchronized (run) {
          run.inFlight.seen(log.actionId(), clock.instant());
        }
        run.journal.log(log.address(), log.stream(), log.line());
      }
      case "dev.stagecraft.action.started" -> {
        ActionStarted started = EventCodec.data(envelope, ActionStarted.class);
        synchronized (run) {
          run.inFlight.started(started.actionId(), started.executorId(), clock.instant());
        }
        run.journal.action(started.address(), "started on " + started.executorId());
      }
      case "dev.stagecraft.action.heartbeat" -> {
        ActionHeartbeat beat = EventCodec.data(envelope, ActionHeartbeat.class);
        synchronized (run) {
          run.inFlight.seen(
              beat.actionId(),
              beat.executorId(),
              beat.step(),
              beat.stepType(),
              beat.stepTarget(),
              clock.instant());
        }
      }
      case "dev.stagecraft.action.step" -> {
        ActionStep step = EventCodec.data(envelope, ActionStep.class);
        synchronized (run) {
          run.inFlight.seen(
              step.actionId(),
              step.executorId(),
              step.index(),
              step.type(),
              step.target(),
              clock.instant());
        }
      }
      case "dev.stagecraft.action.finished" -> {
        ActionFinished finished = EventCodec.data(envelope, ActionFinished.class);
        synchronized (run) {
          run.inFlight.reported(finished.actionId());
        }
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

  private void dispatchReady(Run run) {
    List<EventEnvelope> toPublish = new java.util.ArrayList<>();
    boolean finished;
    RunStatus terminal = null;
    synchronized (run) {
      if (run.status.isTerminal() || run.schedule == null) {
        return;
      }
      // a canceling run dispatches nothing more (and ends in finishCancelIfDone)
      List<PlannedAction> ready =
          run.cancelRequestedBy == null ? run.schedule.takeReady() : List.of();
      for (PlannedAction action : ready) {
        ActionResolution resolution =
            run.planResult.applyContext().resolve(action, run.appliedAttributes, ids);
        if (resolution.hasErrors()) {
          run.schedule.recordFailed(action.address());
          run.journal.action(action.address(), "failed: " + resolution.renderDiagnostics());
          continue;
        }
        run.appliedAttributes.put(action.address(), resolution.attributes());
        ActionDispatched dispatched =
            new ActionDispatched(
                run.id,
                run.id + "/" + action.address(),
                action.address(),
                action.type(),
                action.action().wireName(),
                resolution.attributes(),
                action.dependencies(),
                run.knownHostKeys.attachTo(resolution.steps()),
                run.fencingToken,
                resolution.sensitiveValues(),
                action.createBeforeDestroy(),
                action.skipDestroy());
        if (secrets.canSeal()) {
          // design §8: commands, environments and keys with secrets in them never go out in clear
          dispatched =
              DispatchSealing.seal(
                  dispatched, secrets, run.request.tenant(), run.request.workspace());
        }
        toPublish.add(
            codec.wrapWithId(
                dispatched.actionId(),
                run.request.tenant(),
                run.request.workspace(),
                run.id,
                run.eventSequence.incrementAndGet(),
                action.address(),
                dispatched));
        run.inFlight.dispatched(dispatched, clock.instant());
        run.journal.action(action.address(), action.action().wireName() + " dispatched");
      }
      finished = run.schedule.isFinished() && run.cancelRequestedBy == null;
      if (finished) {
        terminal = run.schedule.hasFailures() ? RunStatus.ERRORED : RunStatus.APPLIED;
      }
    }
    outbox.publishAll(
        toPublish.stream()
            .map(e -> new EventOutbox.Keyed(e, e.runid() + "/" + e.subject()))
            .toList());
    if (finished) {
      finish(
          run,
          terminal,
          terminal == RunStatus.APPLIED
              ? "Apply complete! " + appliedSummary(run)
              : "Apply failed: " + String.join(", ", failedAddresses(run)) + cutShortSuffix(run));
    }
    if (!finished) {
      finishCancelIfDone(run);
    }
  }

  private static String appliedSummary(Run run) {
    synchronized (run) {
      return "Resources: %d added, %d changed, %d destroyed."
          .formatted(run.plan.toAdd(), run.plan.toChange(), run.plan.toDestroy());
    }
  }

  /** The interrupted / never-started actions with their reasons, one per line, or "". */
  private static String cutShortSuffix(Run run) {
    synchronized (run) {
      return run.cutShort.isEmpty() ? "" : "\n" + cutShortDetails(run);
    }
  }

  private static List<String> failedAddresses(Run run) {
    synchronized (run) {
      return run.schedule.withStatus(ApplySchedule.Status.FAILED);
    }
  }

  private void finish(Run run, RunStatus status, String message) {
    String lockId;
    synchronized (run) {
      if (run.status.isTerminal()) {
        return;
      }
      lockId = run.lockId;
      run.lockId = null;
    }
    ScheduledFuture<?> task = heartbeatTasks.remove(run.id);
    if (task != null) {
      task.cancel(false);
    }
    if (lockId != null) {
      try {
        locks.release(run.request.tenant(), run.request.workspace(), lockId);
      } catch (RuntimeException e) {
        LOG.warn(
            "could not release lock of run {} (its lease will expire): {}", run.id, e.toString());
      }
    }
    transition(run, status, message);
    deleteFiles(run);
  }

  /** Deletes the run's uploaded files; nothing reads them once the run is terminal. */
  private static void deleteFiles(Run run) {
    Path dir;
    synchronized (run) {
      dir = run.filesDir;
      run.filesDir = null;
    }
    UploadedFiles.delete(dir);
  }

  private void transition(Run run, RunStatus status, String message) {
    long sequence;
    synchronized (run) {
      if (run.status.isTerminal()) {
        return;
      }
      run.status = status;
      run.message = message;
      sequence = run.eventSequence.incrementAndGet();
    }
    run.journal.status(status, message);
    EventEnvelope envelope =
        codec.wrap(
            run.request.tenant(),
            run.request.workspace(),
            run.id,
            sequence,
            run.id,
            new RunTransitioned(run.id, status.wireName(), message));
    try {
      outbox.publish(envelope, envelope.workspaceKey());
    } catch (RuntimeException e) {
      LOG.warn("could not publish transition of run {} to {}: {}", run.id, status, e.toString());
    }
  }

  @Override
  public void close() {
    heartbeats.shutdownNow();
    leaseChecks.shutdownNow();
    runs.values().forEach(RunCoordinator::deleteFiles);
  }
}
