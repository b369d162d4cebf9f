package dev.stagecraft.executor.step;

import dev.stagecraft.schemas.action.LearnedHostKey;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The redacting, serializing front of an action's sink; also keeps the last lines of command output
 * for error messages, and counts each step's output against the step output limit. Guarded by its
 * own monitor.
 */
final class ActionOutput {
  private static final int TAIL_LINES = 10;
  private static final Logger LOG = LoggerFactory.getLogger(ActionOutput.class);

  private final OutputSink sink;
  private final Redactor redactor;
  private final Deque<String> tail = new ArrayDeque<>();
  private final long stepOutputLimit;
  private long stepBytes;
  private boolean overLimit;

  /** The step output limit when the executor sets none: 10 MiB. */
  static final long DEFAULT_STEP_OUTPUT_LIMIT = 10L << 20;

  ActionOutput(OutputSink sink, Redactor redactor) {
    this(sink, redactor, DEFAULT_STEP_OUTPUT_LIMIT);
  }

  /**
   * @param stepOutputLimit bytes of output one step may print (lines counted with their line
   *     break); what comes after is dropped and the step is stopped
   */
  ActionOutput(OutputSink sink, Redactor redactor, long stepOutputLimit) {
    this.sink = sink;
    this.redactor = redactor;
    this.stepOutputLimit = stepOutputLimit;
  }

  /**
   * One line of a command's output.
   *
   * @return false once the step printed more than the step output limit: the line was dropped, and
   *     the caller must stop the command
   */
  synchronized boolean output(int step, LogStream stream, String line) {
    if (overLimit) {
      return false;
    }
    stepBytes += line.getBytes(StandardCharsets.UTF_8).length + 1;
    if (stepBytes > stepOutputLimit) {
      overLimit = true;
      return false;
    }
    String redacted = redactor.redact(line);
    tail.addLast(redacted);
    if (tail.size() > TAIL_LINES) {
      tail.removeFirst();
    }
    deliver(step, stream, redacted);
    return true;
  }

  /** Whether the current step printed more than the step output limit. */
  synchronized boolean overOutputLimit() {
    return overLimit;
  }

  /** Why a step that printed too much failed; names the limit and its setting. */
  String outputLimitError(String stepName) {
    return stepName
        + " printed more than "
        + stepOutputLimit
        + " bytes, the step output limit (STAGECRAFT_EXECUTOR_STEP_OUTPUT_LIMIT); it was stopped"
        + " and its effect is unknown."
        + tailDescription();
  }

  synchronized void line(int step, LogStream stream, String line) {
    deliver(step, stream, redactor.redact(line));
  }

  private void deliver(int step, LogStream stream, String redacted) {
    try {
      sink.line(step, stream, redacted);
    } catch (RuntimeException e) {
      // Keep draining the command's output: a stuck pipe would block the command forever.
      LOG.warn("output sink failed; line dropped", e);
    }
  }

  /** Hands a host key accepted on first use to the sink (public keys are not secret). */
  synchronized void hostKeyLearned(LearnedHostKey key) {
    try {
      sink.hostKeyLearned(key);
    } catch (RuntimeException e) {
      LOG.warn("output sink failed; learned host key of {}:{} dropped", key.host(), key.port(), e);
    }
  }

  /** Reports a step's start to the sink; a failing sink never stops the step. */
  synchronized void stepStarted(int step, String type, String target) {
    try {
      sink.stepStarted(step, type, target);
    } catch (RuntimeException e) {
      LOG.warn("output sink failed to record the start of step {}", step, e);
    }
  }

  /** Reports a step's end to the sink; a failing sink never stops the action. */
  synchronized void stepEnded(int step, ActionResult result) {
    try {
      sink.stepEnded(step, result.isSucceeded(), result.error());
    } catch (RuntimeException e) {
      LOG.warn("output sink failed to record the end of step {}", step, e);
    }
  }

  synchronized void startStep() {
    tail.clear();
    stepBytes = 0;
    overLimit = false;
  }

  synchronized String tailDescription() {
    return tail.isEmpty() ? " No output." : " Last output:\n" + String.join("\n", tail);
  }

  /** A failure of one step: reported on the sink, returned redacted. */
  ActionResult stepFailed(int step, Integer exitCode, String error) {
    String redacted = redactor.redact(error);
    int end = redacted.indexOf('\n');
    line(step, LogStream.SYSTEM, "Error: " + (end < 0 ? redacted : redacted.substring(0, end)));
    return ActionResult.failed(exitCode, redacted);
  }

  /** A failure of the action as a whole (before any step ran). */
  ActionResult fail(Integer exitCode, String error) {
    return stepFailed(OutputSink.ACTION, exitCode, error);
  }
}
