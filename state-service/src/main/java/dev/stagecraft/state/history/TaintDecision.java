package dev.stagecraft.state.history;

import java.util.List;

/**
 * What the state service does with a request to mark an instance tainted or clear the mark: the
 * events to append (possibly none), the serial after them, and — when the request is refused — why.
 *
 * @param rejection null when the request was accepted (with or without a change)
 * @param error what went wrong and what to do, when rejected
 */
public record TaintDecision(
    List<StateEvent> events, Rejection rejection, String error, long serial) {

  public TaintDecision {
    events = List.copyOf(events);
  }

  /** Why a taint change was refused. Nothing is written in any of these cases. */
  public enum Rejection {
    /** The caller's fencing token is older than the newest seen: it lost the workspace lock. */
    STALE_FENCING_TOKEN,
    /** The address does not parse, or names a data resource (only managed ones are tainted). */
    INVALID_ADDRESS,
    /** The state has no instance at the address. */
    NO_SUCH_INSTANCE,
    /** Untaint of an instance that is not tainted. */
    NOT_TAINTED
  }

  public boolean accepted() {
    return rejection == null;
  }
}
