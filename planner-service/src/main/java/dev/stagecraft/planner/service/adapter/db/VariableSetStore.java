package dev.stagecraft.planner.service.adapter.db;

import dev.stagecraft.planner.service.adapter.db.VariableStore.Listed;
import dev.stagecraft.planner.service.adapter.db.VariableStore.Owner;
import dev.stagecraft.planner.service.adapter.db.VariableStore.OwnerKind;
import dev.stagecraft.planner.service.workspace.StoredVariable;
import dev.stagecraft.planner.service.workspace.VariableRules;
import dev.stagecraft.servicekit.db.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Variable sets ({@code planner.variable_sets}) and the workspaces they are attached to ({@code
 * planner.variable_set_workspaces}), per tenant (docs/workspaces.md). A set's variables are kept by
 * {@link VariableStore} (owner kind {@code set}); deleting a set unsets each of them, audited, in
 * the same transaction. Making a set global is refused when another global set defines one of its
 * variables. Thread-safe.
 */
public final class VariableSetStore {
  /**
   * A variable set.
   *
   * @param global attached to every workspace of the tenant
   * @param workspaces the workspaces it is attached to, by name
   */
  public record VariableSet(
      String tenant,
      String name,
      String description,
      boolean global,
      List<String> workspaces,
      Instant createdAt,
      String createdBy,
      Instant updatedAt,
      String updatedBy) {}

  private final DataSource dataSource;
  private final Clock clock;
  private final VariableStore variables;

  public VariableSetStore(DataSource dataSource, Clock clock, VariableStore variables) {
    this.dataSource = dataSource;
    this.clock = clock;
    this.variables = variables;
  }

  /**
   * Creates an empty set.
   *
   * @return false when the tenant has a set of that name (nothing changed)
   */
  public boolean create(String tenant, String name, String description, boolean global, String by)
      throws SQLException {
    VariableRules.checkSetName(name);
    Instant now = clock.instant();
    try (Connection c = dataSource.getConnection()) {
      return Sql.update(
              c,
              "INSERT INTO planner.variable_sets (tenant, name, description, global, created_at,"
                  + " created_by, updated_at, updated_by)"
                  + " VALUES (?, ?, ?, ?::boolean, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
              tenant,
              name,
              description == null ? "" : description,
              Boolean.toString(global),
              now,
              by,
              now,
              by)
          == 1;
    }
  }

  public Optional<VariableSet> find(String tenant, String name) throws SQLException {
    List<VariableSet> found = select(tenant, name);
    return found.isEmpty() ? Optional.empty() : Optional.of(found.getFirst());
  }

  /** The tenant's sets by name. */
  public List<VariableSet> list(String tenant) throws SQLException {
    return select(tenant, null);
  }

  /**
   * Changes the description and whether the set is global (null: unchanged).
   *
   * @return the set after the change; empty when the tenant has none of that name
   * @throws dev.stagecraft.planner.service.workspace.VariableRefused when it would become global
   *     while another global set defines one of its variables
   */
  public Optional<VariableSet> update(
      String tenant, String name, String description, Boolean global, String by)
      throws SQLException {
    Owner owner = new Owner(tenant, OwnerKind.SET, name);
    boolean found =
        variables.inTransaction(
            c -> {
              if (!exists(c, tenant, name)) {
                return false;
              }
              boolean wasGlobal = VariableStore.lockSet(c, owner);
              if (Boolean.TRUE.equals(global) && !wasGlobal) {
                VariableStore.lockGlobals(c, tenant);
                VariableRules.checkGlobalDuplicates(
                    name,
                    VariableStore.rows(c, owner).stream().map(Listed::variable).toList(),
                    VariableStore.globalSets(c, tenant));
              }
              Sql.update(
                  c,
                  "UPDATE planner.variable_sets SET description = coalesce(?, description),"
                      + " global = coalesce(?::boolean, global), updated_at = ?, updated_by = ?"
                      + " WHERE tenant = ? AND name = ?",
                  description,
                  global == null ? null : global.toString(),
                  clock.instant(),
                  by,
                  tenant,
                  name);
              return true;
            });
    return found ? find(tenant, name) : Optional.empty();
  }

