package dev.stagecraft.executor.step;

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
}
