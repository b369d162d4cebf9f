package dev.stagecraft.planner.service.run;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.planner.apply.ActionResolution;
import dev.stagecraft.planner.apply.ApplySchedule;
import dev.stagecraft.planner.plan.PlanRenderer;
import dev.stagecraft.planner.plan.PlanRequest;
import dev.stagecraft.planner.plan.PlanResult;
import dev.stagecraft.planner.plan.PlannedAction;
import dev.stagecraft.planner.plan.Planner;
import dev.stagecraft.planner.plan.PriorState;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.schemas.action.ActionLog;
import dev.stagecraft.schemas.action.ActionStarted;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.run.RunTransitioned;
import dev.stagecraft.schemas.state.StateRecorded;
import java.nio.file.Path;
import java.time.Clock;
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
  private final ScheduledExecutorService heartbeats =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "lock-heartbeats");
            t.setDaemon(true);
            return t;
          });
  private final Map<String, ScheduledFuture<?>> heartbeatTasks = new ConcurrentHashMap<>();

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
          synchronized (run) {
            run.lockId = g.lockId();
            run.fencingToken = g.fencingToken();
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
    synchronized (run) {
      if (run.schedule == null || run.status.isTerminal()) {
        return;
      }
      if (run.schedule.status(recorded.address()) != ApplySchedule.Status.DISPATCHED) {
        return;
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
        run.journal.log(log.address(), log.stream(), log.line());
      }
      case "dev.stagecraft.action.started" -> {
        ActionStarted started = EventCodec.data(envelope, ActionStarted.class);
        run.journal.action(started.address(), "started on " + started.executorId());
      }
      case "dev.stagecraft.action.finished" -> {
        ActionFinished finished = EventCodec.data(envelope, ActionFinished.class);
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
      for (PlannedAction action : run.schedule.takeReady()) {
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
                resolution.steps(),
                run.fencingToken,
                resolution.sensitiveValues(),
                action.createBeforeDestroy(),
                action.skipDestroy());
        toPublish.add(
            codec.wrapWithId(
                dispatched.actionId(),
                run.request.tenant(),
                run.request.workspace(),
                run.id,
                run.eventSequence.incrementAndGet(),
                action.address(),
                dispatched));
        run.journal.action(action.address(), action.action().wireName() + " dispatched");
      }
      finished = run.schedule.isFinished();
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
              : "Apply failed: " + String.join(", ", failedAddresses(run)));
    }
  }

  private static String appliedSummary(Run run) {
    synchronized (run) {
      return "Resources: %d added, %d changed, %d destroyed."
          .formatted(run.plan.toAdd(), run.plan.toChange(), run.plan.toDestroy());
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
    runs.values().forEach(RunCoordinator::deleteFiles);
  }
}
