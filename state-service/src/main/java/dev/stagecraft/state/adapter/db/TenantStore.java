package dev.stagecraft.state.adapter.db;

import dev.stagecraft.platform.auth.TokenHash;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.util.Optional;
import javax.sql.DataSource;

/** Tenants and API tokens. Tokens are stored only as SHA-256 hashes. */
@Singleton
public final class TenantStore {
  /** Who a valid API token belongs to. */
  public record Principal(String tenant, String role) {}

  private final DataSource dataSource;
  private final Clock clock;

  public TenantStore(DataSource dataSource, Clock clock) {
    this.dataSource = dataSource;
    this.clock = clock;
  }

  /** Creates the tenant unless it exists (idempotent). */
  public void ensureTenant(String tenant) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO state.tenants (tenant, created_at) VALUES (?, ?)"
                    + " ON CONFLICT (tenant) DO NOTHING")) {
      ps.setString(1, tenant);
      ps.setTimestamp(2, Timestamp.from(clock.instant()));
      ps.executeUpdate();
    }
  }

  public boolean exists(String tenant) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT 1 FROM state.tenants WHERE tenant = ?")) {
      ps.setString(1, tenant);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  /** Creates a token and returns it in clear (the only time it is visible). */
  public String createToken(String tenant, String role, String description) throws SQLException {
    String token = TokenHash.newToken();
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO state.api_tokens (token_hash, tenant, role, description, created_at)"
                    + " VALUES (?, ?, ?, ?, ?)")) {
      ps.setString(1, TokenHash.sha256(token));
      ps.setString(2, tenant);
      ps.setString(3, role);
      ps.setString(4, description);
      ps.setTimestamp(5, Timestamp.from(clock.instant()));
      ps.executeUpdate();
    }
    return token;
  }

  /** The tenant and role of a token that exists and is not revoked. */
  public Optional<Principal> verify(String token) throws SQLException {
    if (token == null || token.isEmpty()) {
      return Optional.empty();
    }
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT tenant, role FROM state.api_tokens"
                    + " WHERE token_hash = ? AND revoked_at IS NULL")) {
      ps.setString(1, TokenHash.sha256(token));
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next()
            ? Optional.of(new Principal(rs.getString(1), rs.getString(2)))
            : Optional.empty();
      }
    }
  }
}
