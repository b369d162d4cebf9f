package dev.stagecraft.schemas.action;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;

/**
 * One provisioner step of an action started or ended on an executor. Sent without waiting for the
 * broker (a step record is a report, not a claim: the action's claim is {@code action.started}, see
 * docs/adr/0007), in order with the action's log lines.
 *
 * @param stepId {@code <actionId>#<index>}, unique per step of a run
 * @param index the step's index within the action's provisioner list
 * @param type the provisioner type
 * @param target {@code user@host:port} for SSH steps, {@code null} on the executor host
 * @param status {@link Status#STARTED}, then {@link Status#SUCCEEDED} or {@link Status#FAILED} (on
 *     the wire {@code started}, {@code succeeded}, {@code failed})
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
    Status status,
    String error)
    implements ActionEvent {
  /** Shorthand for {@link Status#STARTED}. */
  public static final Status STARTED = Status.STARTED;

  /** Shorthand for {@link Status#SUCCEEDED}. */
  public static final Status SUCCEEDED = Status.SUCCEEDED;

  /** Shorthand for {@link Status#FAILED}. */
  public static final Status FAILED = Status.FAILED;

  /** Where a step is: started, then succeeded or failed. Written as its {@link #wire} name. */
  public enum Status {
    STARTED("started"),
    SUCCEEDED("succeeded"),
    FAILED("failed");

    private final String wire;

    Status(String wire) {
      this.wire = wire;
    }

    /** The name on the wire ({@code started}, {@code succeeded}, {@code failed}). */
    @JsonValue
    public String wire() {
      return wire;
    }

    /**
     * The status named {@code wire} on the wire.
     *
     * @throws IllegalArgumentException for any other name (the event is then malformed)
     */
    @JsonCreator
    public static Status of(String wire) {
      return Arrays.stream(values())
          .filter(s -> s.wire.equals(wire))
          .findFirst()
          .orElseThrow(
              () ->
                  new IllegalArgumentException(
                      "unknown step status '" + wire + "': expected started, succeeded or failed"));
    }

    @Override
    public String toString() {
      return wire;
    }
  }

  /** The id of step {@code index} of action {@code actionId}. */
  public static String stepId(String actionId, int index) {
    return actionId + "#" + index;
  }
}
