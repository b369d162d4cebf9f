package dev.stagecraft.planner.service.adapter.db;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.planner.service.workspace.StoredVariable;
import dev.stagecraft.planner.service.workspace.VariableCategory;
import dev.stagecraft.planner.service.workspace.VariableRefused;
import dev.stagecraft.planner.service.workspace.VariableRefused.Reason;
import dev.stagecraft.planner.service.workspace.VariableRules;
import dev.stagecraft.planner.service.workspace.VariableSetView;
import dev.stagecraft.schemas.seal.SealedBox;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import dev.stagecraft.schemas.seal.UnsealException;
import dev.stagecraft.servicekit.db.Sql;
import dev.stagecraft.servicekit.http.Json;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The variables of workspaces and variable sets ({@code planner.variables}), their versions and
 * their audit ({@code planner.variable_changes}), per tenant (docs/workspaces.md, ADR 0078).
 *
 * <p>Each change is one transaction: the variable's row, the owner's next version and the audit row
 * (who, when, which key, set or unset; never the value) commit together. Changes to one owner are
 * serialized by its version row; changes that involve a global set also by a per-tenant transaction
 * lock, so two global sets never come to define the same variable.
 *
 * <p>A sensitive value is stored only sealed with the secrets keyring, bound to tenant, owner kind,
 * owner, category and key; without a keyring that can seal it is refused. Listings never open a
 * sealed value; {@link #open} does, in memory. Thread-safe.
 */
public final class VariableStore {
  /** Whose variables: a workspace's own or a variable set's. */
  public enum OwnerKind {
    WORKSPACE,
    SET;

    /** As stored and written: {@code workspace} or {@code set}. */
    public String wire() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** One owner of variables. */
  public record Owner(String tenant, OwnerKind kind, String name) {}

  /**
   * A stored variable as listed: its value is null when it is sensitive (never opened here).
   *
   * @param updatedBy {@code role@tenant}
   */
  public record Listed(StoredVariable variable, Instant updatedAt, String updatedBy) {}

  /** An owner's variables by category and key, at its version (0: never changed). */
  public record Listing(long version, List<Listed> variables) {}

  /**
   * One audited change.
   *
   * @param version the owner's version after it
   * @param set true when the variable was set, false when it was unset
   */
  public record Change(
      long version,
      String key,
      VariableCategory category,
      boolean set,
      boolean sensitive,
      String by,
      Instant at) {}

  /** Work inside one transaction. */
  @FunctionalInterface
  interface Work<T> {
    T run(Connection c) throws SQLException;
  }

  private static final String DOMAIN = "dev.stagecraft.variable/v1";

  private final DataSource dataSource;
  private final Clock clock;
  private final SecretsKeyring keyring;

  public VariableStore(DataSource dataSource, Clock clock, SecretsKeyring keyring) {
    this.dataSource = dataSource;
    this.clock = clock;
    this.keyring = keyring;
  }

  /** Whether sensitive values can be stored: the planner has a keyring that seals. */
  public boolean canSeal() {
    return keyring.canSeal();
  }

  /** The owner's variables and version; sensitive values are not opened. */
  public Listing list(Owner owner) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      return new Listing(version(c, owner), rows(c, owner));
    }
  }

  /**
   * Sets (adds or replaces) one variable.
   *
   * @return the owner's version after the change
   * @throws VariableRefused when the change is not allowed, or the set named does not exist
   */
  public long put(Owner owner, StoredVariable variable, String by) throws SQLException {
    return inTransaction(
        c -> {
          boolean global = owner.kind() == OwnerKind.SET && lockSet(c, owner);
          if (owner.kind() == OwnerKind.WORKSPACE) {
            lockVersion(c, owner);
          }
          Optional<StoredVariable> current = find(c, owner, variable.category(), variable.key());
          VariableRules.checkPut(variable, current, keyring.canSeal());
          if (global) {
            lockGlobals(c, owner.tenant());
            VariableRules.checkGlobalDuplicates(
                owner.name(), List.of(variable), globalSets(c, owner.tenant()));
          }
          Instant now = clock.instant();
          String clear = variable.sensitive() ? null : variable.value();
          String sealed = variable.sensitive() ? seal(owner, variable) : null;
          Sql.update(
              c,
              "INSERT INTO planner.variables (tenant, owner_kind, owner, category, key, value,"
                  + " sealed_value, hcl, sensitive, description, updated_at, updated_by)"
                  + " VALUES (?, ?, ?, ?, ?, ?, ?, ?::boolean, ?::boolean, ?, ?, ?)"
                  + " ON CONFLICT (tenant, owner_kind, owner, category, key) DO UPDATE SET"
                  + " value = excluded.value, sealed_value = excluded.sealed_value,"
                  + " hcl = excluded.hcl, sensitive = excluded.sensitive,"
                  + " description = excluded.description, updated_at = excluded.updated_at,"
                  + " updated_by = excluded.updated_by",
              owner.tenant(),
              owner.kind().wire(),
              owner.name(),
              VariableRules.name(variable.category()),
              variable.key(),
              clear,
              sealed,
              Boolean.toString(variable.hcl()),
              Boolean.toString(variable.sensitive()),
              variable.description(),
              now,
              by);
          return audit(
              c, owner, variable.category(), variable.key(), true, variable.sensitive(), by, now);
        });
  }

  /**
   * Removes one variable.
   *
   * @return the owner's version after the change; empty when the variable was not set (nothing
   *     changed)
   */
  public Optional<Long> unset(Owner owner, VariableCategory category, String key, String by)
      throws SQLException {
    return inTransaction(
        c -> {
          if (owner.kind() == OwnerKind.SET) {
            lockSet(c, owner);
          } else {
            lockVersion(c, owner);
          }
          Optional<StoredVariable> current = find(c, owner, category, key);
          if (current.isEmpty()) {
            return Optional.empty();
          }
          Sql.update(
              c,
              "DELETE FROM planner.variables WHERE tenant = ? AND owner_kind = ? AND owner = ?"
                  + " AND category = ? AND key = ?",
              owner.tenant(),
              owner.kind().wire(),
              owner.name(),
              VariableRules.name(category),
              key);
          return Optional.of(
              audit(
                  c, owner, category, key, false, current.get().sensitive(), by, clock.instant()));
        });
  }

  /** The owner's audited changes, newest first. */
  public List<Change> history(Owner owner) throws SQLException {
    List<Change> out = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT version, key, category, change, sensitive, changed_by, changed_at"
                    + " FROM planner.variable_changes WHERE tenant = ? AND owner_kind = ?"
                    + " AND owner = ? ORDER BY version DESC",
                owner.tenant(),
                owner.kind().wire(),
                owner.name());
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(
            new Change(
                rs.getLong(1),
                rs.getString(2),
                VariableRules.category(rs.getString(3)),
                "set".equals(rs.getString(4)),
                rs.getBoolean(5),
                rs.getString(6),
                rs.getTimestamp(7).toInstant()));
      }
    }
    return out;
  }

  /**
   * The owner's variables with their values, sensitive ones opened (in memory only).
   *
   * @param global whether the owner is a global variable set (for precedence)
   * @throws IllegalStateException when a sealed value cannot be opened (its key is not in the
   *     keyring, or the row was altered); the message names the variable, never the value
   */
  public VariableSetView open(Owner owner, boolean global) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      return open(c, owner, global);
    }
  }

  /** {@link #open(Owner, boolean)} on {@code c} (in the caller's transaction). */
  VariableSetView open(Connection c, Owner owner, boolean global) throws SQLException {
    long version = version(c, owner);
    List<StoredVariable> out = new ArrayList<>();
    try (PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT category, key, value, sealed_value, hcl, sensitive, description"
                    + " FROM planner.variables WHERE tenant = ? AND owner_kind = ? AND owner = ?"
                    + " ORDER BY category, key",
                owner.tenant(),
                owner.kind().wire(),
                owner.name());
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        VariableCategory category = VariableRules.category(rs.getString(1));
        String key = rs.getString(2);
        String value = rs.getString(3);
        if (rs.getBoolean(6)) {
          value = unseal(owner, category, key, rs.getString(4));
        }
        out.add(
            new StoredVariable(
                key, category, value, rs.getBoolean(5), rs.getBoolean(6), rs.getString(7)));
      }
    }
    return new VariableSetView(owner.name(), global, version, out);
  }

  <T> T inTransaction(Work<T> work) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        T result = work.run(c);
        c.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        Sql.rollbackAfter(c, e);
        throw e;
      }
    }
  }

  /**
   * Locks the variable set (its row) for the change of its variables.
   *
   * @return whether it is global
   * @throws VariableRefused when the tenant has no such set
   */
  static boolean lockSet(Connection c, Owner owner) throws SQLException {
    try (PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT global FROM planner.variable_sets WHERE tenant = ? AND name = ?"
                    + " FOR UPDATE",
                owner.tenant(),
                owner.name());
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        throw new VariableRefused(
            Reason.NOT_FOUND, "Not Found", "There is no variable set " + owner.name() + ".");
      }
      return rs.getBoolean(1);
    }
  }

  /** Serializes, per tenant, the changes that could make two global sets define one variable. */
  static void lockGlobals(Connection c, String tenant) throws SQLException {
    try (PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT pg_advisory_xact_lock(hashtextextended(?, 0))",
                "planner.variable_sets.global/" + tenant);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
    }
  }

  /** The tenant's global sets with their variables' categories and keys (values not read). */
  static List<VariableSetView> globalSets(Connection c, String tenant) throws SQLException {
    List<VariableSetView> out = new ArrayList<>();
    try (PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT s.name, v.category, v.key FROM planner.variable_sets s"
                    + " LEFT JOIN planner.variables v ON v.tenant = s.tenant"
                    + " AND v.owner_kind = 'set' AND v.owner = s.name"
                    + " WHERE s.tenant = ? AND s.global ORDER BY s.name",
                tenant);
        ResultSet rs = ps.executeQuery()) {
      String name = null;
      List<StoredVariable> vars = new ArrayList<>();
      while (rs.next()) {
        if (name != null && !name.equals(rs.getString(1))) {
          out.add(new VariableSetView(name, true, 0, vars));
          vars = new ArrayList<>();
        }
        name = rs.getString(1);
        if (rs.getString(2) != null) {
          vars.add(
              new StoredVariable(
                  rs.getString(3),
                  VariableRules.category(rs.getString(2)),
                  null,
                  false,
                  false,
                  ""));
        }
      }
      if (name != null) {
        out.add(new VariableSetView(name, true, 0, vars));
      }
    }
    return out;
  }

  /** The owner's variables without values (for checks and listings). */
  static List<Listed> rows(Connection c, Owner owner) throws SQLException {
    List<Listed> out = new ArrayList<>();
    try (PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT category, key, value, hcl, sensitive, description, updated_at, updated_by"
                    + " FROM planner.variables WHERE tenant = ? AND owner_kind = ? AND owner = ?"
                    + " ORDER BY category DESC, key",
                owner.tenant(),
                owner.kind().wire(),
                owner.name());
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(
            new Listed(
                new StoredVariable(
                    rs.getString(2),
                    VariableRules.category(rs.getString(1)),
                    rs.getString(3),
                    rs.getBoolean(4),
                    rs.getBoolean(5),
                    rs.getString(6)),
                rs.getTimestamp(7).toInstant(),
                rs.getString(8)));
      }
    }
    return out;
  }

  /** Appends the audit row of one change and returns the owner's new version. */
  static long audit(
      Connection c,
      Owner owner,
      VariableCategory category,
      String key,
      boolean set,
      boolean sensitive,
      String by,
      Instant at)
      throws SQLException {
    long version =
        Sql.queryLong(
            c,
            "INSERT INTO planner.variable_versions (tenant, owner_kind, owner, version)"
                + " VALUES (?, ?, ?, 1) ON CONFLICT (tenant, owner_kind, owner)"
                + " DO UPDATE SET version = planner.variable_versions.version + 1"
                + " RETURNING version",
            owner.tenant(),
            owner.kind().wire(),
            owner.name());
    Sql.update(
        c,
        "INSERT INTO planner.variable_changes (tenant, owner_kind, owner, version, key, category,"
            + " change, sensitive, changed_by, changed_at)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?::boolean, ?, ?)",
        owner.tenant(),
        owner.kind().wire(),
        owner.name(),
        version,
        key,
        VariableRules.name(category),
        set ? "set" : "unset",
        Boolean.toString(sensitive),
        by,
        at);
    return version;
  }

  /** Locks the owner's version row (created at 0 when missing) for a change of a workspace. */
  private static void lockVersion(Connection c, Owner owner) throws SQLException {
    Sql.update(
        c,
        "INSERT INTO planner.variable_versions (tenant, owner_kind, owner, version)"
            + " VALUES (?, ?, ?, 0) ON CONFLICT (tenant, owner_kind, owner)"
            + " DO UPDATE SET version = planner.variable_versions.version",
        owner.tenant(),
        owner.kind().wire(),
        owner.name());
  }

  private static long version(Connection c, Owner owner) throws SQLException {
    try (PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT version FROM planner.variable_versions WHERE tenant = ?"
                    + " AND owner_kind = ? AND owner = ?",
                owner.tenant(),
                owner.kind().wire(),
                owner.name());
        ResultSet rs = ps.executeQuery()) {
      return rs.next() ? rs.getLong(1) : 0;
    }
  }

  private static Optional<StoredVariable> find(
      Connection c, Owner owner, VariableCategory category, String key) throws SQLException {
    return rows(c, owner).stream()
        .map(Listed::variable)
        .filter(v -> v.is(category, key))
        .findFirst();
  }

  private String seal(Owner owner, StoredVariable variable) {
    return Json.write(
        keyring.seal(
            variable.value().getBytes(StandardCharsets.UTF_8),
            associatedData(owner, variable.category(), variable.key())));
  }

  private String unseal(Owner owner, VariableCategory category, String key, String sealed) {
    JsonNode box = Json.object(sealed);
    try {
      return new String(
          keyring.open(
              new SealedBox(
                  box.path("alg").asText(),
                  box.path("kid").asText(),
                  box.path("nonce").asText(),
                  box.path("ciphertext").asText()),
              associatedData(owner, category, key)),
          StandardCharsets.UTF_8);
    } catch (UnsealException e) {
      throw new IllegalStateException(
          "Sensitive "
              + VariableRules.name(category)
              + " variable "
              + key
              + " of "
              + owner.kind().wire()
              + " "
              + owner.name()
              + " is sealed at rest and cannot be opened: "
              + e.getMessage());
    }
  }

  static byte[] associatedData(Owner owner, VariableCategory category, String key) {
    return SecretsKeyring.associatedData(
        DOMAIN,
        owner.tenant(),
        owner.kind().wire(),
        owner.name(),
        VariableRules.name(category),
        key);
  }
}
