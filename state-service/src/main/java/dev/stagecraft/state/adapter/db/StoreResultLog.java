package dev.stagecraft.state.adapter.db;

import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.state.application.ResultLog;
import dev.stagecraft.state.history.Decision;
import dev.stagecraft.state.history.WorkspaceState;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The application's {@link ResultLog} over the store (ADR 0021, 0027, 0052): a recording holds one
 * connection and the fold it decides on — the cached fold first (no read at all), else the head and
 * the newest token at it read in one snapshot and folded — checks {@code gate} on that connection,
 * and appends through {@link EventLog#appendOutcome}, whose typed answer it passes on (remembering
 * the fold an append produced).
 */
final class StoreResultLog implements ResultLog {
  private final DataSource dataSource;
  private final Folds folds;
  private final EventLog log;
  private final StateStore.OutcomeGate gate;

  StoreResultLog(DataSource dataSource, Folds folds, EventLog log, StateStore.OutcomeGate gate) {
    this.dataSource = dataSource;
    this.folds = folds;
    this.log = log;
    this.gate = gate;
  }

  @Override
  public Recording open(String tenant, String workspace) throws SQLException {
    return new StoreRecording(tenant, workspace, dataSource.getConnection());
  }

  private final class StoreRecording implements Recording {
    private final String tenant;
    private final String workspace;
    private final Connection c;
    // optimistic: the cached fold; the append checks, under the workspace's row lock, that its
    // head is still the workspace's head (Moved otherwise)
    private Folded current;

    StoreRecording(String tenant, String workspace, Connection c) {
      this.tenant = tenant;
      this.workspace = workspace;
      this.c = c;
      this.current = folds.cached(tenant, workspace);
    }

    @Override
    public WorkspaceState state() throws SQLException {
      if (current == null) {
        FencingLedger.HeadAndNewest head = FencingLedger.headAndNewestToken(c, tenant, workspace);
        current = folds.fold(c, tenant, workspace, head.head()).knowing(head.newest());
      }
      return current.state();
    }

    @Override
    public void forget() {
      current = null;
    }

    @Override
    public Optional<String> refusal(ActionFinished finished) throws SQLException {
      return gate.refusal(c, tenant, workspace, finished);
    }

    @Override
    public Answer append(
        EventEnvelope source, ActionFinished finished, Decision decision, boolean tokenKnownStale)
        throws SQLException {
      state(); // the fold decided on
      return switch (log.appendOutcome(c, source, finished, current, decision, tokenKnownStale)) {
        case EventLog.Answer.Appended appended -> {
          folds.remember(tenant, workspace, appended.after());
          yield new Answer.Appended(appended.envelope());
        }
        case EventLog.Answer.Duplicate duplicate -> new Answer.Duplicate(duplicate.previous());
        case EventLog.Answer.Stale stale -> new Answer.Stale(stale.newest());
        case EventLog.Answer.Moved moved -> new Answer.Moved();
      };
    }

    @Override
    public void close() throws SQLException {
      c.close();
    }
  }
}
