package dev.stagecraft.state.adapter.db;

import dev.stagecraft.state.application.StateHistory;
import dev.stagecraft.state.history.StateDecider;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;
import java.util.UUID;

/**
 * Wires the application layer ({@link StateHistory}, plain Java) over the store: the service's
 * results are recorded only when proven with their run's active state credential ({@link
 * RunCredentialStore#refusal}, ADR 0013).
 */
@Factory
public class StateHistoryFactory {

  @Singleton
  StateHistory stateHistory(StateStore store) {
    return over(store, RunCredentialStore::refusal);
  }

  /**
   * The use cases over {@code store}, recording action results that {@code gate} admits ({@link
   * StateStore.OutcomeGate#TRUSTED} for tests and tools that record results they trust).
   */
  public static StateHistory over(StateStore store, StateStore.OutcomeGate gate) {
    return new StateHistory(
        store.resultLog(gate),
        store.lockedChanges(),
        store.pushLog(),
        store.openingLog(),
        new StateDecider(() -> UUID.randomUUID().toString()));
  }
}
