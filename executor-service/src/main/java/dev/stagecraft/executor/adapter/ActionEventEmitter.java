package dev.stagecraft.executor.adapter;

import dev.stagecraft.executor.step.ActionResult;
import dev.stagecraft.executor.step.LogStream;
import dev.stagecraft.executor.step.OutputSink;
import dev.stagecraft.platform.kafka.EventPublisher;
import dev.stagecraft.platform.tracing.Tracing;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.schemas.action.ActionHeartbeat;
import dev.stagecraft.schemas.action.ActionLog;
import dev.stagecraft.schemas.action.ActionStarted;
import dev.stagecraft.schemas.action.ActionStep;
import dev.stagecraft.schemas.action.LearnedHostKey;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the events of one action on {@code stagecraft.action-events}: started, one log event
 * per output line, finished. All are keyed tenant/workspace (taken from the dispatch envelope), so
 * they stay in order on one partition; {@code sequence} counts up from 1 per action.
 *
 * <p>Between started and finished it also records each provisioner step ({@code action.step},
 * started and ended) and, when {@link #heartbeat} is called, sends {@code action.heartbeat} naming
 * the step running now. Step records and heartbeats are sent without waiting for the broker: they
 * report progress, the claim is {@code action.started} (docs/adr/0007).
 *
 * <p>Concurrency: every method takes this object's monitor, so a sequence number is assigned and
 * handed to the producer in one step and the partition order equals the sequence order.
 */
final class ActionEventEmitter implements OutputSink {
  private static final Logger LOG = LoggerFactory.getLogger(ActionEventEmitter.class);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

  private final EventCodec codec;
  private static final AttributeKey<Long> STEP = AttributeKey.longKey("stagecraft.step");
  private final EventPublisher publisher;
  private final EventEnvelope dispatch;
  private final ActionDispatched action;
  private final String executorId;
  private final String runId;
  private long sequence; // guarded by this
  private Integer currentStep; // guarded by this; null between steps
  private String currentStepType; // guarded by this
  private String currentStepTarget; // guarded by this
  private long currentStepStart; // guarded by this; System.nanoTime() at the step's start
  private Span stepSpan = Span.getInvalid(); // guarded by this; the current step's
  private ExecutorMetrics metrics = ExecutorMetrics.NONE; // guarded by this
  private String canceledBecause; // guarded by this; set when the run was canceled
  private boolean finishedSent; // guarded by this; nothing of the action follows its finished
  private final List<LearnedHostKey> learnedHostKeys = new ArrayList<>(); // guarded by this
  private String runCredential; // guarded by this; a secret, only ever turned into a proof

  ActionEventEmitter(
      EventCodec codec,
      EventPublisher publisher,
      EventEnvelope dispatch,
      ActionDispatched action,
      String executorId) {
    this.codec = codec;
    this.publisher = publisher;
    this.dispatch = dispatch;
    this.action = action;
    this.executorId = executorId;
    this.runId = action.runId() != null ? action.runId() : dispatch.runid();
  }

  /** Records the steps' durations in {@code metrics} from now on. */
  synchronized ActionEventEmitter withMetrics(ExecutorMetrics metrics) {
    this.metrics = metrics;
    return this;
  }

  /** Publishes {@code action.started} and waits until the broker committed it. */
  synchronized void started() {
    publisher.publish(
        next(new ActionStarted(runId, action.actionId(), action.address(), executorId)),
        dispatch.workspaceKey());
  }

  /** Sends one {@code action.log} without waiting; a line that cannot be sent is logged away. */
  @Override
  public synchronized void line(int step, LogStream stream, String line) {
    try {
      publisher.send(
          next(
              new ActionLog(
                  runId, action.actionId(), action.address(), step, stream.wireName(), line)),
          dispatch.workspaceKey());
    } catch (RuntimeException e) {
      LOG.warn("could not send a log line of action {}: {}", action.actionId(), e.toString());
    }
  }

  /** Records that a step starts ({@code action.step}, sent without waiting). */
  @Override
  public synchronized void stepStarted(int step, String type, String target) {
    currentStep = step;
    currentStepType = type;
    currentStepTarget = target;
    currentStepStart = ExecutorMetrics.now();
    // a child of the action's span, current on the runner's thread (docs/adr/0083)
    stepSpan =
        Tracing.tracer()
            .spanBuilder("step " + type)
            .setAttribute(Tracing.ACTION, action.actionId())
            .setAttribute(STEP, (long) step)
            .startSpan();
    sendStep(step, type, target, ActionStep.STARTED, null);
  }

  /** Records that a step ended ({@code action.step}, sent without waiting). */
  @Override
  public synchronized void stepEnded(int step, boolean succeeded, String error) {
    metrics.stepEnded(currentStepType, succeeded, ExecutorMetrics.since(currentStepStart));
    if (!succeeded) {
      stepSpan.setStatus(StatusCode.ERROR);
    }
    stepSpan.end();
    stepSpan = Span.getInvalid();
    sendStep(
        step,
        currentStepType,
        currentStepTarget,
        succeeded ? ActionStep.SUCCEEDED : ActionStep.FAILED,
        error);
    currentStep = null;
  }

  private void sendStep(
      int step, String type, String target, ActionStep.Status status, String error) {
    try {
      publisher.send(
          next(
              new ActionStep(
                  runId,
                  action.actionId(),
                  action.address(),
                  executorId,
                  ActionStep.stepId(action.actionId(), step),
                  step,
                  type,
                  target,
                  status,
                  error)),
          dispatch.workspaceKey());
    } catch (RuntimeException e) {
      LOG.warn("could not send a step record of action {}: {}", action.actionId(), e.toString());
    }
  }

  /**
   * Sends {@code action.heartbeat} with the step running now, without waiting. Called by the
   * handler's heartbeat timer while the action runs; nothing once {@code action.finished} was sent
   * (the timer may still hold the action then: a heartbeat after the end would say it runs).
   */
  synchronized void heartbeat() {
    if (finishedSent) {
      // the timer took this action from the running ones just before it ended
      return;
    }
    try {
      publisher.send(
          next(
              new ActionHeartbeat(
                  runId,
                  action.actionId(),
                  action.address(),
                  executorId,
                  currentStep,
                  currentStep == null ? null : currentStepType,
                  currentStep == null ? null : currentStepTarget)),
          dispatch.workspaceKey());
    } catch (RuntimeException e) {
      LOG.warn("could not send a heartbeat of action {}: {}", action.actionId(), e.toString());
    }
  }

  /**
   * The run's state credential from the opened dispatch (null when the planner sent none): {@code
   * action.finished} carries a proof made with it, never the credential (docs/adr/0013).
   */
  synchronized void runCredential(String credential) {
    runCredential = credential;
  }

  /** Marks the action canceled: its {@code action.finished} then says {@code canceled}. */
  synchronized void canceled(String reason) {
    canceledBecause = reason;
  }

  /** Remembers a host key accepted on first use; it travels in {@code action.finished}. */
  @Override
  public synchronized void hostKeyLearned(LearnedHostKey key) {
    learnedHostKeys.add(key);
  }

  /**
   * Publishes {@code action.finished}, retrying with backoff until the broker committed it: the
   * result is what the state service and the planner wait for. Gives up only when the thread is
   * interrupted (forced shutdown); the action then looks interrupted to crash recovery.
   */
  synchronized void finished(ActionResult result) {
    finishedSent = true;
    EventEnvelope event =
        next(
            new ActionFinished(
                    runId,
                    action.actionId(),
                    action.address(),
                    action.resourceType(),
                    action.action(),
                    result.isSucceeded()
                        ? ActionFinished.SUCCEEDED
                        : canceledBecause != null ? ActionFinished.CANCELED : ActionFinished.FAILED,
                    result.exitCode(),
                    result.isSucceeded() || canceledBecause == null
                        ? result.error()
                        : "canceled (" + canceledBecause + "): " + result.error(),
                    action.attributes(),
                    action.dependencies(),
                    action.fencingToken(),
                    executorId,
                    action.createBeforeDestroy(),
                    action.skipDestroy(),
                    learnedHostKeys)
                .withPreviousAddress(action.previousAddress())
                .provenWith(runCredential));
    Duration backoff = Duration.ofMillis(500);
    while (true) {
      try {
        // The same envelope (same id) on every attempt: consumers drop a duplicate by id.
        publisher.publish(event, dispatch.workspaceKey());
        return;
      } catch (RuntimeException e) {
        if (Thread.currentThread().isInterrupted()) {
          LOG.error(
              "action.finished of action {} (run {}) not published: interrupted",
              action.actionId(),
              runId);
          return;
        }
        LOG.warn(
            "could not publish action.finished of action {}, retrying in {}: {}",
            action.actionId(),
            backoff,
            e.toString());
        try {
          Thread.sleep(backoff);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          LOG.error(
              "action.finished of action {} (run {}) not published: interrupted",
              action.actionId(),
              runId);
          return;
        }
        backoff =
            backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0
                ? MAX_BACKOFF
                : backoff.multipliedBy(2);
      }
    }
  }

  private EventEnvelope next(Object data) {
    sequence++;
    return codec.wrap(
        dispatch.tenant(), dispatch.workspace(), runId, sequence, action.address(), data);
  }
}
