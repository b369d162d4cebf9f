package dev.stagecraft.state.adapter.db;

import dev.stagecraft.state.application.ActionResults;
import dev.stagecraft.state.application.StateChanges;

/**
 * The application's use cases over a test's store, as the service wires them ({@link
 * StateHistoryFactory}) but recording every action result without a credential check.
 */
final class Histories {
  private Histories() {}

  /** Recording action results through {@code store}, trusting them. */
  static ActionResults results(StateStore store) {
    return StateHistoryFactory.over(store, StateStore.OutcomeGate.TRUSTED).results();
  }

  /** Taint, outputs, rollback, deletion and force-unlock records through {@code store}. */
  static StateChanges changes(StateStore store) {
    return StateHistoryFactory.over(store, StateStore.OutcomeGate.TRUSTED).changes();
  }
}
