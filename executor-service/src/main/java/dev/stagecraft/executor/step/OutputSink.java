package dev.stagecraft.executor.step;

import dev.stagecraft.schemas.action.LearnedHostKey;

/**
 * Receives an action's output line by line, as the command prints it.
 *
 * <p>Concurrency: for one action the {@link ActionRunner} never calls the sink concurrently (stdout
 * and stderr are read by two threads, but their calls are serialized), so a sink may number the
 * lines it receives. Lines are already redacted. A sink should not throw: an exception is logged
 * away by the runner and the line is lost, but the command keeps running.
 */
@FunctionalInterface
public interface OutputSink {
  /** The step index used for lines that concern the whole action rather than one provisioner. */
  int ACTION = -1;

  /**
   * One line, without its line terminator.
   *
   * @param step index of the provisioner within the action's provisioner list, or {@link #ACTION}
   */
  void line(int step, LogStream stream, String line);

  /**
   * A host key was accepted on first use during the action; the sink reports it in {@code
   * action.finished} (the event emitter) or ignores it (the default). Called on the action's
   * thread.
   */
  default void hostKeyLearned(LearnedHostKey key) {}

  /**
   * Step {@code step} is about to run (before its command starts, or its connection is opened). The
   * event emitter records it ({@code action.step}) and names it in heartbeats, so that an executor
   * that dies mid-step leaves a record of which step was cut. Called on the action's thread.
   *
   * @param type the provisioner type
   * @param target {@code user@host:port} for a step that runs over SSH, {@code null} for one that
   *     runs on the executor host
   */
  default void stepStarted(int step, String type, String target) {}

  /**
   * Step {@code step} ended; {@code error} is its redacted reason when it failed, else {@code
   * null}. Called on the action's thread.
   */
  default void stepEnded(int step, boolean succeeded, String error) {}
}
