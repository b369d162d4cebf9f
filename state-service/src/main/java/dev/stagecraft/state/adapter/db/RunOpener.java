package dev.stagecraft.state.adapter.db;

import dev.stagecraft.servicekit.db.Sql;
import dev.stagecraft.state.hostkey.HostKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Opens a run that was granted the workspace lock (docs/adr/0025, ADR 0047, ADR 0052): the fencing
 * advance with its event ({@link FencingLedger#open}), the run's credential, then the state and
 * host keys the run works from. Split out of {@link StateStore} (ADR 0068).
 */
final class RunOpener {
  private final DataSource dataSource;
  private final Clock clock;
  private final Folds folds;

  RunOpener(DataSource dataSource, Clock clock, Folds folds) {
    this.dataSource = dataSource;
    this.clock = clock;
    this.folds = folds;
  }

  /**
   * Opens a run that was just granted the workspace lock with {@code token} (docs/adr/0025, ADR
   * 0047), in two statements. The first, one autocommit statement, advances the workspace's fencing
   * token (as {@link StateStore#advanceFencing} does: never backwards) and, only when it did,
   * stores the run's credential ({@code credentialHash}, refused for a run whose credential was
   * revoked). The second reads the newest event's sequence and the host keys the run must enforce,
   * with a snapshot taken after the first committed: every result an older holder recorded is in
   * it, and none can be recorded after (its token is older than the workspace's newest now), so the
   * state and the keys are those the lock protects, as when they were read under the row lock.
   */
  StateStore.RunOpening openRun(
      String tenant, String workspace, long token, String runId, String credentialHash)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      Folded before = folds.cached(tenant, workspace);
      FencingLedger.Opening opening =
          advanceForOpening(c, tenant, workspace, token, runId, credentialHash);
      if (opening.newest() > token) {
        return new StateStore.RunOpening(Optional.of(opening.newest()), false, null, List.of());
      }
      long appended = opening.appended();
      long head = opening.head();
      long issued = opening.issued();
      if (issued == 0) {
        return new StateStore.RunOpening(Optional.empty(), false, null, List.of());
      }
      if (appended > 0) {
        head = appended;
      }
      // the run's token is the newest at head (its fencing_advanced event, or the head it found
      // when it was the newest already): every result an older holder recorded is at or below it,
      // and none can be recorded after it
      List<HostKey> keys = hostKeys(c, tenant, workspace);
      // the fold the cache held right before the opening's own event is the state at it
      Folded current =
          (appended > 0 && before != null && before.sequence() == appended - 1
                  ? new Folded(appended, before.state(), before.snapshotSequence())
                  : folds.fold(c, tenant, workspace, head))
              .knowing(token);
      folds.remember(tenant, workspace, current);
      return new StateStore.RunOpening(Optional.empty(), true, current.state(), keys);
    }
  }

  /**
   * The first statement of {@link #openRun}, run again until it answers for the head it saw: the
   * newest token when newer than {@code token} (nothing written), else what it wrote.
   */
  private FencingLedger.Opening advanceForOpening(
      Connection c,
      String tenant,
      String workspace,
      long token,
      String runId,
      String credentialHash)
      throws SQLException {
    for (int attempt = 1; ; attempt++) {
      FencingLedger.Opening opening =
          FencingLedger.open(
              c, tenant, workspace, token, runId, credentialHash, Timestamp.from(clock.instant()));
      Long newest = opening.newest();
      if (newest == null) {
        // the workspace's first opening: create its fencing row (token 0), then again
        FencingLedger.createRow(c, tenant, workspace);
      } else if (newest > token || newest == token || opening.appended() > 0) {
        return opening;
      } else if (attempt >= EventLog.MAX_APPEND_ATTEMPTS) {
        throw new SQLException(
            "opening run " + runId + " lost the workspace's next sequence " + attempt + " times",
            "40001");
      }
      // else the head moved between the statement's snapshot and its insert: again
    }
  }

  /** The host keys a run of the workspace must enforce, ordered by host, port and id. */
  private static List<HostKey> hostKeys(Connection c, String tenant, String workspace)
      throws SQLException {
    List<HostKey> keys = new ArrayList<>();
    try (PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT k.* FROM ("
                    + HostKeyStore.keysForQuery()
                    + ") k"
                    + " ORDER BY k.host, k.port, k.id",
                tenant,
                workspace);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        keys.add(HostKeyStore.keyAt(rs, 1));
      }
    }
    return keys;
  }
}
