package dev.stagecraft.state.application;

import dev.stagecraft.state.history.WorkspaceState;
import dev.stagecraft.state.hostkey.HostKey;
import java.sql.SQLException;
import java.util.List;

/**
 * Port: where {@link RunOpenings} opens a run that was granted the workspace lock (implemented by
 * the store, {@code adapter.db}; docs/adr/0025, ADR 0047, ADR 0052). The advance is one autocommit
 * statement that decides in the database, under the workspace's row lock, whether the run's token
 * is the newest; its answer is a type ({@link Advance}), never an error message. The reads after it
 * see everything committed before it.
 */
public interface OpeningLog {

  /**
   * Starts opening a run in {@code tenant}/{@code workspace}: one connection; close it when done.
   */
  Opening open(String tenant, String workspace) throws SQLException;

  /** One opening's connection. Not thread-safe. */
  interface Opening extends AutoCloseable {
    /**
     * Advances the workspace's newest fencing token to {@code token} with its {@code
     * fencing_advanced} event and, only when it did (or the token was the newest already), stores
     * the run's credential ({@code credentialHash}; refused for a run whose credential was
     * revoked).
     */
    Advance advance(long token, String runId, String credentialHash) throws SQLException;

    /** Creates the workspace's fencing row (token 0) unless it exists: its first opening. */
    void createRow() throws SQLException;

    /** The host keys a run of the workspace must enforce, ordered by host, port and id. */
    List<HostKey> hostKeys() throws SQLException;

    /** The state at {@code advanced}'s head, the run's {@code token} the newest at it. */
    WorkspaceState state(Advance.Advanced advanced, long token) throws SQLException;

    @Override
    void close() throws SQLException;
  }

  /** What an advance answered: one of four. */
  sealed interface Advance {
    /** The workspace has no fencing row yet (never opened): nothing written. */
    record NoRow() implements Advance {}

    /** The head moved between the statement's snapshot and its insert: nothing written. */
    record Moved() implements Advance {}

    /** The workspace saw {@code newest}, newer than the run's token: nothing written. */
    record Newer(long newest) implements Advance {}

    /**
     * The run's token is the newest at {@code head} — its own {@code fencing_advanced} event when
     * {@code appended}, else the head it found with the token the newest already; {@code issued}:
     * the run's credential was stored (false: the run already ended).
     */
    record Advanced(long head, boolean appended, boolean issued) implements Advance {}
  }
}
