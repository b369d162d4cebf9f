package dev.stagecraft.state.adapter.db;

import dev.stagecraft.platform.auth.TokenHash;
import dev.stagecraft.servicekit.db.Sql;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Optional;
import javax.sql.DataSource;

/** Tenants and API tokens. Tokens are stored only as SHA-256 hashes. */
@Singleton
public final class TenantStore {
  /**
   * Who a valid API token belongs to.
   *
   * @param actor how history and events name the token's user: {@code api-token:} and the first 12
   *     hex digits of the token's hash (never the token)
   */
  public record Principal(String tenant, String role, String actor) {
    /** Admins and deployers may change state and locks; readers only read. */
    public boolean mayWrite() {
      return "admin".equals(role) || "deployer".equals(role);
    }
  }

  private final DataSource dataSource;
  private final Clock clock;

  public TenantStore(DataSource dataSource, Clock clock) {
    this.dataSource = dataSource;
    this.clock = clock;
  }

  /** Creates the tenant unless it exists (idempotent). */
  public void ensureTenant(String tenant) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      Sql.update(
          c,
          "INSERT INTO state.tenants (tenant, created_at) VALUES (?, ?)"
              + " ON CONFLICT (tenant) DO NOTHING",
          tenant,
          clock.instant());
    }
  }

  public boolean exists(String tenant) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            Sql.prepare(c, "SELECT 1 FROM state.tenants WHERE tenant = ?", tenant);
        ResultSet rs = ps.executeQuery()) {
      return rs.next();
    }
  }

  /** Creates a token and returns it in clear (the only time it is visible). */
  public String createToken(String tenant, String role, String description) throws SQLException {
    String token = TokenHash.newToken();
    try (Connection c = dataSource.getConnection()) {
      Sql.update(
          c,
          "INSERT INTO state.api_tokens (token_hash, tenant, role, description, created_at)"
              + " VALUES (?, ?, ?, ?, ?)",
          TokenHash.sha256(token),
          tenant,
          role,
          description,
          clock.instant());
    }
    return token;
  }

  /**
   * Revokes a token (from now on it is refused everywhere); idempotent.
   *
   * @return false when no such token exists
   */
  public boolean revoke(String token) throws SQLException {
    if (token == null || token.isEmpty()) {
      return false;
    }
    try (Connection c = dataSource.getConnection()) {
      Sql.update(
          c,
          "UPDATE state.api_tokens SET revoked_at = coalesce(revoked_at, ?) WHERE token_hash = ?",
          clock.instant(),
          TokenHash.sha256(token));
      try (PreparedStatement ps =
              Sql.prepare(
                  c,
                  "SELECT 1 FROM state.api_tokens WHERE token_hash = ?",
                  TokenHash.sha256(token));
          ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  /** Every tenant's name, sorted. */
  public java.util.List<String> tenants() throws SQLException {
    java.util.List<String> out = new java.util.ArrayList<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = Sql.prepare(c, "SELECT tenant FROM state.tenants ORDER BY tenant");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  /**
   * A token as listed (never the token nor its whole hash).
   *
   * @param id the first 16 hex digits of the token's hash: names the token for revocation
   */
  public record TokenInfo(
      String id,
      String role,
      String description,
      java.time.Instant createdAt,
      java.time.Instant revokedAt) {}

  /** The tenant's tokens, oldest first, revoked ones included. */
  public java.util.List<TokenInfo> tokens(String tenant) throws SQLException {
    java.util.List<TokenInfo> out = new java.util.ArrayList<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT substr(token_hash, 1, 16), role, description, created_at, revoked_at"
                    + " FROM state.api_tokens WHERE tenant = ? ORDER BY created_at, token_hash",
                tenant);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        java.sql.Timestamp revoked = rs.getTimestamp(5);
        out.add(
            new TokenInfo(
                rs.getString(1),
                rs.getString(2),
                rs.getString(3),
                rs.getTimestamp(4).toInstant(),
                revoked == null ? null : revoked.toInstant()));
      }
    }
    return out;
  }

  /**
   * Revokes the tenant's token named by its {@link TokenInfo#id}; idempotent.
   *
   * @return false when the tenant has no token with that id
   */
  public boolean revokeById(String tenant, String id) throws SQLException {
    if (id == null || !id.matches("[0-9a-f]{16}")) {
      return false;
    }
    try (Connection c = dataSource.getConnection()) {
      return Sql.update(
              c,
              "UPDATE state.api_tokens SET revoked_at = coalesce(revoked_at, ?)"
                  + " WHERE tenant = ? AND substr(token_hash, 1, 16) = ?",
              clock.instant(),
              tenant,
              id)
          > 0;
    }
  }

  /** The tenant and role of a token that exists and is not revoked. */
  public Optional<Principal> verify(String token) throws SQLException {
    if (token == null || token.isEmpty()) {
      return Optional.empty();
    }
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT tenant, role FROM state.api_tokens"
                    + " WHERE token_hash = ? AND revoked_at IS NULL",
                TokenHash.sha256(token));
        ResultSet rs = ps.executeQuery()) {
      return rs.next()
          ? Optional.of(
              new Principal(
                  rs.getString(1),
                  rs.getString(2),
                  "api-token:" + TokenHash.sha256(token).substring(0, 12)))
          : Optional.empty();
    }
  }
}
