package dev.stagecraft.state.adapter.http;

import dev.stagecraft.state.adapter.db.StateStore;
import dev.stagecraft.state.history.DocumentDecider;
import dev.stagecraft.state.history.StateDecider;
import dev.stagecraft.state.history.WorkspaceState;
import java.util.List;

/**
 * An HTTP adapter that decides a write itself and reaches the store's write port: ArchitectureTest
 * shows its rules catch it. Never run.
 */
public final class DecidingControllerOffender {
  List<Object> delete(WorkspaceState state, StateStore store) throws Exception {
    return List.of(
        store.lockedChanges(),
        store.pushStreamed("t", "w", 1, "a", content -> null, () -> 1),
        new StateDecider(() -> "id"),
        DocumentDecider.delete(state, 1, 1, "reason"));
  }
}
