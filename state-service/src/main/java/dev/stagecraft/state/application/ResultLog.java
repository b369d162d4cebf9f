package dev.stagecraft.state.application;

import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.state.history.Decision;
import dev.stagecraft.state.history.WorkspaceState;
import java.sql.SQLException;
import java.util.Optional;

/**
 * Port: where {@link ActionResults} records an executor's action result (implemented by the store,
 * {@code adapter.db}). A recording decides on a fold it holds, appends, and answers with a typed
 * {@link Answer}: what the database decided under the workspace's row lock, never an error message.
 */
public interface ResultLog {

  /** Starts recording one result in {@code tenant}/{@code workspace}; close it when done. */
  Recording open(String tenant, String workspace) throws SQLException;

  /** One result's recording: one connection, the fold it decides on. Not thread-safe. */
  interface Recording extends AutoCloseable {
    /**
     * The state to decide on: a fold remembered from an earlier write (no read at all) when there
     * is one, else the newest snapshot and the events after it, read now. The append checks that
     * its head is still the workspace's head ({@link Answer.Moved} otherwise).
     */
    WorkspaceState state() throws SQLException;

    /** Forgets the fold: the next {@link #state} reads the workspace's head and folds it again. */
    void forget();

    /**
     * Why the result must not be recorded at all (its run's credential is not proven), or empty; a
     * refusal is recorded {@code rejected} with this reason.
     */
    Optional<String> refusal(ActionFinished finished) throws SQLException;

    /**
     * Appends {@code decision} (its events, their versions, the outcome, the {@code state.recorded}
     * answering {@code source}) after the head of the fold {@link #state} gave, in one round trip.
     *
     * @param tokenKnownStale the decision was made knowing the token is stale: the append records
     *     it without checking the token again
     */
    Answer append(
        EventEnvelope source, ActionFinished finished, Decision decision, boolean tokenKnownStale)
        throws SQLException;

    @Override
    void close() throws SQLException;
  }

  /** What an append answered: one of four. */
  sealed interface Answer {
    /** Appended: {@code envelope} is the {@code state.recorded} to publish. */
    record Appended(EventEnvelope envelope) implements Answer {}

    /** Recorded before (a redelivery): {@code previous} is the first {@code state.recorded}. */
    record Duplicate(EventEnvelope previous) implements Answer {}

    /** The fencing token is stale: {@code newest} is the workspace's newest; nothing written. */
    record Stale(long newest) implements Answer {}

    /** Another writer appended since the fold's head: fold again, decide again. */
    record Moved() implements Answer {}
  }
}
