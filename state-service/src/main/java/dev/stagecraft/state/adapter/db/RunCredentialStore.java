package dev.stagecraft.state.adapter.db;

import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.schemas.action.RunCredentialProof;
import dev.stagecraft.servicekit.db.Sql;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Per-run state credentials (design §8, docs/adr/0013) in {@code state.run_credentials}: minted for
 * one run of one workspace when the run holds the workspace lock, stored only as their SHA-256,
 * revoked when the run ends. A credential is <em>active</em> while it is not revoked and its
 * fencing token is still the newest the workspace has seen (a later lock holder supersedes it
 * without a revocation). Active credentials authorize reading the workspace's state over the
 * internal API and recording action results proven with them ({@link RunCredentialProof}).
 *
 * <p>Concurrency: every method is one statement or one transaction; the database serializes them.
 * The credential itself is never stored and never logged.
 */
@Singleton
public final class RunCredentialStore {
  private final DataSource dataSource;
  private final Clock clock;

  public RunCredentialStore(DataSource dataSource, Clock clock) {
    this.dataSource = dataSource;
    this.clock = clock;
  }

  /** The answer to {@link #mint}: the credential, or why none was minted. */
  public sealed interface Minted {}

  /** The new credential, in clear: the only time it is visible. */
  public record Issued(String credential) implements Minted {
    @Override
    public String toString() {
      return "Issued[credential=...]";
    }
  }

  /** Nothing minted; {@code detail} says why and what to do. */
  public record Refused(String detail) implements Minted {}

