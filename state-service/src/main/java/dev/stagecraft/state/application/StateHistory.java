package dev.stagecraft.state.application;

import dev.stagecraft.state.history.StateDecider;

/**
 * The state service's application layer: its write use cases, each a short method that loads what a
 * decider of {@code history} needs through a port, asks it, and appends through the store. The
 * adapters (HTTP controllers, the Kafka listener) call these, not the store, for every write that
 * is decided here: {@link #results} (an executor's action result), {@link #changes} (taint,
 * outputs, rollback, deletion, a forced unlock's record), {@link #pushes} (a whole document pushed)
 * and {@link #openings} (a run's opening). Plain Java: the ports ({@link ResultLog}, {@link
 * LockedChanges}, {@link PushLog}, {@link OpeningLog}) are implemented by {@code adapter.db}, which
 * also wires this class.
 *
 * <p>Not here: a bare fencing advance, which decides nothing but the token's order ({@code
 * FencingLedger} in the store, one statement).
 */
public final class StateHistory {
  private final ActionResults results;
  private final StateChanges changes;
  private final DocumentPushes pushes;
  private final RunOpenings openings;

  public StateHistory(
      ResultLog log,
      LockedChanges locked,
      PushLog documents,
      OpeningLog opener,
      StateDecider decider) {
    this.results = new ActionResults(log, decider);
    this.changes = new StateChanges(locked, decider);
    this.pushes = new DocumentPushes(documents);
    this.openings = new RunOpenings(opener);
  }

  /** Recording executors' action results. */
  public ActionResults results() {
    return results;
  }

  /** The changes made outside action results: taint, outputs, rollback, deletion, force-unlock. */
  public StateChanges changes() {
    return changes;
  }

  /** Pushes of whole documents (the Terraform HTTP backend, {@code stagecraft state push}). */
  public DocumentPushes pushes() {
    return pushes;
  }

  /** Openings of runs that were granted the workspace lock. */
  public RunOpenings openings() {
    return openings;
  }
}
