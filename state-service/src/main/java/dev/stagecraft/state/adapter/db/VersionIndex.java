package dev.stagecraft.state.adapter.db;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.stagecraft.servicekit.db.Sql;
import dev.stagecraft.state.history.StateEvent;
import dev.stagecraft.state.history.StoredDocument;
import dev.stagecraft.state.history.TerraformStateV4;
import dev.stagecraft.state.history.WorkspaceState;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The version index ({@code state.state_versions}, V5, V7): listing a workspace's versions, finding
 * one, indexing the versions an append made, and the one-time backfill of older histories (ADR 0068
 * split this out of StateStore).
 */
final class VersionIndex {
  private final DataSource dataSource;
  private final Folds folds;

  VersionIndex(DataSource dataSource, Folds folds) {
    this.dataSource = dataSource;
    this.folds = folds;
  }

  private static final ObjectMapper CANONICAL =
      new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

  /**
   * Every version of the workspace's state, oldest first: the state after each event that changed
   * the serial (or replaced the whole document). Read from the version index ({@code
   * state.state_versions}, written with each such event), so a listing costs one indexed query
   * whatever the history's length. A workspace whose history predates the index is indexed once, by
   * its first listing, under the workspace's lock (one fold of its history).
   */
  List<StateStore.Version> versions(String tenant, String workspace) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      if (needsBackfill(c, tenant, workspace)) {
        backfillVersions(c, tenant, workspace);
      }
      List<StateStore.Version> versions = new ArrayList<>();
      try (PreparedStatement ps =
              Sql.prepare(
                  c,
                  "SELECT serial, sequence, created_at, type, run_id, actor, digest"
                      + " FROM state.state_versions WHERE tenant = ? AND workspace = ?"
                      + " ORDER BY sequence",
                  tenant,
                  workspace);
          ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          versions.add(
              new StateStore.Version(
                  rs.getLong(1),
                  rs.getLong(2),
                  rs.getTimestamp(3).toInstant(),
                  rs.getString(4),
                  rs.getString(5),
                  rs.getString(6),
                  rs.getString(7)));
        }
      }
      return withDigests(c, tenant, workspace, versions);
    }
  }

  /**
   * {@code versions} with every missing digest computed and stored. An append indexes its version
   * without a digest (that would cost a render of the whole state per append); the first listing
   * folds to each such version once, renders and hashes it, and sets the row's digest (the one
   * update its trigger permits: NULL to a value). Concurrent listings compute the same value; the
   * first to store it wins, the others' update changes nothing.
   */
  private List<StateStore.Version> withDigests(
      Connection c, String tenant, String workspace, List<StateStore.Version> versions)
      throws SQLException {
    List<StateStore.Version> complete = new ArrayList<>(versions.size());
    for (StateStore.Version v : versions) {
      if (v.digest() != null) {
        complete.add(v);
        continue;
      }
      WorkspaceState state = folds.fold(c, tenant, workspace, v.sequence()).state();
      String digest = digest(TerraformStateV4.render(state, state.lineage()));
      Sql.update(
          c,
          "UPDATE state.state_versions SET digest = ? WHERE tenant = ? AND workspace = ?"
              + " AND sequence = ? AND digest IS NULL",
          digest,
          tenant,
          workspace,
          v.sequence());
      complete.add(
          new StateStore.Version(
              v.serial(), v.sequence(), v.time(), v.type(), v.runId(), v.actor(), digest));
    }
    return complete;
  }

  /**
   * The state as it was at version {@code serial} (the newest version with that serial, should a
   * forced push or a push after a deletion have repeated one), or empty when there is none. Finds
   * the version's sequence in the index, then folds from the newest snapshot at or below it.
   */
  Optional<WorkspaceState> version(String tenant, String workspace, long serial)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      if (needsBackfill(c, tenant, workspace)) {
        backfillVersions(c, tenant, workspace);
      }
      long sequence;
      try (PreparedStatement ps =
              Sql.prepare(
                  c,
                  "SELECT max(sequence) FROM state.state_versions"
                      + " WHERE tenant = ? AND workspace = ? AND serial = ?",
                  tenant,
                  workspace,
                  serial);
          ResultSet rs = ps.executeQuery()) {
        rs.next();
        sequence = rs.getLong(1);
        if (rs.wasNull()) {
          return Optional.empty();
        }
      }
      return Optional.of(folds.fold(c, tenant, workspace, sequence).state());
    }
  }

  /** Whether an appended event made a version: it changed the serial or replaced the document. */
  static boolean makesVersion(WorkspaceState before, WorkspaceState after, StateEvent event) {
    return after.serial() != before.serial() || event instanceof StateEvent.StateReplaced;
  }

  static void indexVersion(Connection c, String tenant, String workspace, StateStore.Version v)
      throws SQLException {
    Sql.update(
        c,
        "INSERT INTO state.state_versions (tenant, workspace, sequence, serial, type, run_id,"
            + " actor, digest, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
            + " ON CONFLICT (tenant, workspace, sequence) DO NOTHING",
        tenant,
        workspace,
        v.sequence(),
        v.serial(),
        v.type(),
        v.runId(),
        v.actor(),
        v.digest(),
        v.time());
  }

  private static boolean needsBackfill(Connection c, String tenant, String workspace)
      throws SQLException {
    try (PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT 1 FROM state.state_versions_backfill WHERE tenant = ? AND workspace = ?",
                tenant,
                workspace);
        ResultSet rs = ps.executeQuery()) {
      return rs.next();
    }
  }

  /**
   * Indexes the versions of a history written before the index existed: one fold of the whole
   * history under the workspace's lock (so no write interleaves), then the workspace leaves the
   * backfill list. Rows a write already indexed are kept (same content).
   */
  private static void backfillVersions(Connection c, String tenant, String workspace)
      throws SQLException {
    c.setAutoCommit(false);
    try {
      FencingLedger.lock(c, tenant, workspace);
      if (needsBackfill(c, tenant, workspace)) {
        WorkspaceState state = WorkspaceState.EMPTY;
        for (StateStore.StoredEvent e : EventLog.events(c, tenant, workspace, 0, Long.MAX_VALUE)) {
          StoredDocument stored =
              e.event() instanceof StateEvent.StateReplaced r ? r.stored() : null;
          WorkspaceState next =
              stored != null
                  ? DocumentReader.load(c, tenant, workspace, stored)
                  : state.apply(e.event());
          if (makesVersion(state, next, e.event())) {
            indexVersion(
                c,
                tenant,
                workspace,
                new StateStore.Version(
                    next.serial(),
                    e.sequence(),
                    e.time(),
                    e.type(),
                    e.runId(),
                    e.actor(),
                    stored != null
                        ? stored.digest()
                        : digest(TerraformStateV4.render(next, next.lineage()))));
          }
          state = next;
        }
        Sql.update(
            c,
            "DELETE FROM state.state_versions_backfill WHERE tenant = ? AND workspace = ?",
            tenant,
            workspace);
      }
      c.commit();
    } catch (SQLException | RuntimeException e) {
      Sql.rollbackAfter(c, e);
      throw e; // the caller closes the connection; the pool restores auto-commit
    }
    c.setAutoCommit(true);
  }

  /** SHA-256 (hex) of a JSON value written with sorted keys. */
  static String digest(Object json) {
    try {
      byte[] bytes = CANONICAL.writeValueAsBytes(json);
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (JsonProcessingException | NoSuchAlgorithmException e) {
      throw new IllegalStateException("cannot digest a state document", e);
    }
  }
}
