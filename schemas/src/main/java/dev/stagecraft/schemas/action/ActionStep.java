package dev.stagecraft.schemas.action;

/**
 * One provisioner step of an action started or ended on an executor. Sent without waiting for the
 * broker (a step record is a report, not a claim: the action's claim is {@code action.started}, see
 * docs/adr/0007), in order with the action's log lines.
 *
 * @param stepId {@code <actionId>#<index>}, unique per step of a run
 * @param index the step's index within the action's provisioner list
 * @param type the provisioner type
 * @param target {@code user@host:port} for SSH steps, {@code null} on the executor host
 * @param status {@code started}, then {@code succeeded} or {@code failed}
 * @param error the redacted reason when {@code failed}
 */
public record ActionStep(
    String runId,
    String actionId,
    String address,
    String executorId,
    String stepId,
    int index,
    String type,
    String target,
    String status,
    String error)
    implements ActionEvent {
  public static final String STARTED = "started";
  public static final String SUCCEEDED = "succeeded";
  public static final String FAILED = "failed";

  /** The id of step {@code index} of action {@code actionId}. */
  public static String stepId(String actionId, int index) {
    return actionId + "#" + index;
  }
}
