package dev.stagecraft.state.history;

import java.util.List;

/**
 * What the state service does with one action result: the events to append (possibly none), the
 * outcome reported back to the planner, and the serial after the events are applied.
 */
public record Decision(List<StateEvent> events, Outcome outcome, String error, long serial) {

  public Decision {
    events = List.copyOf(events);
  }

  /** Outcome reported in {@code state.recorded}. */
  public enum Outcome {
    SUCCEEDED("succeeded"),
    FAILED("failed"),
    /** Nothing was written (stale fencing token, invalid result). */
    REJECTED("rejected");

    private final String wireName;

    Outcome(String wireName) {
      this.wireName = wireName;
    }

    public String wireName() {
      return wireName;
    }
  }
}
