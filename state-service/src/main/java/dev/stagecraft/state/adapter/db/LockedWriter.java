package dev.stagecraft.state.adapter.db;

import dev.stagecraft.servicekit.db.Sql;
import dev.stagecraft.state.history.StateEvent;
import dev.stagecraft.state.history.WorkspaceState;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.List;
import java.util.UUID;
import java.util.function.BiFunction;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * The writers that take the workspace's row lock ({@link FencingLedger#lock}) for their whole
 * transaction: taint changes, outputs and whole-document changes ({@link #decideAndAppend}) and a
 * forced unlock's record. They fold, decide, advance the token through {@link FencingLedger} and
 * append through {@link EventLog}; a sequence a fast append took meanwhile makes them decide again.
 * Split out of {@link StateStore} (ADR 0068).
 */
final class LockedWriter {
  private final DataSource dataSource;
  private final Clock clock;
  private final Folds folds;

  LockedWriter(DataSource dataSource, Clock clock, Folds folds) {
    this.dataSource = dataSource;
    this.clock = clock;
    this.folds = folds;
  }

  /**
   * The transaction {@link StateStore#changeTaint}, {@link StateStore#recordOutputs} and {@link
   * StateStore#changeDocument} share: lock the workspace, fold, decide with the newest fencing
   * token; when {@code toAppend} gives the decision's events (null: write nothing, roll back),
   * advance the newest token to {@code fencingToken} if it is newer and append the events under a
   * new origin {@code originPrefix + uuid}. The cache learns the resulting state either way.
   */
  <D> D decideAndAppend(
      String tenant,
      String workspace,
      long fencingToken,
      String originPrefix,
      String runId,
      String actor,
      BiFunction<WorkspaceState, Long, D> decide,
      Function<D, List<StateEvent>> toAppend)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      for (int attempt = 1; ; attempt++) {
        try {
          long newest = FencingLedger.lock(c, tenant, workspace);
          long head = EventLog.headSequence(c, tenant, workspace);
          Folded current = folds.fold(c, tenant, workspace, head);
          D decision = decide.apply(current.state(), newest);
          List<StateEvent> events = toAppend.apply(decision);
          if (events == null) {
            c.rollback();
            folds.remember(tenant, workspace, current);
            return decision;
          }
          if (fencingToken > newest) {
            FencingLedger.advance(c, tenant, workspace, fencingToken);
          }
          Folded after =
              EventLog.appendAll(
                  c,
                  tenant,
                  workspace,
                  current,
                  events,
                  new EventLog.Origin(originPrefix + UUID.randomUUID(), runId, null, actor),
                  clock.instant());
          c.commit();
          folds.remember(tenant, workspace, after.knowing(Math.max(newest, fencingToken)));
          return decision;
        } catch (SQLException | RuntimeException e) {
          Sql.rollbackAfter(c, e);
          if (!EventLog.retryAfterLostSequence(e, attempt)) {
            throw e;
          }
        }
      }
    }
  }

  /**
   * Records in the workspace's history that its lock was forced open (who, why); changes no state.
   */
  void recordForceUnlock(
      String tenant, String workspace, StateEvent.LockForceUnlocked event, String actor)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      for (int attempt = 1; ; attempt++) {
        try {
          long newest = FencingLedger.lock(c, tenant, workspace);
          long head = EventLog.headSequence(c, tenant, workspace);
          Folded current = folds.fold(c, tenant, workspace, head);
          Folded after =
              EventLog.appendAll(
                  c,
                  tenant,
                  workspace,
                  current,
                  List.of(event),
                  new EventLog.Origin("force-unlock-" + UUID.randomUUID(), null, null, actor),
                  clock.instant());
          c.commit();
          folds.remember(tenant, workspace, after.knowing(newest));
          return;
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
