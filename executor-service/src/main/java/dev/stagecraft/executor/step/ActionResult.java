package dev.stagecraft.executor.step;

/**
 * How an action ended. Failures are values, not exceptions: a failing command is an expected
 * outcome the state service records (a failed create taints the instance).
 *
 * @param exitCode exit code of the failing command; {@code null} when the action succeeded or the
 *     failure was not a command's exit (unsupported provisioner, command could not start,
 *     interrupted)
 * @param error a redacted, human-readable reason; {@code null} when succeeded
 */
public record ActionResult(Outcome outcome, Integer exitCode, String error) {

  /** Terminal outcome of an action. */
  public enum Outcome {
    SUCCEEDED,
    FAILED
  }

  public static ActionResult succeeded() {
    return new ActionResult(Outcome.SUCCEEDED, null, null);
  }

  public static ActionResult failed(Integer exitCode, String error) {
    return new ActionResult(Outcome.FAILED, exitCode, error);
  }

  public boolean isSucceeded() {
    return outcome == Outcome.SUCCEEDED;
  }
}
