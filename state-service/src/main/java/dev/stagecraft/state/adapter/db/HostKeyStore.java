package dev.stagecraft.state.adapter.db;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.action.LearnedHostKey;
import dev.stagecraft.servicekit.db.Sql;
import dev.stagecraft.state.hostkey.HostKey;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The host keys executors must enforce ({@code state.host_keys}, see V3__host_keys.sql): the
 * tenant's known hosts and the keys accepted on first use per workspace.
 *
 * <p>Every query is bounded by the tenant, so one tenant never reads or removes another's keys.
 * Rows are never deleted: removal sets {@code removed_at} once, and only active rows ({@code
 * removed_at IS NULL}) are returned.
 *
 * <p>Idempotency: first-use keys ({@link #firstUseJson}) rely on a partial unique index, so the
 * first key recorded for a host:port in a workspace wins and a redelivered or repeated report
 * changes nothing; {@link #addKnownHost} of a key already active returns it unchanged. Thread-safe:
 * the database serializes concurrent writers through those indexes.
 */
@Singleton
public final class HostKeyStore {
  private static final Logger LOG = LoggerFactory.getLogger(HostKeyStore.class);
  private static final String COLUMNS =
      "workspace, host, port, public_key, fingerprint, source, run_id, actor, created_at";

  private final DataSource dataSource;
  private final Clock clock;

  public HostKeyStore(DataSource dataSource, Clock clock) {
    this.dataSource = dataSource;
    this.clock = clock;
  }

  /**
   * The keys an action accepted on first use, as the JSON array {@code state.append_events} (V7)
   * inserts in the statement that records the action's outcome: each normalized with its
   * fingerprint; an invalid key is logged and skipped, never failing the recording of the outcome;
   * a key for a host:port that already has an active first-use key in the workspace is ignored
   * there (the first one wins, by the partial unique index).
   *
   * @return the array ({@code host}, {@code port}, {@code public_key}, {@code fingerprint}), or
   *     null when there is no valid key
   */
  static String firstUseJson(
      String tenant, String workspace, String runId, List<LearnedHostKey> learned) {
    if (learned == null || learned.isEmpty()) {
      return null;
    }
    List<Map<String, Object>> rows = new ArrayList<>();
    for (LearnedHostKey key : learned) {
      try {
        String publicKey = HostKey.normalizePublicKey(key.publicKey());
        rows.add(
            Map.of(
                "host", HostKey.normalizeHost(key.host()),
                "port", HostKey.checkPort(key.port()),
                "public_key", publicKey,
                "fingerprint", HostKey.fingerprint(publicKey)));
      } catch (HostKey.Invalid e) {
        LOG.warn(
            "ignoring a learned host key of run {} in {}/{}: {}",
            runId,
            tenant,
            workspace,
            e.getMessage());
      }
    }
    if (rows.isEmpty()) {
      return null;
    }
    try {
      return EventCodec.mapper().writeValueAsString(rows);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("learned host keys not serializable", e);
    }
  }

  /**
   * The keys a run of {@code workspace} must enforce: the workspace's first-use keys and the
   * tenant's known hosts, active only, ordered by host, port and age.
   */
  public List<HostKey> keysFor(String tenant, String workspace) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      return keysFor(c, tenant, workspace);
    }
  }

  /**
   * The query of {@link #keysFor(Connection, String, String)} without its order, for a statement
   * that reads the keys beside something else (parameters: tenant, workspace; columns: {@link
   * #keyAt}'s, then {@code id}).
   */
  static String keysForQuery() {
    return "SELECT "
        + COLUMNS
        + ", id FROM state.host_keys WHERE tenant = ? AND removed_at IS NULL"
        + " AND (workspace IS NULL OR workspace = ?)";
  }

  /** {@link #keysFor(String, String)} on the caller's connection (inside its transaction). */
  public static List<HostKey> keysFor(Connection c, String tenant, String workspace)
      throws SQLException {
    return query(
        c,
        "SELECT "
            + COLUMNS
            + " FROM state.host_keys WHERE tenant = ? AND removed_at IS NULL"
            + " AND (workspace IS NULL OR workspace = ?) ORDER BY host, port, id",
        tenant,
        workspace);
  }

  /** The tenant's known hosts (tenant-wide keys), active only. */
  public List<HostKey> knownHosts(String tenant) throws SQLException {
    return query(
        "SELECT "
            + COLUMNS
            + " FROM state.host_keys WHERE tenant = ? AND removed_at IS NULL"
            + " AND workspace IS NULL ORDER BY host, port, id",
        tenant);
  }

  /** A known host newly added, or the same key already active for host:port. */
  public record Added(HostKey key, boolean created) {}

  /**
   * Adds a tenant-wide known host; adding an active key again changes nothing.
   *
   * @throws HostKey.Invalid for an invalid host, port or key (nothing written)
   */
  public Added addKnownHost(String tenant, String host, int port, String publicKey, String actor)
      throws SQLException {
    String h = HostKey.normalizeHost(host);
    int p = HostKey.checkPort(port);
    String key = HostKey.normalizePublicKey(publicKey);
    try (Connection c = dataSource.getConnection()) {
      int inserted =
          Sql.update(
              c,
              "INSERT INTO state.host_keys (tenant, "
                  + COLUMNS
                  + ") VALUES (?, NULL, ?, ?, ?, ?, ?, NULL, ?, ?)"
                  + " ON CONFLICT (tenant, host, port, public_key)"
                  + " WHERE source = 'known-hosts' AND removed_at IS NULL DO NOTHING",
              tenant,
              h,
              p,
              key,
              HostKey.fingerprint(key),
              HostKey.KNOWN_HOSTS,
              actor,
              clock.instant());
      Optional<HostKey> stored =
          query(
                  c,
                  "SELECT "
                      + COLUMNS
                      + " FROM state.host_keys WHERE tenant = ? AND workspace IS NULL"
                      + " AND host = ? AND port = ? AND public_key = ? AND removed_at IS NULL",
                  tenant,
                  h,
                  p,
                  key)
              .stream()
              .findFirst();
      return new Added(
          stored.orElseThrow(() -> new IllegalStateException("known host vanished")),
          inserted == 1);
    }
  }

  /** Marks the tenant's known hosts for host:port removed; returns what was removed. */
  public List<HostKey> removeKnownHosts(String tenant, String host, int port, String actor)
      throws SQLException {
    return remove(
        "tenant = ? AND workspace IS NULL AND host = ? AND port = ?",
        actor,
        tenant,
        HostKey.normalizeHost(host),
        HostKey.checkPort(port));
  }

  /** Marks the workspace's first-use key for host:port removed; returns what was removed. */
  public List<HostKey> removeFirstUse(
      String tenant, String workspace, String host, int port, String actor) throws SQLException {
    return remove(
        "tenant = ? AND workspace = ? AND host = ? AND port = ?",
        actor,
        tenant,
        workspace,
        HostKey.normalizeHost(host),
        HostKey.checkPort(port));
  }

  private List<HostKey> remove(String where, String actor, Object... params) throws SQLException {
    Object[] all = new Object[params.length + 2];
    all[0] = clock.instant();
    all[1] = actor;
    System.arraycopy(params, 0, all, 2, params.length);
    try (Connection c = dataSource.getConnection()) {
      return query(
          c,
          "UPDATE state.host_keys SET removed_at = ?, removed_by = ? WHERE "
              + where
              + " AND removed_at IS NULL RETURNING "
              + COLUMNS,
          all);
    }
  }

  private List<HostKey> query(String sql, Object... params) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      return query(c, sql, params);
    }
  }

  private static List<HostKey> query(Connection c, String sql, Object... params)
      throws SQLException {
    List<HostKey> keys = new ArrayList<>();
    try (PreparedStatement ps = Sql.prepare(c, sql, params);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        keys.add(keyAt(rs, 1));
      }
    }
    return keys;
  }

  /** The key in the row's columns {@code first} … {@code first + 8} (as {@link #COLUMNS}). */
  static HostKey keyAt(ResultSet rs, int first) throws SQLException {
    return new HostKey(
        rs.getString(first),
        rs.getString(first + 1),
        rs.getInt(first + 2),
        rs.getString(first + 3),
        rs.getString(first + 4),
        rs.getString(first + 5),
        rs.getString(first + 6),
        rs.getString(first + 7),
        rs.getTimestamp(first + 8).toInstant());
  }
}
