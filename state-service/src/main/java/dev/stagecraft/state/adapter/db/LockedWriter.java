package dev.stagecraft.state.adapter.db;

import dev.stagecraft.servicekit.db.Sql;
import dev.stagecraft.state.application.LockedChanges;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The writes that take the workspace's row lock ({@link FencingLedger#lock}) for their whole
 * transaction, the application's {@link LockedChanges} port: taint changes, outputs, rollbacks,
 * deletions and a forced unlock's record (decided by {@code application.StateChanges}). It folds,
 * lets the caller decide, advances the token through {@link FencingLedger} and appends through
 * {@link EventLog}; a sequence a fast append took meanwhile makes it decide again. Split out of
 * {@link StateStore} (ADR 0068).
 */
final class LockedWriter implements LockedChanges {
  private final DataSource dataSource;
  private final Clock clock;
  private final Folds folds;

  LockedWriter(DataSource dataSource, Clock clock, Folds folds) {
    this.dataSource = dataSource;
    this.clock = clock;
    this.folds = folds;
  }

  /**
   * The transaction every locked change shares: lock the workspace, fold, decide with the newest
   * fencing token; when the decision has events to append (null: write nothing, roll back), advance
   * the newest token to the writer's if it is newer and append the events under a new origin {@code
   * eventIdPrefix + uuid}. The cache learns the resulting state either way.
   */
  @Override
  public <D> D decideAndAppend(Writer writer, Decide<D> decide) throws SQLException {
    String tenant = writer.tenant();
    String workspace = writer.workspace();
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      for (int attempt = 1; ; attempt++) {
        try {
          long newest = FencingLedger.lock(c, tenant, workspace);
          long head = EventLog.headSequence(c, tenant, workspace);
          Folded current = folds.fold(c, tenant, workspace, head);
          Decided<D> decided = decide.decide(current.state(), newest);
          if (decided.events() == null) {
            c.rollback();
            folds.remember(tenant, workspace, current);
            return decided.decision();
          }
          if (writer.fencingToken() > newest) {
            FencingLedger.advance(c, tenant, workspace, writer.fencingToken());
          }
          Folded after =
              EventLog.appendAll(
                  c,
                  tenant,
                  workspace,
                  current,
                  decided.events(),
                  new EventLog.Origin(
                      writer.eventIdPrefix() + UUID.randomUUID(),
                      writer.runId(),
                      null,
                      writer.actor()),
                  clock.instant());
          c.commit();
          folds.remember(tenant, workspace, after.knowing(Math.max(newest, writer.fencingToken())));
          return decided.decision();
        } catch (SQLException | RuntimeException e) {
          Sql.rollbackAfter(c, e);
          if (!EventLog.retryAfterLostSequence(e, attempt)) {
            throw e;
          }
        }
      }
    }
  }
}
