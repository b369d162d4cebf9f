package dev.stagecraft.executor.adapter;

import dev.stagecraft.executor.step.ActionResult;
import dev.stagecraft.executor.step.ActionRunner;
import dev.stagecraft.platform.kafka.EventConsumer;
import dev.stagecraft.platform.kafka.EventPublisher;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.EventCodec.MalformedEventException;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes {@code action.dispatched} events off the poll loop and runs each on its own virtual thread.
 *
 * <p><b>Idempotency.</b> {@link EventConsumer} delivers at least once, so the same dispatch (same
 * {@code actionId}) can arrive again. This instance remembers the action ids it took (the newest
 * {@value #REMEMBERED_ACTIONS}) and ignores a second delivery. The id is remembered before {@code
 * action.started} is published, and {@code action.started} is published, synchronously, before the
 * first command runs: a redelivery to <em>another</em> instance (after a rebalance or a crash) is
 * therefore never silent, it shows as a second {@code action.started} with a different executor id.
 * Durable claims and crash recovery are not done yet (see README).
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

  private final ActionRunner runner;
  private final EventPublisher publisher;
  private final String executorId;
  private final EventCodec codec = EventCodec.forSource(SOURCE);
  private final Semaphore permits;
  private final ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor();
  private final Map<String, Boolean> taken = // guarded by itself; insertion order = age
      new LinkedHashMap<>() {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
          return size() > REMEMBERED_ACTIONS;
        }
      };
  private volatile boolean closing;

  DispatchedActionHandler(
      ActionRunner runner, EventPublisher publisher, String executorId, int concurrency) {
    this.runner = runner;
    this.publisher = publisher;
    this.executorId = executorId;
    this.permits = new Semaphore(concurrency);
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
    ActionEventEmitter events = new ActionEventEmitter(codec, publisher, event, action, executorId);
    try {
      events.started();
      workers.execute(() -> runAndReport(action, events));
    } catch (RuntimeException e) {
      // Nothing ran: the offset stays uncommitted and the dispatch can be delivered again.
      permits.release();
      forget(action.actionId());
      throw e;
    }
  }

  private void runAndReport(ActionDispatched action, ActionEventEmitter events) {
    try {
      ActionResult result;
      try {
        result = runner.run(action, events);
      } catch (RuntimeException e) {
        LOG.error("action {} failed unexpectedly", action.actionId(), e);
        result = ActionResult.failed(null, "executor error: " + e.getClass().getSimpleName());
      }
      // A forced shutdown interrupts the runner; the result must still be published.
      boolean interrupted = Thread.interrupted();
      events.finished(result);
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
      permits.release();
    }
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

  private boolean take(String actionId) {
    synchronized (taken) {
      return taken.putIfAbsent(actionId, Boolean.TRUE) == null;
    }
  }

  private void forget(String actionId) {
    synchronized (taken) {
      taken.remove(actionId);
    }
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
    if (workers.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS)) {
      return true;
    }
    LOG.warn("actions still running after {}; interrupting them", grace);
    workers.shutdownNow();
    return workers.awaitTermination(AFTER_INTERRUPT.toMillis(), TimeUnit.MILLISECONDS);
  }
}