  /**
   * Mints a credential of {@code runId} in the workspace, bound to the fencing token of the lock
   * the run holds. Minting again for the same run (a retry after a lost answer, or a second planner
   * opening the run it was adopted from) adds one: none replaces another (V15), and all stop
   * working when the run's credentials are revoked or a newer lock holder supersedes them; a
   * revoked run gets none.
   */
  public Minted mint(String tenant, String workspace, String runId, long fencingToken)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        long newest = newestToken(c, tenant, workspace);
        if (fencingToken < newest) {
          c.rollback();
          return new Refused(
              "fencing token "
                  + fencingToken
                  + " is older than the newest token "
                  + newest
                  + " seen for workspace '"
                  + workspace
                  + "': the run lost its lock; acquire it again");
        }
        Minted minted = mintIn(c, tenant, workspace, runId, fencingToken);
        c.commit();
        return minted;
      } catch (SQLException | RuntimeException e) {
        Sql.rollbackAfter(c, e);
        throw e;
      }
    }
  }

  /**
   * Mints the run's credential inside {@link #mint}'s transaction, which holds the newest token
   * (refused for a revoked run).
   */
  private Minted mintIn(
      Connection c, String tenant, String workspace, String runId, long fencingToken)
      throws SQLException {
    String credential = RunCredentialProof.newCredential();
    Instant now = clock.instant();
    long rows =
        Sql.queryLong(
            c,
            "WITH cr AS (INSERT INTO state.run_credentials (tenant, workspace, run_id,"
                + " fencing_token, created_at) VALUES (?, ?, ?, ?, ?)"
                + " ON CONFLICT (tenant, workspace, run_id) DO UPDATE SET"
                + " fencing_token = excluded.fencing_token"
                + " WHERE state.run_credentials.revoked_at IS NULL RETURNING 1),"
                + " ch AS (INSERT INTO state.run_credential_hashes (credential_hash, tenant,"
                + " workspace, run_id, fencing_token, created_at)"
                + " SELECT ?, ?, ?, ?, ?, ? FROM cr RETURNING 1)"
                + " SELECT count(*) FROM ch",
            tenant,
            workspace,
            runId,
            fencingToken,
            now,
            RunCredentialProof.digest(credential),
            tenant,
            workspace,
            runId,
            fencingToken,
            now);
    return rows == 1 ? new Issued(credential) : new Refused(revokedDetail(runId));
  }

  /** Why a run whose credential was revoked gets no new one. */
  public static String revokedDetail(String runId) {
    return "run '" + runId + "' already ended (its credential was revoked); start a new run";
  }

  /**
   * Revokes the run's credentials (every one it was given): from now on they are refused
   * everywhere. Idempotent.
   *
   * @return false when the run has no credential in the workspace
   */
  public boolean revoke(String tenant, String workspace, String runId) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      return Sql.update(
              c,
              "UPDATE state.run_credentials SET revoked_at = coalesce(revoked_at, ?)"
                  + " WHERE tenant = ? AND workspace = ? AND run_id = ?",
              clock.instant(),
              tenant,
              workspace,
              runId)
          == 1;
    }
  }

  /**
   * The run whose credential {@code credential} is, when it is active for exactly this tenant's
   * workspace; empty for an unknown, revoked or superseded credential and for one of another
   * workspace.
   */
  public Optional<String> activeRun(String tenant, String workspace, String credential)
      throws SQLException {
    if (credential == null || !credential.startsWith(RunCredentialProof.PREFIX)) {
      return Optional.empty();
    }
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT h.run_id" + ACTIVE + " AND h.tenant = ? AND h.workspace = ?",
                RunCredentialProof.digest(credential),
                tenant,
                workspace);
        ResultSet rs = ps.executeQuery()) {
      return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
    }
  }

  /**
   * The tail of a query for the credential whose hash is the first parameter, when it is active:
   * its run not revoked and its token the workspace's newest (columns of {@code h}).
   */
  private static final String ACTIVE =
      " FROM state.run_credential_hashes h JOIN state.run_credentials r"
          + " ON r.tenant = h.tenant AND r.workspace = h.workspace AND r.run_id = h.run_id"
          + " LEFT JOIN state.fencing f ON f.tenant = h.tenant AND f.workspace = h.workspace"
          + " WHERE h.credential_hash = ? AND r.revoked_at IS NULL"
          + " AND h.fencing_token >= coalesce(f.newest_token, 0)";

  /** Whose an active credential is: its run, of its tenant's workspace. */
  public record ActiveCredential(String tenant, String workspace, String runId) {}

  /**
   * The run an active credential belongs to, whichever workspace it is for; empty for an unknown,
   * revoked or superseded one. For reading the outputs of the run's tenant's workspaces (remote
   * state, docs/adr/0063): the tenant is the credential's, never one the caller names.
   */
  public Optional<ActiveCredential> active(String credential) throws SQLException {
    if (credential == null || !credential.startsWith(RunCredentialProof.PREFIX)) {
      return Optional.empty();
    }
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT h.tenant, h.workspace, h.run_id" + ACTIVE,
                RunCredentialProof.digest(credential));
        ResultSet rs = ps.executeQuery()) {
      return rs.next()
          ? Optional.of(new ActiveCredential(rs.getString(1), rs.getString(2), rs.getString(3)))
          : Optional.empty();
    }
  }

  /**
   * The {@link StateStore.OutcomeGate} of the Kafka path: an {@code action.finished} is recorded
   * only when its {@code runProof} was made with the credential of its run in its workspace and
   * that credential is active. Runs inside the recording transaction, after the workspace row is
   * locked, so a revocation committed before it is always seen.
   */
  public static Optional<String> refusal(
      Connection c, String tenant, String workspace, ActionFinished finished) throws SQLException {
    String run = finished.runId();
    boolean any = false;
    boolean current = false;
    try (PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT h.credential_hash, r.revoked_at IS NOT NULL, h.fencing_token,"
                    + " coalesce(f.newest_token, 0)"
                    + " FROM state.run_credentials r JOIN state.run_credential_hashes h"
                    + " ON h.tenant = r.tenant AND h.workspace = r.workspace AND h.run_id = r.run_id"
                    + " LEFT JOIN state.fencing f"
                    + " ON f.tenant = r.tenant AND f.workspace = r.workspace"
                    + " WHERE r.tenant = ? AND r.workspace = ? AND r.run_id = ?",
                tenant,
                workspace,
                run);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        if (rs.getBoolean(2)) {
          return Optional.of(
              "the state credential of run '" + run + "' was revoked: the run has ended");
        }
        any = true;
        if (rs.getLong(3) < rs.getLong(4)) {
          continue;
        }
        current = true;
        if (RunCredentialProof.verifies(
            finished.runProof(), rs.getString(1), run, finished.actionId(), finished.outcome())) {
          return Optional.empty();
        }
      }
    }
    return Optional.of(refusalDetail(run, workspace, finished, any, current));
  }

  /** Why no credential of the run proves {@code finished}. */
  private static String refusalDetail(
      String run, String workspace, ActionFinished finished, boolean any, boolean current) {
    if (!any) {
      return "run '"
          + run
          + "' holds no state credential for workspace '"
          + workspace
          + "': only a run that holds the workspace lock may record results (the planner"
          + " mints its credential when it takes the lock)";
    }
    if (!current) {
      return "the state credential of run '"
          + run
          + "' was superseded: a newer holder of the workspace lock exists";
    }
    return finished.runProof() == null
        ? "the result carries no run proof: executors must prove it with the run's state"
            + " credential from the dispatch"
        : "the result's run proof does not match the state credential of run '"
            + run
            + "' in workspace '"
            + workspace
            + "'";
  }

  /** The workspace's newest fencing token, 0 when it has none. */
  static long newestToken(Connection c, String tenant, String workspace) throws SQLException {
    try (PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT newest_token FROM state.fencing WHERE tenant = ? AND workspace = ?",
                tenant,
                workspace);
        ResultSet rs = ps.executeQuery()) {
      return rs.next() ? rs.getLong(1) : 0;
    }
  }
}
