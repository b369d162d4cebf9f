package dev.stagecraft.state.application;

import dev.stagecraft.state.hostkey.HostKey;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * Use case: open a run that was just granted the workspace lock with its fencing token
 * (docs/adr/0025, ADR 0047, ADR 0052), in two statements through the {@link OpeningLog} port. The
 * first advances the workspace's fencing token (never backwards) with its event and, only when it
 * did, stores the run's credential; it is sent again when the workspace had no fencing row yet
 * (after creating it) or when the head moved under it (at most {@value #MAX_ADVANCE_ATTEMPTS}
 * times, then SQLSTATE 40001). The second reads the host keys and the state with a snapshot taken
 * after the first committed: every result an older holder recorded is in it, and none can be
 * recorded after (its token is older than the workspace's newest now), so they are those the lock
 * protects.
 *
 * <p>Thread-safe (no state of its own); openings of one workspace serialize in the database.
 */
public final class RunOpenings {
  /** How often an opening sends its advance again after the head moved, before it gives up. */
  public static final int MAX_ADVANCE_ATTEMPTS = ActionResults.MAX_APPEND_ATTEMPTS;

  private final OpeningLog log;

  public RunOpenings(OpeningLog log) {
    this.log = log;
  }

  /**
   * Opens run {@code runId} holding the lock with {@code token}; {@code credentialHash} is its new
   * state credential's digest.
   */
  public RunOpening open(
      String tenant, String workspace, long token, String runId, String credentialHash)
      throws SQLException {
    try (OpeningLog.Opening opening = log.open(tenant, workspace)) {
      for (int attempt = 1; ; attempt++) {
        switch (opening.advance(token, runId, credentialHash)) {
          case OpeningLog.Advance.Newer newer -> {
            return new RunOpening(Optional.of(newer.newest()), false, null, List.of());
          }
          case OpeningLog.Advance.Advanced advanced -> {
            if (!advanced.issued()) {
              return new RunOpening(Optional.empty(), false, null, List.of());
            }
            List<HostKey> keys = opening.hostKeys();
            return new RunOpening(Optional.empty(), true, opening.state(advanced, token), keys);
          }
          case OpeningLog.Advance.NoRow noRow -> opening.createRow(); // the first opening: again
          case OpeningLog.Advance.Moved moved -> {
            if (attempt >= MAX_ADVANCE_ATTEMPTS) {
              throw new SQLException(
                  "opening run "
                      + runId
                      + " lost the workspace's next sequence "
                      + attempt
                      + " times",
                  "40001");
            }
          }
        }
      }
    }
  }
}
