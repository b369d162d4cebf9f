package dev.stagecraft.planner.service.adapter.db;

import dev.stagecraft.servicekit.db.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Workspaces and their settings ({@code planner.workspaces}), per tenant. A run on a workspace that
 * was never created creates it with the default settings. Thread-safe.
 */
public final class WorkspaceStore {
  /**
   * A workspace's settings.
   *
   * @param autoApply apply a plan with changes without waiting for approval
   * @param parallelism the default number of actions a run dispatches at once (1-256)
   * @param coalescing queued runs of the workspace may be coalesced into the newest
   * @param stepTimeoutSeconds how long a provisioner step without a {@code timeout} of its own may
   *     run ({@link #DEFAULT_STEP_TIMEOUT_SECONDS} until changed)
   */
  public record Workspace(
      String tenant,
      String name,
      boolean autoApply,
      int parallelism,
      boolean coalescing,
      int stepTimeoutSeconds,
      Instant createdAt,
      Instant updatedAt) {}

  /** A workspace's step timeout until changed: one hour. */
  public static final int DEFAULT_STEP_TIMEOUT_SECONDS = 3600;

  private final DataSource dataSource;
  private final Clock clock;

  public WorkspaceStore(DataSource dataSource, Clock clock) {
    this.dataSource = dataSource;
    this.clock = clock;
  }

  /**
   * Creates the workspace with these settings.
   *
   * @return false when the tenant already has a workspace of that name (nothing changed)
   */
  public boolean create(
      String tenant, String name, boolean autoApply, int parallelism, boolean coalescing)
      throws SQLException {
    return create(tenant, name, autoApply, parallelism, coalescing, DEFAULT_STEP_TIMEOUT_SECONDS);
  }

  /**
   * Creates the workspace with these settings.
   *
   * @return false when the tenant already has a workspace of that name (nothing changed)
   */
  public boolean create(
      String tenant,
      String name,
      boolean autoApply,
      int parallelism,
      boolean coalescing,
      int stepTimeoutSeconds)
      throws SQLException {
    Instant now = clock.instant();
    try (Connection c = dataSource.getConnection()) {
      return Sql.update(
              c,
              "INSERT INTO planner.workspaces (tenant, name, auto_apply, parallelism, coalescing,"
                  + " step_timeout_seconds, created_at, updated_at)"
                  + " VALUES (?, ?, ?::boolean, ?, ?::boolean, ?, ?, ?) ON CONFLICT DO NOTHING",
              tenant,
              name,
              Boolean.toString(autoApply),
              parallelism,
              Boolean.toString(coalescing),
              stepTimeoutSeconds,
              now,
              now)
          == 1;
    }
  }

  /** The workspace, created with the default settings when it does not exist yet. */
  public Workspace ensure(String tenant, String name) throws SQLException {
    Optional<Workspace> found = find(tenant, name);
    if (found.isPresent()) {
      return found.get();
    }
    create(tenant, name, true, 10, false);
    return find(tenant, name).orElseThrow();
  }

  public Optional<Workspace> find(String tenant, String name) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            Sql.prepare(c, SELECT + " WHERE tenant = ? AND name = ?", tenant, name);
        ResultSet rs = ps.executeQuery()) {
      return rs.next() ? Optional.of(workspace(rs)) : Optional.empty();
    }
  }

  /** The tenant's workspaces by name. */
  public List<Workspace> list(String tenant) throws SQLException {
    List<Workspace> out = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = Sql.prepare(c, SELECT + " WHERE tenant = ? ORDER BY name", tenant);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(workspace(rs));
      }
    }
    return out;
  }

  /**
   * Changes the given settings (null = unchanged).
   *
   * @return the workspace after the change, or empty when the tenant has none of that name
   */
  public Optional<Workspace> update(
      String tenant,
      String name,
      Boolean autoApply,
      Integer parallelism,
      Boolean coalescing,
      Integer stepTimeoutSeconds)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      Sql.update(
          c,
          "UPDATE planner.workspaces SET auto_apply = coalesce(?::boolean, auto_apply),"
              + " parallelism = coalesce(?::integer, parallelism),"
              + " coalescing = coalesce(?::boolean, coalescing),"
              + " step_timeout_seconds = coalesce(?::integer, step_timeout_seconds),"
              + " updated_at = ? WHERE tenant = ? AND name = ?",
          autoApply == null ? null : autoApply.toString(),
          parallelism,
          coalescing == null ? null : coalescing.toString(),
          stepTimeoutSeconds,
          clock.instant(),
          tenant,
          name);
    }
    return find(tenant, name);
  }

  /**
   * Records {@code versionId} as the configuration version last uploaded to the workspace (created
   * with the defaults when new): a run that names only the workspace uses it.
   */
  public void uploaded(String tenant, String name, String versionId) throws SQLException {
    ensure(tenant, name);
    try (Connection c = dataSource.getConnection()) {
      Sql.update(
          c,
          "UPDATE planner.workspaces SET latest_configuration_version = ?, updated_at = ?"
              + " WHERE tenant = ? AND name = ?",
          versionId,
          clock.instant(),
          tenant,
          name);
    }
  }

  /** The configuration version last uploaded to the workspace; empty when none was. */
  public Optional<String> latestUpload(String tenant, String name) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT latest_configuration_version FROM planner.workspaces"
                    + " WHERE tenant = ? AND name = ?",
                tenant,
                name);
        ResultSet rs = ps.executeQuery()) {
      return rs.next() ? Optional.ofNullable(rs.getString(1)) : Optional.empty();
    }
  }

  private static final String SELECT =
      "SELECT tenant, name, auto_apply, parallelism, coalescing, step_timeout_seconds,"
          + " created_at, updated_at FROM planner.workspaces";

  private static Workspace workspace(ResultSet rs) throws SQLException {
    return new Workspace(
        rs.getString(1),
        rs.getString(2),
        rs.getBoolean(3),
        rs.getInt(4),
        rs.getBoolean(5),
        rs.getInt(6),
        rs.getTimestamp(7).toInstant(),
        rs.getTimestamp(8).toInstant());
  }
}
