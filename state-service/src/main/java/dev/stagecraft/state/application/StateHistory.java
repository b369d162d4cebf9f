package dev.stagecraft.state.application;

import dev.stagecraft.state.history.StateDecider;

/**
 * The state service's application layer: its write use cases, each a short method that loads what a
 * decider of {@code history} needs through a port, asks it, and appends through the store. The
 * adapters (HTTP controllers, the Kafka listener) call these, not the store, for every write that
 * is decided here: {@link #results} (an executor's action result) and {@link #changes} (taint,
 * outputs, rollback, deletion, a forced unlock's record). Plain Java: the ports ({@link ResultLog},
 * {@link LockedChanges}) are implemented by {@code adapter.db}, which also wires this class.
 *
 * <p>Not decided here (yet): a push of a whole document is decided inside the store's push path
 * ({@code DocumentStore}, whose one-call fast path interleaves the decision with its SQL), and a
 * run's opening and a fencing advance decide nothing but the token's order ({@code FencingLedger}).
 */
public final class StateHistory {
  private final ActionResults results;
  private final StateChanges changes;

  public StateHistory(ResultLog log, LockedChanges locked, StateDecider decider) {
    this.results = new ActionResults(log, decider);
    this.changes = new StateChanges(locked, decider);
  }

  /** Recording executors' action results. */
  public ActionResults results() {
    return results;
  }

  /** The changes made outside action results: taint, outputs, rollback, deletion, force-unlock. */
  public StateChanges changes() {
    return changes;
  }
}
