package dev.stagecraft.planner.service.run;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.language.config.LoadResult;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.planner.apply.ActionResolution;
import dev.stagecraft.planner.apply.ApplySchedule;
import dev.stagecraft.planner.plan.AttributeSealing;
import dev.stagecraft.planner.plan.PlanRenderer;
import dev.stagecraft.planner.plan.PlanRequest;
import dev.stagecraft.planner.plan.PlanResult;
import dev.stagecraft.planner.plan.PlannedAction;
import dev.stagecraft.planner.plan.Planner;
import dev.stagecraft.planner.plan.PriorState;
import dev.stagecraft.planner.service.run.approval.ApprovalOutcome;
import dev.stagecraft.planner.service.run.driver.CredentialRevocation;
import dev.stagecraft.planner.service.run.driver.TransitionPublisher;
import dev.stagecraft.planner.service.run.lifecycle.RunMessages;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.EventType;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.schemas.action.ActionHeartbeat;
import dev.stagecraft.schemas.action.ActionLog;
import dev.stagecraft.schemas.action.ActionStarted;
import dev.stagecraft.schemas.action.ActionStep;
import dev.stagecraft.schemas.action.DispatchSealing;
import dev.stagecraft.schemas.control.RunCancelRequested;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.lock.LockForceUnlocked;
import dev.stagecraft.schemas.lock.LockLeaseExpired;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import dev.stagecraft.schemas.state.StateRecorded;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
 * Run}. Runs are driven in memory; a {@link RunObserver} records them (docs/runs.md) on each run's
 * {@link RecordingLane}, off the run's path: recording a transition adds no commit and no Kafka
 * acknowledgement before the first dispatch (docs/adr/0025). After a restart of this planner
 * instance its unfinished runs that applied nothing are started again ({@link #resume}, docs/adr/
 * 0029) and those that were applying are carried on from what they dispatched ({@link #carryOn},
 * docs/adr/0035).
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
  private final TransitionPublisher transitions;
  private final Clock clock;
  private final Supplier<String> ids;
  private final UploadedFiles uploads;
  private final SecretsKeyring secrets;
  private volatile RunObserver observer = RunObserver.NONE;
  private volatile RunRequestRecorder requestRecorder = RunRequestRecorder.NONE;
  private volatile Supplier<Instant> brokerOutages = () -> Instant.EPOCH;
  private volatile RunJournal.Recorder journalRecorder;

  /**
   * Runs carried on after a planner restart (docs/adr/0035), by id: the actions each dispatched
   * before the restart and their outcomes (guarded by the run's monitor).
   */
  private final Map<String, CarriedActions> carriedRuns = new ConcurrentHashMap<>();

  /** Runs that wait for approval once planned with changes, by id (docs/runs.md). */
  private final Map<String, PendingApproval> approvals = new ConcurrentHashMap<>();

  private volatile Duration approvalTimeout = DEFAULT_APPROVAL_TIMEOUT;

  /** How long a plan waits for approval before the run is discarded. */
  public static final Duration DEFAULT_APPROVAL_TIMEOUT = Duration.ofHours(1);

  private volatile TenantAdmission admission = TenantAdmission.unlimited();

  /** Runs waiting for a slot of {@link #admission}: completed when admitted or ended. */
  private final Map<String, CompletableFuture<Void>> awaitingAdmission = new ConcurrentHashMap<>();

  private volatile IdempotencyKeys idempotencyKeys = IdempotencyKeys.inMemory();
  private final Object keyedStarts = new Object();
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
  private volatile Duration endedRunRetention = DEFAULT_ENDED_RUN_RETENTION;

  /**
   * How long an ended run stays in memory (its live fields, e.g. the plan text, readable through
   * the API) before {@link #forgetEnded} drops it; its records stay in the store.
   */
  public static final Duration DEFAULT_ENDED_RUN_RETENTION = Duration.ofMinutes(2);

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
    this.transitions = new TransitionPublisher(codec, outbox);
    this.clock = clock;
    this.ids = ids;
  }

  /**
   * Limits how many runs each tenant has active at once (fair sharing; see {@link
   * TenantAdmission}). Call once, before runs start; without it there is no limit.
   */
  public RunCoordinator withAdmission(TenantAdmission admission) {
    this.admission = admission;
    return this;
  }

  /**
   * Waits until the run's tenant has a free slot ({@link TenantAdmission}); until then the run is
   * {@code queued} with the reason in its message. Returns at once when a slot is free.
   *
   * @throws RunEndedException when the run ended (canceled) while it waited
   */
  private void awaitAdmission(Run run) throws Exception {
    String tenant = run.request.tenant();
    var admitted = new CompletableFuture<Void>();
    awaitingAdmission.put(run.id, admitted); // before admit: a release may wake it at once
    Optional<String> waitReason = admission.admit(tenant, run.id);
    if (waitReason.isPresent()) {
      transition(run, RunStatus.QUEUED, waitReason.get());
      admitted.get();
    }
    awaitingAdmission.remove(run.id);
    if (isTerminal(run)) {
      // ended while it waited (finish already gave back its place): do not keep a slot
      wakeAdmitted(admission.release(tenant, run.id));
      throw new RunEndedException();
    }
  }

  private void wakeAdmitted(List<String> runIds) {
    for (String id : runIds) {
      var waiter = awaitingAdmission.get(id);
      if (waiter != null) {
        waiter.complete(null);
      }
    }
  }

  /**
   * Tells {@code observer} of every transition from now on (the planner records runs with it). Call
   * once, before runs start.
   */
  public RunCoordinator withObserver(RunObserver observer) {
    this.observer = observer;
    return this;
  }

  /**
   * Records the request of every new run with {@code recorder} (on its recording lane), so that a
   * restarted instance can {@link #resume} it (docs/adr/0029). Call once, before runs start.
   */
  public RunCoordinator withRequestRecorder(RunRequestRecorder recorder) {
    this.requestRecorder = recorder;
    return this;
  }

  /**
   * Records every run's journal entries with {@code recorder} (on its recording lane, batched), so
   * any planner instance can serve a run's log and a restart keeps it (docs/adr/0032). Call once,
   * before runs start; without it journals live only in memory.
   */
  public RunCoordinator withJournalRecorder(RunJournal.Recorder recorder) {
    this.journalRecorder = recorder;
    return this;
  }

  /** A new journal; {@code base} as in {@link RunJournal#RunJournal(Clock, long, int)}. */
  private RunJournal journalFor(long base) {
    return new RunJournal(clock, base, RunJournal.DEFAULT_MAX_LOG_LINES);
  }

  private void recordJournal(Run run) {
    RunJournal.Recorder recorder = journalRecorder;
    if (recorder != null) {
      run.journal.recordTo(run.recording, recorder, run.request.tenant(), run.id);
    }
  }

  /** Added to a resumed run's last recorded sequence (see {@link #resume}). */
  public static final long RESUME_SEQUENCE_GAP = 1_000_000;

  /**
   * Starts again, under its own id, a run that a previous life of this planner instance accepted
   * and did not finish, and that applied nothing (the caller decided so: {@link RestartRecovery}).
   * The run gets back its tenant's admission slot (resumed runs are admitted in the order this is
   * called, before new runs when called at startup), records a {@code pending} transition with
   * {@code message}, and then goes the usual way: the lock is asked for with the run id as holder,
   * so the run keeps its place in the workspace's queue — or gets back the very lease it held when
   * the lease has not expired (same lock id and fencing token; the lease is renewed at once) — then
   * it opens the run at the state service again (a new run credential) and plans against the
   * current state. A run that awaited approval ({@link ResumableRun#planDigest}) waits again only
   * when the new plan has exactly that digest, with the approval timeout counted from the first
   * plan; else it ends {@code errored} ({@link RestartRecovery#planMovedMessage}).
   *
   * <p>Event sequences continue {@link #RESUME_SEQUENCE_GAP} above the last recorded one: a crash
   * may have lost the records (not the events) of the last transitions, whose sequences must not be
   * reused. Returns at once.
   *
   * @throws IllegalStateException when this instance already has a run with that id
   */
  public Run resume(ResumableRun resumable, String message) {
    return restart(resumable, message, null);
  }

  /**
   * Carries on, under its own id, a run that a previous life of this planner instance was applying
   * (the caller decided so: {@link RestartRecovery}; docs/adr/0035). {@code dispatched} are the
   * actions it dispatched before the restart, as read from {@code stagecraft.actions}; none is
   * dispatched again. Like {@link #resume}, the run gets back its admission slot, records a {@code
   * pending} transition with {@code message} and asks for the lock with its id as holder (the same
   * lease back while it has not expired). Then:
   *
   * <ol>
   *   <li>it takes back the state credential its dispatches carry (for the proofs of interrupted
   *       reports, docs/adr/0013) and reads the outcomes the state service recorded for its
   *       actions; the {@code state.recorded} events arriving meanwhile count too (the listeners
   *       are subscribed before this is called, so no outcome falls between);
   *   <li>it goes {@code applying} again, naming what had finished and what still runs, and tracks
   *       each unfinished action in the action lease from now on: a live executor's heartbeats keep
   *       it alive, a silent one's action is reported {@code interrupted}; an action no executor
   *       reports on is reported once its dispatch is older than the dispatch lease (no executor
   *       can start it then);
   *   <li>once every dispatched action has an outcome: when one did not succeed the run ends {@code
   *       errored}; else it opens the run at the state service again (a new credential), plans
   *       against the current state and dispatches what remains — ending {@code errored} instead
   *       when the plan would dispatch an address dispatched already, or when the run's plan was
   *       approved as a whole (approval, saved plan, the CLI's bound serial) and what remains is
   *       not exactly the approved changes it had not dispatched ({@link
   *       ResumableRun#approvedChanges}, docs/adr/0051).
   * </ol>
   *
   * Returns at once.
   *
   * @param resumable its {@link ResumableRun#awaitingApproval} says whether it applied an approved
   *     plan; for a run that applied a plan approved as a whole, {@link ResumableRun#planDigest} is
   *     that plan's recorded digest, which the run keeps showing (else it is ignored)
   * @throws IllegalStateException when this instance already has a run with that id
   */
  public Run carryOn(
      ResumableRun resumable, List<DispatchedActions.Dispatched> dispatched, String message) {
    RunRequest request = resumable.request();
    boolean approvalBound =
        resumable.awaitingApproval()
            || request.expectedSerial() != null
            || request.expectedDigest() != null;
    return restart(
        new ResumableRun(
            resumable.id(),
            request,
            false,
            resumable.createdAt(),
            resumable.lastSequence(),
            null,
            null),
        message,
        new CarriedActions(
            dispatched,
            approvalBound,
            resumable.approvedChanges(),
            approvalBound ? resumable.planDigest() : null));
  }

  private Run restart(ResumableRun resumable, String message, CarriedActions carried) {
    String id = resumable.id();
    if (runs.containsKey(id)) {
      throw new IllegalStateException("run " + id + " exists already");
    }
    if (carried != null) {
      carriedRuns.put(id, carried);
    }
    RunRequest request = resumable.request();
    // its journal, too, continues above what its previous life recorded (docs/adr/0032)
    RunJournal.Recorder recorder = journalRecorder;
    long journalBase =
        recorder == null ? 0 : recorder.lastRecorded(request.tenant(), id) + RESUME_SEQUENCE_GAP;
    Run run =
        new Run(id, request.withoutSupportFiles(), resumable.createdAt(), journalFor(journalBase));
    recordJournal(run);
    run.eventSequence.set(resumable.lastSequence() + RESUME_SEQUENCE_GAP);
    run.resumed = true;
    run.resumedPlanDigest = resumable.planDigest();
    if (carried != null) {
      run.approvedPlanDigest = carried.approvedPlanDigest();
    }
    if (resumable.awaitingApproval()) {
      PendingApproval pending = new PendingApproval();
      pending.firstPlannedAt = resumable.plannedAt();
      approvals.put(id, pending);
    }
    runs.put(id, run);
    // its slot first, in the caller's order: admit is idempotent, the run's thread asks again
    admission.admit(request.tenant(), id);
    transition(run, RunStatus.PENDING, message);
    Map<String, byte[]> supportFiles = request.supportFiles();
    Thread.ofVirtual().name("run-" + id).start(() -> execute(run, supportFiles, null));
    return run;
  }

  /**
   * Sets how long a planned run waits for approval before it is discarded (and approving it is
   * refused). Call once, before runs start.
   */
  public RunCoordinator withApprovalTimeout(Duration timeout) {
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("the approval timeout must be positive, got " + timeout);
    }
    this.approvalTimeout = timeout;
    return this;
  }

  /**
   * Like {@link #start(RunRequest)}, but a plan with changes is not applied until {@link #approve
   * approved} with its digest: the run stays {@code planned}, holding the workspace lock (so the
   * state cannot move under the approved plan), until approved, {@link #discard discarded},
   * canceled, or the approval timeout passes (then it ends {@code discarded}).
   */
  public Run startAwaitingApproval(RunRequest request) {
    String id = "run-" + ids.get();
    approvals.put(id, new PendingApproval());
    return launch(id, request, null);
  }

  /**
   * When the run of the tenant held by this instance waits for approval now ({@code planned}, its
   * plan not yet approved or discarded): the time its approval expires. Empty when it does not wait
   * (not planned yet, applies automatically, decided, ended) or this instance does not hold it.
   */
  public Optional<Instant> approvalDeadline(String tenant, String runId) {
    Optional<Run> found = find(tenant, runId);
    PendingApproval pending = approvals.get(runId);
    if (found.isEmpty() || pending == null || pending.decision.isDone()) {
      return Optional.empty();
    }
    Run run = found.get();
    synchronized (run) {
      if (pending.plannedAt == null || run.status != RunStatus.PLANNED) {
        return Optional.empty();
      }
    }
    return Optional.of(pending.plannedAt.plus(approvalTimeout));
  }

  /**
   * Approves a planned run's plan, named by its digest (docs/adr/0005): the run goes on to apply
   * exactly that plan. Refused when the digest differs, when the run is not waiting, or when the
   * plan is older than the approval timeout (the run is then discarded). Thread-safe; a second
   * approval of the same run gets {@link ApprovalOutcome#NOT_AWAITING}.
   */
  public ApprovalOutcome approve(String tenant, String runId, String planDigest, String by) {
    Optional<Run> found = find(tenant, runId);
    if (found.isEmpty()) {
      return ApprovalOutcome.NOT_FOUND;
    }
    Run run = found.get();
    PendingApproval pending = approvals.get(runId);
    String digest;
    synchronized (run) {
      if (pending == null || pending.plannedAt == null || run.status != RunStatus.PLANNED) {
        return ApprovalOutcome.NOT_AWAITING;
      }
      digest = run.plan.digest();
    }
    if (!digest.equals(planDigest)) {
      return ApprovalOutcome.WRONG_DIGEST;
    }
    if (clock.instant().isAfter(pending.plannedAt.plus(approvalTimeout))) {
      finish(run, RunStatus.DISCARDED, expiredMessage());
      pending.decision.complete(null);
      return ApprovalOutcome.EXPIRED;
    }
    return pending.decision.complete(by) ? ApprovalOutcome.DONE : ApprovalOutcome.NOT_AWAITING;
  }

  /**
   * Discards a run waiting for approval: it ends {@code discarded} and releases the workspace lock.
   *
   * @return {@link ApprovalOutcome#DONE}, or why not
   */
  public ApprovalOutcome discard(String tenant, String runId, String by) {
    Optional<Run> found = find(tenant, runId);
    if (found.isEmpty()) {
      return ApprovalOutcome.NOT_FOUND;
    }
    Run run = found.get();
    PendingApproval pending = approvals.get(runId);
    synchronized (run) {
      if (pending == null || pending.plannedAt == null || run.status != RunStatus.PLANNED) {
        return ApprovalOutcome.NOT_AWAITING;
      }
    }
    if (!pending.decision.complete(null)) {
      return ApprovalOutcome.NOT_AWAITING; // approved (or discarded) a moment ago
    }
    finish(run, RunStatus.DISCARDED, RunMessages.discarded(by));
    return ApprovalOutcome.DONE;
  }

  private String expiredMessage() {
    return RunMessages.approvalExpired(approvalTimeout);
  }

  /**
   * A run's wait for approval: {@code plannedAt} is set just before it turns {@code planned}; the
   * decision completes with the approver, or with null when the run ends otherwise.
   */
  private static final class PendingApproval {
    final CompletableFuture<String> decision = new CompletableFuture<>();
    volatile Instant plannedAt;

    /** For a resumed run: when its plan was first made (before the restart); else null. */
    volatile Instant firstPlannedAt;
  }

  /**
   * Blocks the run's own (virtual) thread until the plan is approved; the run keeps the lock.
   *
   * @return the approver
   * @throws RunEndedException when it was discarded, canceled or timed out instead
   */
  private String awaitApproval(Run run, PendingApproval pending) throws InterruptedException {
    String approver;
    try {
      // counted from when the plan was made (before a restart, for a resumed run)
      long left =
          Math.max(
              0,
              Duration.between(clock.instant(), pending.plannedAt.plus(approvalTimeout))
                  .toMillis());
      approver = pending.decision.get(left, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      pending.decision.complete(null);
      finish(run, RunStatus.DISCARDED, expiredMessage());
      throw new RunEndedException();
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    } finally {
      approvals.remove(run.id);
    }
    if (approver == null || isTerminal(run)) {
      throw new RunEndedException();
    }
    return approver;
  }

  /** Where plans and runs write the files they were uploaded with. */
  public UploadedFiles uploads() {
    return uploads;
  }

  /** Creates the run and starts it in the background; returns at once. */
  public Run start(RunRequest request) {
    return launch("run-" + ids.get(), request, null);
  }

  /**
   * Like {@link #start(RunRequest)} (or {@link #startAwaitingApproval} when {@code
   * awaitingApproval}), adopting what the request's configuration check prepared ({@link
   * PreparedConfiguration}): the run neither writes its files nor parses its configuration again.
   */
  public Run start(RunRequest request, boolean awaitingApproval, PreparedConfiguration prepared) {
    return startAs("run-" + ids.get(), request, awaitingApproval, prepared);
  }

  /**
   * Like {@link #start(RunRequest)} (or {@link #startAwaitingApproval} when {@code
   * awaitingApproval}), under an id the caller chose — and recorded with its idempotency key before
   * calling (the public API's {@code Idempotency-Key}). Returns at once.
   *
   * @throws IllegalStateException when this instance already has a run with that id
   */
  public Run startAs(String id, RunRequest request, boolean awaitingApproval) {
    return startAs(id, request, awaitingApproval, null);
  }

  /**
   * Like {@link #startAs(String, RunRequest, boolean)}, adopting what the request's configuration
   * check prepared ({@link PreparedConfiguration}; null: none): the run neither writes its files
   * nor parses its configuration again.
   */
  public Run startAs(
      String id, RunRequest request, boolean awaitingApproval, PreparedConfiguration prepared) {
    if (runs.containsKey(id)) {
      throw new IllegalStateException("run " + id + " exists already");
    }
    if (awaitingApproval) {
      approvals.put(id, new PendingApproval());
    }
    return launch(id, request, null, prepared);
  }

  /**
   * Starts a run at most once per (tenant, idempotency key), for triggers that may be delivered or
   * sent more than once (chat-ops, webhooks; docs/chatops.md). The run id is derived from the
   * tenant and the key ({@link #runIdFor}), and the key is recorded in {@link #withIdempotencyKeys
   * the durable key record} before the run starts ("record before the side effect"): a duplicate,
   * on this instance or after a restart, returns the first run — or, when this instance no longer
   * holds it in memory, its id — and starts nothing.
   *
   * <p>Concurrency: keyed starts of this instance are serialized (a short critical section: one
   * lookup and, for a new key, one durable write), so two copies arriving at once make one run.
   *
   * @param pendingMessage shown with the run's {@code pending} transition (who asked, and why)
   * @throws RuntimeException when the key could not be recorded: nothing was started, retry later
   */
  public KeyedStart start(RunRequest request, String idempotencyKey, String pendingMessage) {
    return start(request, idempotencyKey, pendingMessage, false);
  }

  /**
   * Like {@link #start(RunRequest, String, String)}; with {@code awaitingApproval} a new run waits
   * at {@code planned} for {@link #approve} or {@link #discard} (its workspace does not
   * auto-apply).
   */
  public KeyedStart start(
      RunRequest request, String idempotencyKey, String pendingMessage, boolean awaitingApproval) {
    return start(request, idempotencyKey, pendingMessage, awaitingApproval, null);
  }

  /**
   * Like {@link #start(RunRequest, String, String, boolean)}, adopting what the trigger's
   * configuration check prepared ({@code prepared}; null: none). When the key made a run already,
   * the prepared directory is deleted: nothing adopts it.
   */
  public KeyedStart start(
      RunRequest request,
      String idempotencyKey,
      String pendingMessage,
      boolean awaitingApproval,
      PreparedConfiguration prepared) {
    String id = runIdFor(request.tenant(), idempotencyKey);
    boolean launched = false;
    try {
      synchronized (keyedStarts) {
        Run existing = runs.get(id);
        if (existing != null) {
          return new KeyedStart(id, Optional.of(existing), true);
        }
        Optional<String> recorded = idempotencyKeys.runFor(request.tenant(), idempotencyKey);
        if (recorded.isPresent()) {
          Optional<Run> here = find(request.tenant(), recorded.get());
          IdempotencyKeys.Claim claim =
              here.isPresent() || !recorded.get().equals(id)
                  ? IdempotencyKeys.Claim.RECORDED
                  : idempotencyKeys.claimUnrecorded(request.tenant(), idempotencyKey);
          switch (claim) {
            case RECORDED -> {
              return new KeyedStart(recorded.get(), here, true);
            }
            case NOT_YET -> {
              return new KeyedStart(id, Optional.empty(), true, true);
            }
            case TAKEN_OVER ->
                // its recorder halted before the run's first record: the run starts here
                LOG.info("run {}: its recorder died before its first record; starting it", id);
          }
        } else if (!idempotencyKeys.record(
            request.tenant(), idempotencyKey, id, request.workspace())) {
          // another planner instance recorded it a moment ago: that one runs it
          return new KeyedStart(id, find(request.tenant(), id), true, true);
        }
        if (awaitingApproval) {
          approvals.put(id, new PendingApproval());
        }
        launched = true;
        return new KeyedStart(
            id, Optional.of(launch(id, request, pendingMessage, prepared)), false);
      }
    } finally {
      if (!launched && prepared != null) {
        UploadedFiles.delete(prepared.directory());
      }
    }
  }

  /**
   * The run id a (tenant, idempotency key) makes: {@code run-} and a name-based (v3) UUID of {@code
   * "stagecraft-run-request", tenant, key}. Stable across restarts and instances, so a bot can
   * compute which run its request made.
   */
  public static String runIdFor(String tenant, String idempotencyKey) {
    return "run-"
        + UUID.nameUUIDFromBytes(
            SecretsKeyring.associatedData("stagecraft-run-request", tenant, idempotencyKey));
  }

  /**
   * The outcome of a keyed start.
   *
   * @param runId the run the key made (now or earlier)
   * @param run the run, when this instance holds it
   * @param duplicate true when the key had already made a run: nothing was started
   * @param unrecorded true when another planner instance, alive, recorded the key and the run has
   *     no record yet: ask again later (it is on its way, or is taken over once that instance is
   *     dead)
   */
  public record KeyedStart(String runId, Optional<Run> run, boolean duplicate, boolean unrecorded) {
    public KeyedStart(String runId, Optional<Run> run, boolean duplicate) {
      this(runId, run, duplicate, false);
    }
  }

  /**
   * Where keyed starts record which run each (tenant, idempotency key) made; by default in memory
   * only. Call once, before runs start.
   */
  public RunCoordinator withIdempotencyKeys(IdempotencyKeys keys) {
    this.idempotencyKeys = keys;
    return this;
  }

  private Run launch(String id, RunRequest request, String pendingMessage) {
    return launch(id, request, pendingMessage, null);
  }

  /**
   * @param prepared what the request's configuration check prepared, adopted by the run (it owns
   *     the directory from now on), or null
   */
  private Run launch(
      String id, RunRequest request, String pendingMessage, PreparedConfiguration prepared) {
    // the run keeps its request for its whole life in memory; the supporting files only until
    // they are written to the run's directory
    Run run = new Run(id, request.withoutSupportFiles(), clock.instant(), journalFor(0));
    recordJournal(run);
    Map<String, byte[]> supportFiles = request.supportFiles();
    if (prepared != null) {
      run.filesDir = prepared.directory(); // deleted when the run ends, however it ends
    }
    runs.put(id, run);
    transition(run, RunStatus.PENDING, pendingMessage);
    // after the pending record, on the lane: durable before POST /runs answers (docs/adr/0029)
    RunRequestRecorder recorder = requestRecorder;
    boolean awaitingApproval = approvals.containsKey(id);
    run.recording.submit(() -> recorder.record(id, request, awaitingApproval, pendingMessage));
    Thread.ofVirtual().name("run-" + id).start(() -> execute(run, supportFiles, prepared));
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
  /**
   * Where {@link #checkLeases} learns when the broker was last unreachable from this planner (the
   * action-event consumer's {@code lastOutage}): no lease is judged until an action lease has
   * passed since, so a broker restart does not make running steps look interrupted. By default
   * never. Call once, before runs start.
   */
  public RunCoordinator withBrokerOutages(Supplier<Instant> lastOutage) {
    this.brokerOutages = lastOutage;
    return this;
  }

  public RunCoordinator withLeases(
      Duration actionLease, Duration dispatchLease, Duration checkEvery) {
    this.actionLease = actionLease;
    this.dispatchLease = dispatchLease;
    leaseChecks.scheduleWithFixedDelay(
        () -> {
          try {
            checkLeases();
            forgetEnded();
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
   * How long an ended run is kept in memory before {@link #forgetEnded} drops it (default {@link
   * #DEFAULT_ENDED_RUN_RETENTION}). Call once, before runs start.
   */
  public RunCoordinator withEndedRunRetention(Duration retention) {
    if (retention.isNegative()) {
      throw new IllegalArgumentException(
          "STAGECRAFT_PLANNER_ENDED_RUN_RETENTION must not be negative (e.g. 2m), got "
              + retention);
    }
    this.endedRunRetention = retention;
    return this;
  }

  /**
   * Drops from memory every run that ended at least the retention ago and whose records are all
   * written (its recording lane is idle), so a planner that has been up for a long time holds only
   * its active and recently ended runs, not every run it ever drove. A dropped run is read from the
   * store from then on, as a run another instance drove is ({@link #find} returns empty; the API
   * falls back to the run's records and recorded journal, docs/runs.md). Called by the lease timer
   * after {@link #checkLeases}; package-private for tests.
   */
  void forgetEnded() {
    Instant before = clock.instant().minus(endedRunRetention);
    for (Run run : runs.values()) {
      synchronized (run) {
        if (run.endedAt == null || run.endedAt.isAfter(before) || run.recording.pending() > 0) {
          continue;
        }
      }
      runs.remove(run.id, run);
      carriedRuns.remove(run.id);
      approvals.remove(run.id);
    }
  }

  /**
   * Reports every silent started action {@code interrupted} (an {@code action.finished} published
   * for its executor, with an envelope id derived from the action id, so the state service records
   * it once and a late real outcome of the executor loses) and fails every action no executor
   * started within the dispatch lease. Called by the lease timer; package-private for tests.
   */
  void checkLeases() {
    Instant now = clock.instant();
    Instant outage = brokerOutages.get();
    if (outage.plus(actionLease).isAfter(now)) {
      // the broker was unreachable within the lease: the silence may be its, not the executors'
      // (their heartbeats arrive once it is back); judge nothing until a whole lease has passed
      return;
    }
    for (Run run : runs.values()) {
      List<EventEnvelope> interrupted = new ArrayList<>();
      boolean abandonedAny = false;
      synchronized (run) {
        if (run.status.isTerminal() || (run.schedule == null && !carriedRuns.containsKey(run.id))) {
          continue;
        }
        List<InFlightActions.Lease> silent =
            new ArrayList<>(run.inFlight.silentFor(actionLease, now));
        // carried over a restart, and no executor reported since (docs/adr/0035)
        List<InFlightActions.Lease> unheard = run.inFlight.unheardSinceRestart(dispatchLease, now);
        silent.addAll(unheard);
        for (InFlightActions.Lease lease : silent) {
          String error =
              unheard.contains(lease)
                  ? InFlightActions.unheardMessage(lease, dispatchLease)
                  : InFlightActions.interruptionMessage(lease, actionLease);
          if (lease.executorId == null) {
            lease.executorId = "(none reported since the run was carried on)";
          }
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
                  InFlightActions.interrupted(lease, error).provenWith(run.runCredential)));
        }
        for (InFlightActions.Lease lease : run.inFlight.neverStartedFor(dispatchLease, now)) {
          String error = RunMessages.notStarted(dispatchLease);
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
      // a run carried on after a restart may have actions running before it is applying again
      applying = run.status == RunStatus.APPLYING || carriedRuns.containsKey(run.id);
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
      finish(run, RunStatus.CANCELED, RunMessages.canceledBeforeApplying(requestedBy));
      PendingApproval pending = approvals.get(runId);
      if (pending != null) {
        pending.decision.complete(null); // wake a run waiting for approval: it ended
      }
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
              + (run.schedule == null ? "" : appliedCount(run))
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

  private void execute(Run run, Map<String, byte[]> supportFiles, PreparedConfiguration prepared) {
    try {
      awaitAdmission(run);
      acquireLock(run);
      CarriedActions carried = carriedRuns.get(run.id);
      if (carried != null && !awaitCarried(run, carried)) {
        return;
      }
      // one state-service call (docs/adr/0025): fencing token, credential, host keys, state; the
      // host keys and the state are read under the lock, so a key recorded by the previous run of
      // the workspace is enforced now
      WorkspaceStates.OpenedRun opened = openRun(run);
      if (carried == null) {
        transition(run, RunStatus.PLANNING, null);
      }
      Path dir = runFiles(run, supportFiles, prepared);
      if (dir == null) {
        return; // ended meanwhile: finish deleted its files
      }
      Planning planning = plan(run, opened, dir, prepared);
      if (planAccepted(run, carried, planning)) {
        applyPlan(run, carried, planning.result());
      }
    } catch (RunEndedException e) {
      LOG.info("run {} ended before it applied", run.id);
    } catch (Exception e) {
      LOG.warn("run {} failed: {}", run.id, e.toString(), e);
      finish(run, RunStatus.ERRORED, RunMessages.runFailed(e.getMessage()));
    }
  }

  /** A run's plan and the state it was made against. */
  private record Planning(PriorState prior, PlanResult result) {}

  /**
   * The directory of the run's files: the apply context reads provisioner files (script, source,
   * key_file) when it dispatches, so it lives until the run ends (finish deletes it); a prepared
   * one was written by the request's configuration check (docs/adr/0025).
   *
   * @return null when the run ended meanwhile
   */
  private Path runFiles(Run run, Map<String, byte[]> supportFiles, PreparedConfiguration prepared) {
    RunRequest req = run.request;
    Path dir;
    if (prepared != null) {
      synchronized (run) {
        dir = run.filesDir;
      }
      if (dir == null) {
        return null; // ended meanwhile: finish deleted it
      }
    } else {
      dir = uploads.materialise(req.tenant(), req.files(), supportFiles);
      synchronized (run) {
        if (run.status.isTerminal()) {
          UploadedFiles.delete(dir);
          return null;
        }
        run.filesDir = dir;
      }
    }
    return dir;
  }

  /** Plans the run against the state it opened with. */
  private Planning plan(
      Run run, WorkspaceStates.OpenedRun opened, Path dir, PreparedConfiguration prepared) {
    RunRequest req = run.request;
    // sealed attribute values are opened so the plan compares clear values (docs/adr/0024)
    PriorState prior =
        PriorState.fromV4Json(
            opened.stateV4Json(), AttributeSealing.of(secrets, req.tenant(), req.workspace()));
    PlanRequest planRequest =
        new PlanRequest(
            req.workspace(),
            req.files(),
            req.variables(),
            req.replace(),
            req.destroy(),
            dir,
            true,
            req.hclVariables());
    LoadResult parsed = prepared == null ? Planner.parse(req.files()) : prepared.parsed();
    // remote states are read now, with the run's own credential: planning stays pure
    // (docs/planning.md "Remote state", ADR 0063)
    planRequest =
        RemoteStateReads.read(
            planRequest, parsed, states, req.tenant(), opened.runCredential(), secrets);
    PlanResult result = Planner.plan(planRequest, prior, parsed);
    synchronized (run) {
      run.planResult = result;
    }
    return new Planning(prior, result);
  }

  /**
   * Checks the plan before it is shown or applied: ends the run when the configuration is invalid,
   * when the state moved under a bound serial or saved plan, when a resumed run's plan is not the
   * one shown before the restart, or when a carried-on run's rest must not be applied.
   *
   * @return true when the run goes on with the plan
   */
  private boolean planAccepted(Run run, CarriedActions carried, Planning planning) {
    RunRequest req = run.request;
    PlanResult result = planning.result();
    PriorState prior = planning.prior();
    if (result.hasErrors()) {
      finish(run, RunStatus.ERRORED, result.renderDiagnostics());
      return false;
    }
    if (carried != null) {
      // the expected serial / digest held when the run first planned; what remains is checked
      // against what was dispatched and what was approved (docs/adr/0035)
      if (!continueCarried(run, carried, result)) {
        return false;
      }
    } else if (req.expectedSerial() != null && req.expectedSerial() != prior.serial()) {
      finish(run, RunStatus.ERRORED, RunMessages.staleSerial(req.expectedSerial(), prior.serial()));
      return false;
    }
    if (carried == null
        && req.expectedDigest() != null
        && !req.expectedDigest().equals(result.plan().digest())) {
      finish(run, RunStatus.ERRORED, RunMessages.savedPlanMismatch());
      return false;
    }
    String planText = PlanRenderer.render(result.plan());
    synchronized (run) {
      run.plan = result.plan();
      run.planText = planText;
    }
    String resumedDigest;
    synchronized (run) {
      resumedDigest = run.resumedPlanDigest;
    }
    if (resumedDigest != null && !resumedDigest.equals(result.plan().digest())) {
      // docs/adr/0029: an approval names the digest shown before the restart
      approvals.remove(run.id);
      finish(
          run,
          RunStatus.ERRORED,
          RestartRecovery.planMovedMessage(resumedDigest, result.plan().digest()));
      return false;
    }
    return true;
  }

  /**
   * Shows the plan ({@code planned}), ends a run without changes, waits for approval when the run
   * needs it, then starts applying: the schedule made and the first actions dispatched.
   */
  private void applyPlan(Run run, CarriedActions carried, PlanResult result) throws Exception {
    RunRequest req = run.request;
    String planText;
    synchronized (run) {
      planText = run.planText;
    }
    // output-only changes are applied (recorded in state) like Terraform's, approval included
    boolean applies = result.plan().applies();
    if (!applies) {
      // nothing to approve: never shown as waiting, not even for the moment it is planned
      approvals.remove(run.id);
    }
    PendingApproval pending = approvals.get(run.id);
    if (pending != null) {
      pending.plannedAt = pending.firstPlannedAt != null ? pending.firstPlannedAt : clock.instant();
    }
    if (carried == null) {
      transition(run, RunStatus.PLANNED, planText);
    }
    if (!applies) {
      approvals.remove(run.id);
      finish(run, RunStatus.PLANNED_AND_FINISHED, "No changes.");
      return;
    }
    String approvedBy = pending == null ? null : awaitApproval(run, pending);
    synchronized (run) {
      run.schedule = new ApplySchedule(result.plan(), Math.max(1, req.parallelism()));
      if (carried == null
          && (approvedBy != null || req.expectedSerial() != null || req.expectedDigest() != null)) {
        // recorded with the applying transition: a planner carrying the run on after a restart
        // applies the rest only when it is part of this plan (docs/adr/0051)
        run.approvedChanges = result.plan().changeDocuments();
      } else if (carried != null) {
        run.approvedChanges = carried.approvedChanges();
      }
    }
    transition(
        run,
        RunStatus.APPLYING,
        (carried != null ? "Carried on, applying the rest: " : "")
            + (approvedBy == null ? "" : "Approved by " + approvedBy + ". ")
            + PlanRenderer.summary(result.plan()));
    dispatchReady(run);
  }

  /**
   * The first part of carrying a run on ({@link #carryOn}): takes back the run's credential from
   * its dispatches, reads the recorded outcomes, goes {@code applying} again and waits (on the
   * run's virtual thread) until every dispatched action has an outcome.
   *
   * @return true when the rest of the plan is to be made; false when the run ended (errored when a
   *     dispatched action did not succeed, canceled)
   * @throws RunEndedException when it ended while it waited
   */
  private boolean awaitCarried(Run run, CarriedActions carried) throws Exception {
    RunRequest req = run.request;
    List<DispatchedActions.Dispatched> unfinished;
    synchronized (run) {
      unfinished = carried.unfinished();
    }
    List<ActionDispatched> opened = new ArrayList<>();
    for (DispatchedActions.Dispatched d : unfinished) {
      opened.add(DispatchSealing.open(d.action(), secrets, req.tenant(), req.workspace()));
    }
    // read after the listeners subscribed (the caller's contract): together with the
    // state.recorded events from now on, no outcome is missed
    Map<String, String> outcomes = states.recordedOutcomes(req.tenant(), req.workspace(), run.id);
    String message;
    synchronized (run) {
      if (run.status.isTerminal()) {
        throw new RunEndedException();
      }
      // the credential the running actions prove their outcomes with, and the planner its
      // interrupted reports; the lease it was minted for is the one the run got back
      run.runCredential = CarriedActions.runCredential(opened);
      outcomes.forEach(carried::recorded);
      Instant carriedAt = clock.instant();
      for (DispatchedActions.Dispatched d : carried.unfinished()) {
        run.inFlight.carried(d.action(), d.dispatchedAt(), d.taken(), carriedAt);
        run.journal.action(d.action().address(), "still running when its planner instance stopped");
      }
      for (String done : carried.finishedWithOutcomes()) {
        run.journal.action(run.id, "finished before its planner instance stopped: " + done);
      }
      message = carried.applyingMessage();
    }
    transition(run, RunStatus.APPLYING, message);
    carried.settled.get();
    boolean canceling;
    List<String> failed;
    synchronized (run) {
      if (run.status.isTerminal()) {
        throw new RunEndedException();
      }
      canceling = run.cancelRequestedBy != null;
      failed = carried.notSucceeded();
    }
    if (canceling) {
      finishCancelIfDone(run);
      return false;
    }
    if (!failed.isEmpty()) {
      String why;
      synchronized (run) {
        why = carried.failedMessage() + cutShortSuffixLocked(run);
      }
      finish(run, RunStatus.ERRORED, why);
      return false;
    }
    return true;
  }

  /**
   * Checks the plan a carried-on run made of what remains ({@link #carryOn}); ends the run when it
   * must not be applied, or when nothing remains ({@code applied}).
   *
   * @return true when the plan is to be applied
   */
  private boolean continueCarried(Run run, CarriedActions carried, PlanResult result) {
    List<String> repeated =
        carried.alreadyDispatched(
            result.plan().changes().stream().map(PlannedAction::address).toList());
    if (!repeated.isEmpty()) {
      finish(run, RunStatus.ERRORED, CarriedActions.wouldRepeatMessage(repeated));
      return false;
    }
    if (!result.plan().hasChanges()) {
      int applied;
      String resources;
      synchronized (run) {
        run.plan = result.plan();
        applied = carried.succeededCount();
        resources = carried.appliedSummary(0, 0, 0);
      }
      finishApplied(
          run,
          "Apply complete! "
              + resources
              + " "
              + applied
              + " action(s) applied, all dispatched before its planner instance stopped; nothing"
              + " remained.");
      return false;
    }
    if (carried.approvalBound()) {
      Optional<String> unapproved = carried.unapprovedRest(result.plan().changeDocuments());
      if (unapproved.isPresent()) {
        finish(
            run,
            RunStatus.ERRORED,
            CarriedActions.approvalNotProvableMessage(
                PlanRenderer.summary(result.plan()), unapproved.get()));
        return false;
      }
    }
    return true;
  }

  /**
   * Opens the run at the state service now that it holds the lock (docs/adr/0025): registers its
   * fencing token, has its one-off state credential minted (docs/adr/0013) and reads the host keys
   * and the state, in one call. When the run ended meanwhile (canceled), the credential is revoked
   * at once.
   */
  private WorkspaceStates.OpenedRun openRun(Run run) {
    RunRequest req = run.request;
    long token;
    synchronized (run) {
      token = run.fencingToken;
    }
    WorkspaceStates.OpenedRun opened = states.openRun(req.tenant(), req.workspace(), run.id, token);
    boolean ended;
    synchronized (run) {
      ended = run.status.isTerminal();
      if (!ended) {
        run.runCredential = opened.runCredential();
        run.knownHostKeys = opened.hostKeys();
      }
    }
    if (ended && opened.runCredential() != null) {
      states.revokeRunCredential(req.tenant(), req.workspace(), run.id);
      throw new RunEndedException();
    }
    return opened;
  }

  /** Revokes the run's state credential, if it has one ({@link CredentialRevocation}). */
  private void revokeRunCredential(Run run, String credential) {
    if (credential != null) {
      CredentialRevocation.revoke(states, run.request.tenant(), run.request.workspace(), run.id);
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
              "stagecraft run " + run.id + " by " + req.requestedBy(),
              req.coalescingKey());
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
          // a resumed run may get back a lease taken before the restart: renew it at once
          heartbeatTasks.put(
              run.id,
              heartbeats.scheduleAtFixedRate(
                  () -> heartbeat(run),
                  run.resumed ? 0 : LEASE_SECONDS / 3,
                  LEASE_SECONDS / 3,
                  TimeUnit.SECONDS));
          return;
        }
        case WorkspaceLocks.Queued q -> {
          if (q.position() != lastPosition) {
            lastPosition = q.position();
            transition(run, RunStatus.QUEUED, RunMessages.queued(q.position()));
          }
        }
        case WorkspaceLocks.Superseded s -> {
          // a newer run with the same coalescing key took this run's place (docs/adr/0023)
          finish(
              run, RunStatus.CANCELED, RunMessages.superseded(s.byHolder(), req.coalescingKey()));
          throw new RunEndedException();
        }
      }
    }
  }

  /**
   * Handles an event of {@code stagecraft.lock-events}: a {@code dev.stagecraft.lock.lease-expired}
   * for the lock a run of this instance holds (same tenant, workspace, holder = run id, lock id)
   * ends that run {@code errored} at once, as a lost lease at its heartbeat would — nothing more is
   * dispatched and its late writes are refused by fencing. Any other event (another type, another
   * instance's or tenant's run, an older lock of the run, a run already ended) is ignored, so a
   * redelivered event is harmless. A {@code dev.stagecraft.lock.force-unlocked} of the lock a run
   * holds (holder = run id, same fencing token: the event may name the lock by a client's id) ends
   * the run the same way, naming who forced it and why. Called by the lock-events listener;
   * thread-safe.
   */
  public void onLockEvent(EventEnvelope envelope) {
    if (EventType.LOCK_FORCE_UNLOCKED.type().equals(envelope.type())) {
      onForceUnlocked(envelope, EventCodec.data(envelope, LockForceUnlocked.class));
      return;
    }
    if (!EventType.LOCK_LEASE_EXPIRED.type().equals(envelope.type())) {
      return;
    }
    LockLeaseExpired expired = EventCodec.data(envelope, LockLeaseExpired.class);
    Run run = expired.holder() == null ? null : runs.get(expired.holder());
    if (run == null
        || !run.request.tenant().equals(envelope.tenant())
        || !run.request.workspace().equals(envelope.workspace())) {
      return;
    }
    synchronized (run) {
      if (run.status.isTerminal() || !expired.lockId().equals(run.lockId)) {
        return;
      }
    }
    LOG.warn("run {}: lock {} lease expired; ending the run", run.id, expired.lockId());
    finish(
        run,
        RunStatus.ERRORED,
        RunMessages.leaseExpired(expired.recordedAt(), expired.lockId(), expired.fencingToken()));
  }

  private void onForceUnlocked(EventEnvelope envelope, LockForceUnlocked forced) {
    Run run = forced.holder() == null ? null : runs.get(forced.holder());
    if (run == null
        || !run.request.tenant().equals(envelope.tenant())
        || !run.request.workspace().equals(envelope.workspace())) {
      return;
    }
    synchronized (run) {
      if (run.status.isTerminal()
          || run.lockId == null
          || run.fencingToken != forced.fencingToken()) {
        return;
      }
    }
    LOG.warn("run {}: workspace lock forced open by {}; ending the run", run.id, forced.actor());
    finish(
        run,
        RunStatus.ERRORED,
        RunMessages.forceUnlocked(forced.actor(), forced.reason(), forced.fencingToken()));
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

  /**
   * Renews the run's workspace lease; when the lock service says the lease is lost (expired, or
   * forced open), the run is ended as {@code errored} — nothing more is dispatched and its late
   * results are refused by fencing. Called by the heartbeat timer; package-private for tests.
   */
  void heartbeat(Run run) {
    String lockId;
    synchronized (run) {
      if (run.status.isTerminal() || run.lockId == null) {
        return;
      }
      lockId = run.lockId;
    }
    try {
      if (!locks.heartbeat(run.request.tenant(), run.request.workspace(), lockId)) {
        finish(run, RunStatus.ERRORED, RunMessages.heartbeatRefused());
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
    EventOrigin.requireRun(envelope, run.request, run.id, recorded.runId(), recorded.actionId());
    if (recordedCarried(run, recorded)) {
      finishCancelIfDone(run);
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
      recordOutcome(run, recorded);
    }
    dispatchReady(run);
  }

  /**
   * Records the outcome of an action of a carried-on run dispatched before the restart (docs/adr/
   * 0035; never in the new schedule).
   *
   * @return false when the action is not such an action
   */
  private boolean recordedCarried(Run run, StateRecorded recorded) {
    CarriedActions carried = carriedRuns.get(run.id);
    if (carried == null) {
      return false;
    }
    synchronized (run) {
      if (!carried.isCarried(recorded.actionId())) {
        return false;
      }
      run.inFlight.recorded(recorded.actionId());
      if (carried.recorded(recorded.actionId(), recorded.outcome())) {
        run.journal.action(
            recorded.address(),
            "succeeded".equals(recorded.outcome())
                ? "complete"
                : "failed"
                    + (recorded.error() == null ? "" : ": " + recorded.error())
                    + " ("
                    + recorded.outcome()
                    + ")");
      }
      return true;
    }
  }

  /**
   * Records the durable outcome of a dispatched action in the run's schedule and journal: a success
   * whose postconditions fail with the applied values counts as failed. Called under the run's
   * monitor.
   */
  private void recordOutcome(Run run, StateRecorded recorded) {
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

  /** Handles executor events: streams logs and outcomes into the run's journal. */
  public void onActionEvent(EventEnvelope envelope) {
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
    List<EventEnvelope> toPublish = new ArrayList<>();
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
        EventEnvelope envelope = dispatchOne(run, action);
        if (envelope != null) {
          toPublish.add(envelope);
        }
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
      if (terminal == RunStatus.APPLIED) {
        finishApplied(run, "Apply complete! " + appliedSummary(run));
      } else {
        finish(
            run,
            terminal,
            "Apply failed: " + String.join(", ", failedAddresses(run)) + cutShortSuffix(run));
      }
    }
    if (!finished) {
      finishCancelIfDone(run);
    }
  }

  /**
   * Resolves one ready action and builds its {@code action.dispatched} (sealed as the keyring
   * allows), tracked in the run's leases and journal; null when its steps do not resolve (the
   * action failed). Called under the run's monitor.
   */
  private EventEnvelope dispatchOne(Run run, PlannedAction action) {
    ActionResolution resolution =
        run.planResult.applyContext().resolve(action, run.appliedAttributes, ids);
    if (resolution.hasErrors()) {
      run.schedule.recordFailed(action.address());
      run.journal.action(action.address(), "failed: " + resolution.renderDiagnostics());
      return null;
    }
    if (!resolution.diagnostics().list().isEmpty()) {
      // warnings found while resolving the steps (a bastion_* or proxy_* setting without its
      // host, say) reach the run log; they change nothing
      run.journal.action(action.address(), "warning: " + resolution.renderDiagnostics());
    }
    run.appliedAttributes.put(action.address(), resolution.attributes());
    ActionDispatched dispatched =
        new ActionDispatched(
            run.id,
            run.id + "/" + action.address(),
            action.address(),
            action.type(),
            action.wireAction(),
            // sensitive values in attributes travel and land in state only sealed (ADR 0024)
            AttributeSealing.of(secrets, run.request.tenant(), run.request.workspace())
                .seal(action.address(), resolution.attributes(), resolution.sensitivePaths()),
            action.dependencies(),
            run.knownHostKeys.attachTo(
                StepTimeouts.withDefault(resolution.steps(), run.request.stepTimeoutSeconds())),
            run.fencingToken,
            resolution.sensitiveValues(),
            action.createBeforeDestroy(),
            action.skipDestroy());
    dispatched =
        dispatched
            .withRunCredential(run.runCredential)
            .withPreviousAddress(action.previousAddress());
    if (secrets.canSeal()) {
      // design §8: commands, environments and keys with secrets in them never go out in clear
      dispatched =
          DispatchSealing.seal(dispatched, secrets, run.request.tenant(), run.request.workspace());
    }
    EventEnvelope envelope =
        codec.wrapWithId(
            dispatched.actionId(),
            run.request.tenant(),
            run.request.workspace(),
            run.id,
            run.eventSequence.incrementAndGet(),
            action.address(),
            dispatched);
    run.inFlight.dispatched(dispatched, clock.instant());
    run.journal.action(
        action.address(),
        action.previousAddress() == null
            ? action.wireAction() + " dispatched"
            : action.wireAction() + " dispatched (moved from " + action.previousAddress() + ")");
    return envelope;
  }

  /**
   * Ends a run whose every action succeeded: its root outputs are recorded in state first, under
   * its lock and credential (docs/adr/0064), then the run ends {@code applied} with {@code message}
   * and the warnings of its outputs and checks — or {@code errored} when the outputs could not be
   * recorded (the resources were applied; the next apply records them).
   */
  private void finishApplied(Run run, String message) {
    String outputWarnings;
    try {
      outputWarnings = RunOutputs.record(run, states, secrets);
    } catch (RuntimeException e) {
      LOG.warn("run {}: outputs not recorded: {}", run.id, e.toString());
      finish(
          run,
          RunStatus.ERRORED,
          message
              + "\nError: the root outputs could not be recorded in the state: "
              + e.getMessage()
              + "\nEvery resource change was recorded; apply again to record the outputs.");
      return;
    }
    finish(run, RunStatus.APPLIED, message + outputWarnings + AppliedChecks.messageSuffix(run));
  }

  /**
   * The resource counts of an applied run: its plan's, and for a carried-on run (docs/adr/0035)
   * also those of the actions it had dispatched before its planner instance stopped.
   */
  private String appliedSummary(Run run) {
    CarriedActions carried = carriedRuns.get(run.id);
    synchronized (run) {
      if (carried != null) {
        return carried.appliedSummary(run.plan.toAdd(), run.plan.toChange(), run.plan.toDestroy());
      }
      return "Resources: %d added, %d changed, %d destroyed."
          .formatted(run.plan.toAdd(), run.plan.toChange(), run.plan.toDestroy());
    }
  }

  /** {@link #cutShortSuffix} for a caller holding the run's monitor. */
  private static String cutShortSuffixLocked(Run run) {
    return run.cutShort.isEmpty() ? "" : "\n" + cutShortDetails(run);
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
    String credential;
    synchronized (run) {
      if (run.status.isTerminal()) {
        return;
      }
      lockId = run.lockId;
      run.lockId = null;
      credential = run.runCredential;
      run.runCredential = null;
    }
    revokeRunCredential(run, credential);
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
    CarriedActions carried = carriedRuns.get(run.id);
    if (carried != null) {
      carried.settled.complete(null); // a carried-on run waiting for its actions: it ended
    }
    // free the run's slot (or its place in line) for the next run of the tenants in turn
    wakeAdmitted(admission.release(run.request.tenant(), run.id));
    var waiter = awaitingAdmission.get(run.id);
    if (waiter != null) {
      waiter.complete(null); // it waited for a slot: its thread sees the run ended
    }
    deleteFiles(run);
  }

  /** Deletes the run's uploaded files; nothing reads them once the run is terminal. */
  private static void deleteFiles(Run run) {
    UploadedFiles.delete(run.takeFilesDir());
  }

  /**
   * Moves the run to {@code status}. Nothing here waits for a commit (docs/adr/0025): the journal
   * (followers, Server-Sent Events) is appended at once; {@code run.transitioned} is handed to the
   * producer without waiting for the broker; the observer's record is queued on the run's {@link
   * RecordingLane}. All three happen at once, under the run's monitor, so they keep the order of
   * the run's event sequence (docs/adr/0073: nothing is held back for the first dispatch).
   */
  private void transition(Run run, RunStatus status, String message) {
    Instant at = clock.instant();
    synchronized (run) {
      if (run.status.isTerminal()) {
        return;
      }
      run.status = status;
      run.message = message;
      if (status.isTerminal()) {
        run.endedAt = at;
      }
      long sequence = run.eventSequence.incrementAndGet();
      run.recordTransition(observer, sequence, status, message, at);
      Optional<Instant> deadline =
          status == RunStatus.PLANNED
              ? approvalDeadline(run.request.tenant(), run.id)
              : Optional.empty();
      transitions.publish(
          run.request.tenant(),
          run.request.workspace(),
          run.id,
          sequence,
          status,
          message,
          deadline.isPresent() ? run.plan.digest() : null,
          deadline.orElse(null));
    }
  }

  /**
   * Announces {@code dev.stagecraft.run.transitioned} to {@code errored} with {@code message} for a
   * run this instance does not drive, which was ended when it could not be carried on after a
   * restart or an adoption (its transition recorded already, numbered {@code sequence}).
   */
  public void announceEnded(
      String tenant, String workspace, String runId, long sequence, String message) {
    transitions.publish(tenant, workspace, runId, sequence, RunStatus.ERRORED, message, null, null);
  }

  /**
   * Runs {@code task} on the run's recording lane, after the records of every transition made so
   * far (for the API's additions to a run's record, which must come after the record exists).
   */
  public void recordInOrder(Run run, Runnable task) {
    run.recording.submit(task);
  }

  /**
   * Waits (at most {@code timeout}) until the records of every transition the run made so far are
   * done, so a read of the records that follows sees them (read-your-writes). Returns at once for a
   * run this instance does not drive.
   *
   * @return false when the time ran out first
   */
  public boolean awaitRecorded(String tenant, String runId, Duration timeout) {
    Optional<Run> run = find(tenant, runId);
    try {
      return run.isEmpty() || run.get().recording.awaitSubmitted(timeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** {@link #awaitRecorded} for every run of the tenant, within {@code timeout} in all. */
  public boolean awaitAllRecorded(String tenant, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      for (Run run : runsOf(tenant)) {
        long left = Math.max(0, deadline - System.nanoTime());
        if (!run.recording.awaitSubmitted(Duration.ofNanos(left))) {
          return false;
        }
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** How long {@link #close} waits for the runs' records to be written (a clean shutdown). */
  static final Duration RECORDING_DRAIN = Duration.ofSeconds(10);

  /**
   * Stops the timers and deletes the runs' files, after waiting (at most {@link #RECORDING_DRAIN})
   * until every transition made so far is recorded: a clean shutdown loses no record.
   */
  @Override
  public void close() {
    long deadline = System.nanoTime() + RECORDING_DRAIN.toNanos();
    for (Run run : runs.values()) {
      try {
        if (!run.recording.awaitSubmitted(
            Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))) {
          LOG.warn("run {}: {} record(s) not written at shutdown", run.id, run.recording.pending());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    heartbeats.shutdownNow();
    leaseChecks.shutdownNow();
    runs.values().forEach(RunCoordinator::deleteFiles);
  }
}