  /**
   * Deletes the set, its attachments and its variables (each unset is audited).
   *
   * @return false when the tenant has no set of that name
   */
  public boolean delete(String tenant, String name, String by) throws SQLException {
    Owner owner = new Owner(tenant, OwnerKind.SET, name);
    return variables.inTransaction(
        c -> {
          if (!exists(c, tenant, name)) {
            return false;
          }
          VariableStore.lockSet(c, owner);
          Instant now = clock.instant();
          for (Listed listed : VariableStore.rows(c, owner)) {
            StoredVariable v = listed.variable();
            VariableStore.audit(c, owner, v.category(), v.key(), false, v.sensitive(), by, now);
          }
          Sql.update(
              c,
              "DELETE FROM planner.variables WHERE tenant = ? AND owner_kind = 'set'"
                  + " AND owner = ?",
              tenant,
              name);
          Sql.update(
              c, "DELETE FROM planner.variable_sets WHERE tenant = ? AND name = ?", tenant, name);
          return true;
        });
  }

  /**
   * Attaches the set to a workspace.
   *
   * @return false when it was attached already
   * @throws dev.stagecraft.planner.service.workspace.VariableRefused when there is no such set
   */
  public boolean attach(String tenant, String name, String workspace, String by)
      throws SQLException {
    return variables.inTransaction(
        c -> {
          VariableStore.lockSet(c, new Owner(tenant, OwnerKind.SET, name));
          return Sql.update(
                  c,
                  "INSERT INTO planner.variable_set_workspaces (tenant, set_name, workspace,"
                      + " attached_at, attached_by) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                  tenant,
                  name,
                  workspace,
                  clock.instant(),
                  by)
              == 1;
        });
  }

  /**
   * Detaches the set from a workspace.
   *
   * @return false when it was not attached to it
   */
  public boolean detach(String tenant, String name, String workspace) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      return Sql.update(
              c,
              "DELETE FROM planner.variable_set_workspaces WHERE tenant = ? AND set_name = ?"
                  + " AND workspace = ?",
              tenant,
              name,
              workspace)
          == 1;
    }
  }

  /**
   * The sets whose variables a workspace's runs read: those attached to it and the global ones.
   *
   * @return set name → global, by name
   */
  public Map<String, Boolean> readBy(String tenant, String workspace) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      return readBy(c, tenant, workspace);
    }
  }

  /** {@link #readBy(String, String)} on {@code c} (in the caller's transaction). */
  static Map<String, Boolean> readBy(Connection c, String tenant, String workspace)
      throws SQLException {
    Map<String, Boolean> out = new LinkedHashMap<>();
    try (PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT s.name, s.global FROM planner.variable_sets s WHERE s.tenant = ?"
                    + " AND (s.global OR EXISTS (SELECT 1 FROM planner.variable_set_workspaces a"
                    + " WHERE a.tenant = s.tenant AND a.set_name = s.name AND a.workspace = ?))"
                    + " ORDER BY s.name",
                tenant,
                workspace);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.put(rs.getString(1), rs.getBoolean(2));
      }
    }
    return out;
  }

  private static boolean exists(Connection c, String tenant, String name) throws SQLException {
    return Sql.queryLong(
            c,
            "SELECT count(*) FROM planner.variable_sets WHERE tenant = ? AND name = ?",
            tenant,
            name)
        > 0;
  }

  private List<VariableSet> select(String tenant, String name) throws SQLException {
    List<VariableSet> out = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT s.name, s.description, s.global, s.created_at, s.created_by,"
                    + " s.updated_at, s.updated_by, coalesce((SELECT array_agg(a.workspace ORDER BY"
                    + " a.workspace) FROM planner.variable_set_workspaces a WHERE a.tenant ="
                    + " s.tenant AND a.set_name = s.name), '{}')"
                    + " FROM planner.variable_sets s WHERE s.tenant = ?"
                    + " AND (?::text IS NULL OR s.name = ?) ORDER BY s.name",
                tenant,
                name,
                name);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(
            new VariableSet(
                tenant,
                rs.getString(1),
                rs.getString(2),
                rs.getBoolean(3),
                List.of((String[]) rs.getArray(8).getArray()),
                rs.getTimestamp(4).toInstant(),
                rs.getString(5),
                rs.getTimestamp(6).toInstant(),
                rs.getString(7)));
      }
    }
    return out;
  }
}
