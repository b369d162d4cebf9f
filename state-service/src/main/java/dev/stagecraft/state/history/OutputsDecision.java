package dev.stagecraft.state.history;

import java.util.List;

/**
 * What the state service does with a run's root outputs ({@link StateDecider#decideOutputs}): the
 * events to append (none when the outputs are the ones the state holds), the serial after them, and
 * — when refused — why. Nothing is written when refused.
 *
 * @param rejection null when accepted (with or without a change)
 * @param error what went wrong and what to do, when rejected
 */
public record OutputsDecision(
    List<StateEvent> events, Rejection rejection, String error, long serial) {

  public OutputsDecision {
    events = List.copyOf(events);
  }

  /** Why a run's outputs were refused. */
  public enum Rejection {
    /** The run's fencing token is older than the newest seen: it lost the workspace lock. */
    STALE_FENCING_TOKEN,
    /** Not outputs in Terraform's v4 form (the error names the output and the field). */
    INVALID_OUTPUTS
  }

  public boolean accepted() {
    return rejection == null;
  }
}
