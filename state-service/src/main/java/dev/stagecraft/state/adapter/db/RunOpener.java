package dev.stagecraft.state.adapter.db;

import dev.stagecraft.servicekit.db.Sql;
import dev.stagecraft.state.application.OpeningLog;
import dev.stagecraft.state.history.WorkspaceState;
import dev.stagecraft.state.hostkey.HostKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The application's {@link OpeningLog} (docs/adr/0025, ADR 0047, ADR 0052): an opening's
 * connection, the fencing advance with its event and the run's credential ({@link
 * FencingLedger#open}, its row read into a typed {@link Advance}), then the host keys and the state
 * the run works from (the fold cached right before the opening's own event reused). It decides
 * nothing: {@code application.RunOpenings} does. Split out of {@link StateStore} (ADR 0068).
 * Thread-safe; each opening is one connection, used by one thread at a time.
 */
final class RunOpener implements OpeningLog {
  private final DataSource dataSource;
  private final Clock clock;
  private final Folds folds;

  RunOpener(DataSource dataSource, Clock clock, Folds folds) {
    this.dataSource = dataSource;
    this.clock = clock;
    this.folds = folds;
  }

  @Override
  public Opening open(String tenant, String workspace) throws SQLException {
    return new StoreOpening(tenant, workspace, dataSource.getConnection());
  }

  private final class StoreOpening implements Opening {
    private final String tenant;
    private final String workspace;
    private final Connection c;
    // the fold cached before the opening's own event: the state at it, when it was the head
    private final Folded before;

    StoreOpening(String tenant, String workspace, Connection c) {
      this.tenant = tenant;
      this.workspace = workspace;
      this.c = c;
      this.before = folds.cached(tenant, workspace);
    }

    /**
     * One autocommit statement; its row read as: no row yet, a newer token, the token the newest
     * (appended, or found the newest already), else the head moved between the statement's snapshot
     * and its insert.
     */
    @Override
    public Advance advance(long token, String runId, String credentialHash) throws SQLException {
      FencingLedger.Opening opening =
          FencingLedger.open(
              c, tenant, workspace, token, runId, credentialHash, Timestamp.from(clock.instant()));
      Long newest = opening.newest();
      if (newest == null) {
        return new Advance.NoRow();
      }
      if (newest > token) {
        return new Advance.Newer(newest);
      }
      if (newest == token || opening.appended() > 0) {
        boolean appended = opening.appended() > 0;
        return new Advance.Advanced(
            appended ? opening.appended() : opening.head(), appended, opening.issued() != 0);
      }
      return new Advance.Moved();
    }

    @Override
    public void createRow() throws SQLException {
      FencingLedger.createRow(c, tenant, workspace);
    }

    @Override
    public List<HostKey> hostKeys() throws SQLException {
      return RunOpener.hostKeys(c, tenant, workspace);
    }

    /**
     * The fold at the head (the run's token the newest there: every result an older holder recorded
     * is at or below it, and none can be recorded after it), remembered; the fold the cache held
     * right before the opening's own event is the state at it.
     */
    @Override
    public WorkspaceState state(Advance.Advanced advanced, long token) throws SQLException {
      long head = advanced.head();
      Folded current =
          (advanced.appended() && before != null && before.sequence() == head - 1
                  ? new Folded(head, before.state(), before.snapshotSequence())
                  : folds.fold(c, tenant, workspace, head))
              .knowing(token);
      folds.remember(tenant, workspace, current);
      return current.state();
    }

    @Override
    public void close() throws SQLException {
      c.close();
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
