package dev.stagecraft.planner.service.run;

import dev.stagecraft.planner.service.run.admission.TenantAdmission;
import dev.stagecraft.planner.service.run.approval.ApprovalOutcome;
import dev.stagecraft.planner.service.run.dispatch.RunDispatch;
import dev.stagecraft.planner.service.run.driver.AdmissionEffects;
import dev.stagecraft.planner.service.run.driver.CloseEffects;
import dev.stagecraft.planner.service.run.driver.LockEffects;
import dev.stagecraft.planner.service.run.driver.OpenEffects;
import dev.stagecraft.planner.service.run.driver.OpenedRuns;
import dev.stagecraft.planner.service.run.driver.RunDriver;
import dev.stagecraft.planner.service.run.driver.RunTracing;
import dev.stagecraft.planner.service.run.driver.TransitionEffects;
import dev.stagecraft.planner.service.run.driver.TransitionPublisher;
import dev.stagecraft.planner.service.run.journal.RecordingLane;
import dev.stagecraft.planner.service.run.journal.RunJournal;
import dev.stagecraft.planner.service.run.journal.RunObserver;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand;
import dev.stagecraft.planner.service.run.lifecycle.RunDecider;
import dev.stagecraft.planner.service.run.lifecycle.RunSettings;
import dev.stagecraft.planner.service.run.lifecycle.RunState;
import dev.stagecraft.planner.service.run.recovery.CarriedActions;
import dev.stagecraft.planner.service.run.recovery.DispatchedActions;
import dev.stagecraft.planner.service.run.recovery.RestartRecovery;
import dev.stagecraft.planner.service.run.recovery.ResumableRun;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries runs from request to a terminal status: one {@link RunDriver} per run decides every
 * command of the run with the {@link RunDecider} (docs/runs.md "Decide/apply") and carries out its
 * effects through the ports ({@link RunEffects}): the workspace lock (queued, never failed), the
 * run opened at the state service, the plan, the approval wait, each action dispatched once
 * everything it waits for is recorded, the lock released at the end of every run.
 *
 * <p>Concurrency: this class only turns requests, Kafka events and the lease timer into the run's
 * commands; each run's driver applies them one at a time on its own virtual thread. The request
 * methods wait for their command's decision (an approval learns whether it was refused); the event
 * handlers wait too, so an event is decided before the next one of the same listener. A {@link
 * RunObserver} records the runs (docs/runs.md) on each run's {@link RecordingLane}, off the run's
 * path (docs/adr/0025). After a restart of this planner instance its unfinished runs that applied
 * nothing are started again ({@link #resume}, docs/adr/0029) and those that were applying are
 * carried on from what they dispatched ({@link #carryOn}, docs/adr/0035).
 */
public final class RunCoordinator implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RunCoordinator.class);
  static final int LEASE_SECONDS = 30;
  static final int WAIT_SECONDS = 10;

  private final Map<String, Run> runs = new ConcurrentHashMap<>();
  private final WorkspaceStates states;
  private final EventCodec codec;
  private final TransitionPublisher transitions;
  private final Clock clock;
  private final Supplier<String> ids;
  private final UploadedFiles uploads;
  private final SecretsKeyring secrets;
  private final OpenedRuns openedRuns = new OpenedRuns();
  private final LockEffects lockEffects;
  private final OpenEffects openEffects;
  private final TransitionEffects transitionEffects;
  private final CloseEffects closeEffects;
  private final RunPlanning planning;
  private final RunDispatch dispatch;
  private final RunEventIntake eventIntake;
  private final RunTicks ticks;
  private volatile RunObserver observer = RunObserver.NONE;
  private volatile RunTracing tracing = RunTracing.NONE;
  private volatile RunRequestRecorder requestRecorder = RunRequestRecorder.NONE;
  private volatile Supplier<Instant> brokerOutages = () -> Instant.EPOCH;
  private volatile RunJournal.Recorder journalRecorder;
  private volatile Duration approvalTimeout = DEFAULT_APPROVAL_TIMEOUT;

  /** How long a plan waits for approval before the run is discarded. */
  public static final Duration DEFAULT_APPROVAL_TIMEOUT = Duration.ofHours(1);

  private volatile TenantAdmission admission = TenantAdmission.unlimited();
  private volatile AdmissionEffects admissionEffects = new AdmissionEffects(admission);
  private final KeyedStarts keyedStarts = new KeyedStarts(runs, this::launch);
  private final ScheduledExecutorService heartbeats = daemonTimer("lock-heartbeats");
  private final ScheduledExecutorService timers = daemonTimer("action-leases");
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
    this.states = states;
    this.codec = codec;
    this.transitions = new TransitionPublisher(codec, outbox);
    this.clock = clock;
    this.ids = ids;
    this.lockEffects = new LockEffects(locks, heartbeats, LEASE_SECONDS, WAIT_SECONDS);
    this.openEffects = new OpenEffects(states, openedRuns, clock);
    this.transitionEffects = new TransitionEffects(transitions, clock);
    this.closeEffects = new CloseEffects(lockEffects);
    this.planning = new RunPlanning(uploads, states, secrets, openedRuns, clock);
    this.dispatch = new RunDispatch(codec, outbox, secrets, openedRuns, clock, ids);
    this.eventIntake = new RunEventIntake(runs, clock);
    this.ticks = new RunTicks(runs, clock);
  }

  private static ScheduledExecutorService daemonTimer(String name) {
    return Executors.newSingleThreadScheduledExecutor(
        r -> {
          Thread t = new Thread(r, name);
          t.setDaemon(true);
          return t;
        });
  }

  /**
   * Limits how many runs each tenant has active at once (fair sharing; see {@link
   * TenantAdmission}). Call once, before runs start; without it there is no limit.
   */
  public RunCoordinator withAdmission(TenantAdmission admission) {
    this.admission = admission;
    this.admissionEffects = new AdmissionEffects(admission);
    return this;
  }

  /** Tells {@code observer} of every transition (the planner records runs with it); call once. */
  public RunCoordinator withObserver(RunObserver observer) {
    this.observer = observer;
    return this;
  }

  /** Marks runs' traces with {@code tracing} (docs/adr/0083). Call once, before runs start. */
  public RunCoordinator withTracing(RunTracing tracing) {
    this.tracing = tracing;
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
  public static final long RESUME_SEQUENCE_GAP = RunDecider.RESUME_SEQUENCE_GAP;

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
    RunCommand.Resume resume =
        new RunCommand.Resume(
            RunStatus.PENDING,
            resumable.lastSequence(),
            message,
            resumable.awaitingApproval() ? resumable.planDigest() : null,
            resumable.awaitingApproval() ? resumable.plannedAt() : null);
    return restart(resumable, message, null, resume);
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
    CarriedActions.Start start = CarriedActions.carryOn(resumable, dispatched, message, secrets);
    return restart(resumable, message, start.carried(), start.command());
  }

  private Run restart(
      ResumableRun resumable, String message, CarriedActions carried, RunCommand first) {
    String id = resumable.id();
    if (runs.containsKey(id)) {
      throw new IllegalStateException("run " + id + " exists already");
    }
    RunRequest request = resumable.request();
    // its journal, too, continues above what its previous life recorded (docs/adr/0032)
    RunJournal.Recorder recorder = journalRecorder;
    long journalBase =
        recorder == null ? 0 : recorder.lastRecorded(request.tenant(), id) + RESUME_SEQUENCE_GAP;
    Run run =
        new Run(
            id,
            request,
            resumable.createdAt(),
            journalFor(journalBase),
            new Run.Launch(request, null, message),
            carried);
    if (carried != null) {
      run.approvedChanges(carried.approvedChanges());
      carried.dispatches().forEach(a -> run.dispatches.putIfAbsent(a.actionId(), a));
    }
    recordJournal(run);
    // its slot first, in the caller's order: admit is idempotent, the run asks again
    admission.admit(request.tenant(), id);
    return drive(run, settings(request, resumable.awaitingApproval()), first);
  }

  private static RunSettings settings(RunRequest request, boolean awaitingApproval) {
    return new RunSettings(
        request.tenant(),
        request.workspace(),
        awaitingApproval,
        request.expectedSerial(),
        request.expectedDigest(),
        Math.max(1, request.parallelism()));
  }

  /** Starts the run's driver with {@code first} and waits until it is decided. */
  private Run drive(Run run, RunSettings settings, RunCommand first) {
    RunState initial = RunState.initial(run.id, settings);
    run.refresh(initial, clock.instant());
    run.driver =
        RunDriver.start(
            initial,
            new RunDecider(approvalTimeout, actionLease, dispatchLease),
            new RunEffects(parts(), run),
            new RunEventJournal(run, observer, clock),
            tracing);
    // listed only once it has its driver: the lease timer ticks every listed run
    runs.put(run.id, run);
    run.decide(first);
    return run;
  }

  private RunEffects.Parts parts() {
    return new RunEffects.Parts(
        lockEffects,
        admissionEffects,
        openEffects,
        transitionEffects,
        closeEffects,
        planning,
        dispatch,
        states,
        secrets,
        requestRecorder,
        timers,
        brokerOutages,
        clock);
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
    return launch("run-" + ids.get(), request, null, null, true);
  }

  /**
   * When the run of the tenant held by this instance waits for approval now ({@code planned}, its
   * plan not yet approved or discarded): the time its approval expires. Empty when it does not wait
   * (not planned yet, applies automatically, decided, ended) or this instance does not hold it.
   */
  public Optional<Instant> approvalDeadline(String tenant, String runId) {
    return find(tenant, runId)
        .flatMap(
            run ->
                new RunDecider(approvalTimeout, actionLease, dispatchLease)
                    .approvalDeadline(run.state()));
  }

  /**
   * Approves a planned run's plan, named by its digest (docs/adr/0005): the run goes on to apply
   * exactly that plan. Refused when the digest differs, when the run is not waiting, or when the
   * plan is older than the approval timeout (the run is then discarded). Thread-safe; a second
   * approval of the same run gets {@link ApprovalOutcome#NOT_AWAITING}.
   */
  public ApprovalOutcome approve(String tenant, String runId, String planDigest, String by) {
    return find(tenant, runId)
        .map(
            run ->
                ApprovalOutcome.of(
                    run.decide(new RunCommand.Approve(planDigest, by, clock.instant()))))
        .orElse(ApprovalOutcome.NOT_FOUND);
  }

  /**
   * Discards a run waiting for approval: it ends {@code discarded} and releases the workspace lock.
   *
   * @return {@link ApprovalOutcome#DONE}, or why not
   */
  public ApprovalOutcome discard(String tenant, String runId, String by) {
    return find(tenant, runId)
        .map(run -> ApprovalOutcome.of(run.decide(new RunCommand.Discard(by))))
        .orElse(ApprovalOutcome.NOT_FOUND);
  }

  /** Where plans and runs write the files they were uploaded with. */
  public UploadedFiles uploads() {
    return uploads;
  }

  /** Creates the run and starts it in the background; returns at once. */
  public Run start(RunRequest request) {
    return launch("run-" + ids.get(), request, null, null, false);
  }

  /**
   * Like {@link #start(RunRequest)} (or {@link #startAwaitingApproval} when {@code
   * awaitingApproval}), adopting what the request's configuration check prepared ({@link
   * PreparedConfiguration}): the run neither writes its files nor parses its configuration again.
   */
  public Run start(
      RunRequest request,
      String pendingMessage,
      boolean awaitingApproval,
      PreparedConfiguration prepared) {
    return startAs("run-" + ids.get(), request, pendingMessage, awaitingApproval, prepared);
  }

  /**
   * Like {@link #start(RunRequest)} (or {@link #startAwaitingApproval} when {@code
   * awaitingApproval}), under an id the caller chose — and recorded with its idempotency key before
   * calling (the public API's {@code Idempotency-Key}). Returns at once.
   *
   * @throws IllegalStateException when this instance already has a run with that id
   */
  public Run startAs(String id, RunRequest request, boolean awaitingApproval) {
    return startAs(id, request, null, awaitingApproval, null);
  }

  /**
   * Like {@link #startAs(String, RunRequest, boolean)}, adopting what the request's configuration
   * check prepared ({@link PreparedConfiguration}; null: none): the run neither writes its files
   * nor parses its configuration again.
   */
  public Run startAs(
      String id,
      RunRequest request,
      String pendingMessage,
      boolean awaitingApproval,
      PreparedConfiguration prepared) {
    if (runs.containsKey(id)) {
      throw new IllegalStateException("run " + id + " exists already");
    }
    return launch(id, request, pendingMessage, prepared, awaitingApproval);
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
    return keyedStarts.start(request, idempotencyKey, pendingMessage, awaitingApproval, prepared);
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
    keyedStarts.keys(keys);
    return this;
  }

  /**
   * Starts the run's driver: its {@code pending} transition journaled, recorded (then its request,
   * on the lane: durable before {@code POST /runs} answers, docs/adr/0029) and published before
   * this returns.
   *
   * @param prepared what the request's configuration check prepared, adopted by the run (it owns
   *     the directory from now on), or null
   */
  private Run launch(
      String id,
      RunRequest request,
      String pendingMessage,
      PreparedConfiguration prepared,
      boolean awaitingApproval) {
    Run run =
        new Run(
            id,
            request,
            clock.instant(),
            journalFor(0),
            new Run.Launch(request, prepared, pendingMessage),
            null);
    recordJournal(run);
    return drive(run, settings(request, awaitingApproval), new RunCommand.Start(pendingMessage));
  }

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
    timers.scheduleWithFixedDelay(
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
   * written ({@link RunTicks#forgetEnded}). Called by the lease timer; package-private for tests.
   */
  void forgetEnded() {
    ticks.forgetEnded(endedRunRetention);
  }

  /**
   * Tells every active run the time ({@link RunTicks#tick}). Called by the lease timer;
   * package-private for tests.
   */
  void checkLeases() {
    ticks.tick(brokerOutages.get());
  }

  /**
   * Cancels a run of this tenant. Before it applies, it ends {@code canceled} at once (a queued run
   * leaves the queue, a granted lock is released). While it applies, nothing more is dispatched,
   * every executor is asked to stop the run's running actions ({@code run.cancel-requested} on
   * {@code stagecraft.control}), and the run ends {@code canceled} once each started action's
   * outcome is recorded or its lease expired. Idempotent. Returns once the cancel is decided — or,
   * when the run is blocked on a slow service call for longer than {@code Run#ANSWER_WAIT}, with
   * the cancel queued: it is decided in turn.
   *
   * @return the run, or empty when this instance does not know it
   */
  public Optional<Run> cancel(String tenant, String runId, String requestedBy) {
    Optional<Run> found = find(tenant, runId);
    found.ifPresent(run -> run.tell(new RunCommand.CancelRequested(requestedBy)));
    return found;
  }

  /** A run of this tenant, if this instance knows it. */
  public Optional<Run> find(String tenant, String runId) {
    return Optional.ofNullable(runs.get(runId)).filter(r -> r.request.tenant().equals(tenant));
  }

  public Collection<Run> runsOf(String tenant) {
    return runs.values().stream().filter(r -> r.request.tenant().equals(tenant)).toList();
  }

  /**
   * Handles an event of {@code stagecraft.lock-events} ({@link RunEventIntake#onLockEvent}). Called
   * by the lock-events listener; thread-safe.
   */
  public void onLockEvent(EventEnvelope envelope) {
    eventIntake.onLockEvent(envelope);
  }

  /**
   * Renews the run's workspace lease now, as its next heartbeat would (a refused renewal ends the
   * run {@code errored}), and waits until the run decided it. For tests.
   */
  void heartbeat(Run run) {
    lockEffects.renewNow(run.id);
    run.decide(new RunCommand.Tick(clock.instant(), brokerOutages.get()));
  }

  /** Handles {@code state.recorded} ({@link RunEventIntake#onStateRecorded}). Idempotent. */
  public void onStateRecorded(EventEnvelope envelope) {
    eventIntake.onStateRecorded(envelope);
  }

  /** Handles executor events ({@link RunEventIntake#onActionEvent}). */
  public void onActionEvent(EventEnvelope envelope) {
    eventIntake.onActionEvent(envelope);
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
    timers.shutdownNow();
    for (Run run : runs.values()) {
      RunDriver driver = run.driver;
      if (driver != null) {
        driver.close();
      }
      UploadedFiles.delete(run.takeFilesDir());
    }
  }
}
