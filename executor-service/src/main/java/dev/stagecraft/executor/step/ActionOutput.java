package dev.stagecraft.executor.step;

import java.util.ArrayDeque;
import java.util.Deque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The redacting, serializing front of an action's sink; also keeps the last lines of command output
 * for error messages. Guarded by its own monitor.
 */
final class ActionOutput {
  private static final int TAIL_LINES = 10;
  private static final Logger LOG = LoggerFactory.getLogger(ActionOutput.class);

  private final OutputSink sink;
  private final Redactor redactor;
  private final Deque<String> tail = new ArrayDeque<>();

  ActionOutput(OutputSink sink, Redactor redactor) {
    this.sink = sink;
    this.redactor = redactor;
  }

  synchronized void output(int step, LogStream stream, String line) {
    String redacted = redactor.redact(line);
    tail.addLast(redacted);
    if (tail.size() > TAIL_LINES) {
      tail.removeFirst();
    }
    deliver(step, stream, redacted);
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
  synchronized void hostKeyLearned(dev.stagecraft.schemas.action.LearnedHostKey key) {
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
