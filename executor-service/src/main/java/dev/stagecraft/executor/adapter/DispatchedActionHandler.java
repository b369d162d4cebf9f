package dev.stagecraft.executor.adapter;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import dev.stagecraft.executor.step.ActionResult;
import dev.stagecraft.executor.step.ActionRunner;
import dev.stagecraft.executor.step.RunConnectionPool;
import dev.stagecraft.executor.step.RunConnections;
import dev.stagecraft.platform.kafka.EventConsumer;
import dev.stagecraft.platform.kafka.EventPublisher;
import dev.stagecraft.platform.logging.RunLogContext;
import dev.stagecraft.platform.tracing.Tracing;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.EventCodec.MalformedEventException;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.action.DispatchSealing;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import dev.stagecraft.schemas.seal.UnsealException;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes {@code action.dispatched} events off the poll loop and runs each on its own virtual thread.
 *
 * <p><b>Idempotency.</b> {@link EventConsumer} delivers at least once, so the same dispatch (same
 * {@code actionId}) can arrive again. This instance remembers the action ids it took and ignores a
 * second delivery. The id is remembered before {@code action.started} is published, and {@code
 * action.started} is published, synchronously, before the first command runs: a redelivery to
 * <em>another</em> instance (after a rebalance or a crash) is therefore never silent, it shows as a
 * second {@code action.started} with a different executor id.
 *
 * <p><b>Claim before run</b> (docs/adr/0007). After {@code action.started} is committed, the
 * handler commits the dispatch's offset synchronously ({@link EventConsumer#commitThroughCurrent})
 * and runs the action only if that commit succeeded. A crash before the commit means redelivery,
 * but nothing had run; after it the dispatch is never delivered again, to any executor. If the
 * commit fails (the partition moved to another executor), the action is not run here and not
 * remembered: its new owner runs it. A dispatch older than {@code dispatchExpiry} (by its envelope
 * time) is not run at all: the planner has given up on it or is about to (its dispatch lease is
 * longer).
 *
 * <p><b>Memory.</b> The action ids taken and the runs canceled are kept in bounded Caffeine caches
 * (at most {@value #REMEMBERED_ACTIONS} and {@value #REMEMBERED_CANCELS}), each entry for twice the
 * dispatch expiry by {@code clock}. That is as long as it matters: the planner never dispatches an
 * action twice (its id is the event's, {@code <run>/<address>}), so a copy of a dispatch carries
 * the first one's envelope time and is not run anyway once it expired; likewise a dispatch that
 * crossed a cancel is older than the cancel. The margin covers a planner clock up to one dispatch
 * expiry ahead of this one. Only more entries than the bound within that time (a flood) forget
 * early, and then Caffeine (W-TinyLFU, not LRU) keeps only about the newest 1% of them for sure.
 *
 * <p><b>Liveness.</b> While actions run, a timer sends each one's {@code action.heartbeat} every
 * {@code heartbeatInterval}; the planner declares an action interrupted when they stop. {@link
 * #cancel} interrupts the running actions of a run; they are reported {@code canceled}.
 *
 * <p><b>Concurrency.</b> {@link #handle} runs on the consumer's poll thread. It blocks only to
 * publish {@code action.started} and, when {@code concurrency} actions are already running, to wait
 * for a free permit (back-pressure: the loop stops polling while the executor is full). Actions run
 * on virtual threads; each releases its permit after {@code action.finished} was published.
 */
final class DispatchedActionHandler implements EventConsumer.Handler {
  static final String SOURCE = "/stagecraft/executor-service";
  static final int REMEMBERED_ACTIONS = 100_000;
  private static final Logger LOG = LoggerFactory.getLogger(DispatchedActionHandler.class);
  private static final Duration PERMIT_POLL = Duration.ofMillis(200);
  private static final Duration AFTER_INTERRUPT = Duration.ofSeconds(30);
  static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(2);
  static final Duration DEFAULT_DISPATCH_EXPIRY = Duration.ofMinutes(5);
  static final int REMEMBERED_CANCELS = 10_000;

  private final ActionRunner runner;
  private RunConnectionPool connections; // null: every action connects on its own
  private final EventPublisher publisher;
  private final String executorId;
  private final SecretsKeyring secrets;
  private final EventCodec codec = EventCodec.forSource(SOURCE);
  private final Semaphore permits;
  private final ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor();
  private volatile Duration dispatchExpiry = DEFAULT_DISPATCH_EXPIRY;
  private volatile Clock clock = Clock.systemUTC();
  private final Cache<String, Boolean> taken = remembered(REMEMBERED_ACTIONS);
  private volatile boolean closing;

  /** An action running on a worker thread, of a run of {@code tenant}/{@code workspace}. */
  private record Running(
      String runId, String tenant, String workspace, ActionEventEmitter events, Thread thread) {}

  /** A run canceled by a control event of its tenant and workspace. */
  private record Canceled(String tenant, String workspace, String reason) {}

  private final Map<String, Running> running = new ConcurrentHashMap<>();
  private final Cache<String, Canceled> canceledRuns = remembered(REMEMBERED_CANCELS); // by run

  private final ScheduledExecutorService heartbeats =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "action-heartbeats");
            t.setDaemon(true);
            return t;
          });
  private volatile BooleanSupplier claim = () -> true;
  private volatile ExecutorMetrics metrics = ExecutorMetrics.NONE;
  private final int concurrency;

  DispatchedActionHandler(
      ActionRunner runner, EventPublisher publisher, String executorId, int concurrency) {
    this(runner, publisher, executorId, concurrency, SecretsKeyring.none());
  }

  /**
   * @param secrets opens sealed dispatches (see {@link DispatchSealing}); a dispatch it cannot open
   *     is reported failed without running anything
   */
  DispatchedActionHandler(
      ActionRunner runner,
      EventPublisher publisher,
      String executorId,
      int concurrency,
      SecretsKeyring secrets) {
    this.secrets = secrets;
    this.runner = runner;
    this.publisher = publisher;
    this.executorId = executorId;
    this.permits = new Semaphore(concurrency);
    this.concurrency = concurrency;
  }

  /** Records steps, actions and slots in {@code metrics}. Call before the consumer starts. */
  DispatchedActionHandler withMetrics(ExecutorMetrics metrics) {
    this.metrics = metrics;
    metrics.slots(permits, concurrency);
    return this;
  }

  /**
   * Runs every action with a lease of {@code pool} for its tenant and run, so that the actions of a
   * run share SSH connections (see {@link RunConnectionPool}); without it each action connects on
   * its own. Call before the consumer starts.
   */
  DispatchedActionHandler shareConnectionsThrough(RunConnectionPool pool) {
    this.connections = pool;
    return this;
  }

  /**
   * How this handler claims a dispatch before running it: normally {@link
   * EventConsumer#commitThroughCurrent} of the consumer that calls {@link #handle} (true =
   * claimed). Call before the consumer starts.
   */
  DispatchedActionHandler claimWith(BooleanSupplier claim) {
    this.claim = claim;
    return this;
  }

  /**
   * Starts the heartbeat timer and sets how old a dispatch may be when it is taken. Call once,
   * before the consumer starts.
   *
   * @param heartbeatInterval how often each running action sends {@code action.heartbeat}
   * @param dispatchExpiry a dispatch whose envelope time is older is not run (must be shorter than
   *     the planner's {@code stagecraft.planner.dispatch-lease})
   */
  DispatchedActionHandler withLiveness(
      Duration heartbeatInterval, Duration dispatchExpiry, Clock clock) {
    this.dispatchExpiry = dispatchExpiry;
    this.clock = clock;
    heartbeats.scheduleAtFixedRate(
        () -> running.values().forEach(r -> r.events().heartbeat()),
        heartbeatInterval.toMillis(),
        heartbeatInterval.toMillis(),
        TimeUnit.MILLISECONDS);
    return this;
  }

  /**
   * Stops the running actions of {@code runId} on this executor: each is marked canceled and its
   * thread interrupted (the runner kills its command); dispatches of the run that arrive later are
   * not run. Only a cancel of the run's own tenant and workspace counts: one that names the run
   * under another is refused. Idempotent; any thread.
   *
   * @return how many running actions were interrupted
   * @throws MalformedEventException when an action of the run runs here for another tenant or
   *     workspace than the cancel's (nothing is stopped; the consumer dead-letters the event)
   */
  int cancel(String runId, String reason, String tenant, String workspace) {
    for (Running r : running.values()) {
      if (r.runId().equals(runId)
          && (!r.tenant().equals(tenant) || !Objects.equals(r.workspace(), workspace))) {
        throw new MalformedEventException(
            "run.cancel-requested for run "
                + runId
                + " came as tenant "
                + tenant
                + ", workspace "
                + workspace
                + ", but the run belongs to another; nothing was stopped");
      }
    }
    String why = reason == null ? "canceled" : reason;
    canceledRuns.put(runId, new Canceled(tenant, workspace, why));
    int interrupted = 0;
    for (Running r : running.values()) {
      if (r.runId().equals(runId)) {
        r.events().canceled(why);
        r.thread().interrupt();
        interrupted++;
      }
    }
    return interrupted;
  }

  /** Why the run was canceled, when a cancel of its own tenant and workspace came; else null. */
  String canceledBecause(String runId, String tenant, String workspace) {
    Canceled c = canceledRuns.getIfPresent(runId);
    return c != null && c.tenant().equals(tenant) && Objects.equals(c.workspace(), workspace)
        ? c.reason()
        : null;
  }

  @Override
  public void handle(EventEnvelope event) throws InterruptedException {
    ActionDispatched action = EventCodec.data(event, ActionDispatched.class);
    if (action.actionId() == null || action.actionId().isBlank()) {
      throw new MalformedEventException("action.dispatched " + event.id() + " has no actionId");
    }
    if (event.workspace() == null || event.workspace().isBlank()) {
      throw new MalformedEventException("action.dispatched " + event.id() + " has no workspace");
    }
    if (!take(action.actionId())) {
      LOG.warn(
          "action {} of run {} was already taken by this executor; ignoring the redelivery {}",
          action.actionId(),
          action.runId(),
          event.id());
      return;
    }
    try {
      acquirePermit();
    } catch (InterruptedException | RuntimeException e) {
      forget(action.actionId());
      throw e;
    }
    String runId = action.runId() != null ? action.runId() : event.runid();
    if (event.time() != null && event.time().plus(dispatchExpiry).isBefore(clock.instant())) {
      permits.release();
      LOG.warn(
          "action {} of run {} not run: dispatched at {}, longer ago than the dispatch expiry {}"
              + " (the planner gives up on it)",
          action.actionId(),
          runId,
          event.time(),
          dispatchExpiry);
      return;
    }
    if (runId != null && canceledBecause(runId, event.tenant(), event.workspace()) != null) {
      permits.release();
      LOG.info("action {} not run: run {} was canceled", action.actionId(), runId);
      return;
    }
    ActionEventEmitter events =
        new ActionEventEmitter(codec, publisher, event, action, executorId).withMetrics(metrics);
    try {
      events.started();
      if (event.time() != null) {
        metrics.started(Duration.between(event.time(), clock.instant()));
      }
      if (!claim.getAsBoolean()) {
        // Not claimed: another executor owns the dispatch now and runs it; nothing ran here.
        LOG.warn("action {} not run here: its dispatch could not be claimed", action.actionId());
        permits.release();
        forget(action.actionId());
        return;
      }
      // the worker's spans are children of this record's consumer span (docs/adr/0083)
      workers.execute(Context.current().wrap(() -> runAndReport(event, action, events)));
    } catch (RuntimeException e) {
      // Nothing ran, and (started could not be published) the dispatch was not claimed: the
      // offset stays uncommitted and the dispatch can be delivered again.
      permits.release();
      forget(action.actionId());
      throw e;
    }
  }

  private void runAndReport(
      EventEnvelope event, ActionDispatched action, ActionEventEmitter events) {
    String runId = action.runId() != null ? action.runId() : event.runid();
    running.put(
        action.actionId(),
        new Running(runId, event.tenant(), event.workspace(), events, Thread.currentThread()));
    Span span = actionSpan(event, action, runId);
    try (RunLogContext logContext =
            RunLogContext.open(event.tenant(), event.workspace(), runId, action.actionId());
        Scope traced = span.makeCurrent()) {
      logContext.withCurrentTrace(); // the action's span, current now
      String canceled =
          runId == null ? null : canceledBecause(runId, event.tenant(), event.workspace());
      if (canceled != null) {
        // canceled between the claim and now: the runner stops before the first step
        events.canceled(canceled);
        Thread.currentThread().interrupt();
      }
      ActionResult result;
      try {
        ActionDispatched opened =
            DispatchSealing.openSealedOnly(action, secrets, event.tenant(), event.workspace());
        // action.finished proves the outcome with the run's state credential (ADR 0013)
        events.runCredential(opened.runCredential());
        // The lease ends with the action: the run's SSH connections may close after its last one.
        try (RunConnections lease =
            connections == null ? null : connections.open(event.tenant(), action.runId())) {
          result = lease == null ? runner.run(opened, events) : runner.run(opened, events, lease);
        }
      } catch (UnsealException e) {
        // permanent: redelivery would not help; the message names no secret
        LOG.error("action {} not run: {}", action.actionId(), e.getMessage());
        result =
            ActionResult.failed(
                null, "cannot open the sealed provisioners of this action: " + e.getMessage());
      } catch (RuntimeException e) {
        LOG.error("action {} failed unexpectedly", action.actionId(), e);
        result = ActionResult.failed(null, "executor error: " + e.getClass().getSimpleName());
      }
      // A forced shutdown interrupts the runner; the result must still be published.
      boolean interrupted = Thread.interrupted();
      running.remove(action.actionId()); // no more heartbeats; finished says the rest
      events.finished(result);
      metrics.actionEnded(result.outcome().name().toLowerCase(Locale.ROOT));
      LOG.info(
          "action {} ({} {}) {}",
          action.actionId(),
          action.action(),
          action.address(),
          result.outcome());
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    } finally {
      span.end();
      running.remove(action.actionId());
      permits.release();
    }
  }

  /** The span of running one action (steps and SSH connections are its children). */
  private static Span actionSpan(EventEnvelope event, ActionDispatched action, String runId) {
    Span span =
        Tracing.tracer()
            .spanBuilder("action " + action.action())
            .setAttribute(Tracing.TENANT, event.tenant())
            .setAttribute(Tracing.ACTION, action.actionId())
            .startSpan();
    if (span.isRecording()) {
      if (event.workspace() != null) {
        span.setAttribute(Tracing.WORKSPACE, event.workspace());
      }
      if (runId != null) {
        span.setAttribute(Tracing.RUN, runId);
      }
    }
    return span;
  }

  private void acquirePermit() throws InterruptedException {
    while (!permits.tryAcquire(PERMIT_POLL.toMillis(), TimeUnit.MILLISECONDS)) {
      if (closing) {
        // Stops the poll loop without committing this batch: the dispatch was not run and will be
        // delivered to another executor.
        throw new IllegalStateException("executor is shutting down; not taking more actions");
      }
    }
  }

  /** True when {@code actionId} was not taken yet (atomic: of two copies, one takes it). */
  boolean take(String actionId) {
    return taken.asMap().putIfAbsent(actionId, Boolean.TRUE) == null;
  }

  private void forget(String actionId) {
    taken.invalidate(actionId);
  }

  /**
   * A cache of at most {@code capacity} entries, each kept for twice the dispatch expiry after it
   * was written, by {@link #clock} (see Memory above). Eviction runs on the writing thread (no task
   * in the common pool), so the bound holds once a write returns.
   */
  private <V> Cache<String, V> remembered(int capacity) {
    return Caffeine.newBuilder()
        .maximumSize(capacity)
        .expireAfter(Expiry.<String, V>writing((key, value) -> dispatchExpiry.multipliedBy(2)))
        .ticker(() -> TimeUnit.MILLISECONDS.toNanos(clock.millis()))
        .executor(Runnable::run)
        .<String, V>build();
  }

  /** How many action ids and how many canceled runs are remembered now (for tests). */
  long[] rememberedCounts() {
    taken.cleanUp();
    canceledRuns.cleanUp();
    return new long[] {taken.estimatedSize(), canceledRuns.estimatedSize()};
  }

  /** From now on a full executor does not wait for a permit (see {@link #acquirePermit}). */
  void beginShutdown() {
    closing = true;
  }

  /**
   * Waits for running actions to finish; after {@code grace} interrupts them (the runner kills
   * their commands and they are reported failed as interrupted) and waits a little longer for their
   * {@code action.finished}.
   *
   * @return true when every action ended
   */
  boolean awaitRunning(Duration grace) throws InterruptedException {
    workers.shutdown();
    try {
      // heartbeats go on while the running actions finish, or the planner would declare them lost
      if (workers.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        return true;
      }
      LOG.warn("actions still running after {}; interrupting them", grace);
      workers.shutdownNow();
      return workers.awaitTermination(AFTER_INTERRUPT.toMillis(), TimeUnit.MILLISECONDS);
    } finally {
      heartbeats.shutdownNow();
    }
  }
}
