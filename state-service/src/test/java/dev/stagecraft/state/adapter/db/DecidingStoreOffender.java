package dev.stagecraft.state.adapter.db;

import dev.stagecraft.state.history.DocumentDecider;
import dev.stagecraft.state.history.StoredDocument;
import dev.stagecraft.state.history.WorkspaceState;
import java.util.List;

/**
 * A store class that decides a push inside its SQL path, as DocumentStore did before ADR 0075's
 * follow-up: ArchitectureTest shows its rule catches it. Never run.
 */
public final class DecidingStoreOffender {
  DocumentDecider.Outcome push(StoredDocument upload, WorkspaceState current) {
    return DocumentDecider.pushStored(
        upload, List.of(), current, null, false, 1, 1, () -> false, serial -> upload);
  }
}
