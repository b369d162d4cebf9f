package dev.stagecraft.planner.service.console;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * {@link ConsoleSessions.Store} in {@code planner.console_sessions} (V1_18): one row per session,
 * keyed by the hash of its id. Each call is one autocommitted statement; thread-safe.
 */
public final class JdbcSessionStore implements ConsoleSessions.Store {
  private final DataSource dataSource;

  public JdbcSessionStore(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  @Override
  public void save(ConsoleSessions.Stored s) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO planner.console_sessions (id_hash, tenant, role, sealed_token,"
                    + " csrf_secret, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
      ps.setString(1, s.idHash());
      ps.setString(2, s.tenant());
      ps.setString(3, s.role());
      ps.setString(4, s.sealedToken());
      ps.setString(5, s.csrfSecret());
      ps.setTimestamp(6, Timestamp.from(s.createdAt()));
      ps.setTimestamp(7, Timestamp.from(s.expiresAt()));
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("console session not saved: " + e.getMessage(), e);
    }
  }

  @Override
  public Optional<ConsoleSessions.Stored> find(String idHash) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT tenant, role, sealed_token, csrf_secret, created_at, expires_at"
                    + " FROM planner.console_sessions WHERE id_hash = ?")) {
      ps.setString(1, idHash);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(
            new ConsoleSessions.Stored(
                idHash,
                rs.getString(1),
                rs.getString(2),
                rs.getString(3),
                rs.getString(4),
                rs.getTimestamp(5).toInstant(),
                rs.getTimestamp(6).toInstant()));
      }
    } catch (SQLException e) {
      throw new IllegalStateException("console sessions unreadable: " + e.getMessage(), e);
    }
  }

  @Override
  public void delete(String idHash) {
    update("DELETE FROM planner.console_sessions WHERE id_hash = ?", idHash);
  }

  @Override
  public int deleteExpired(Instant now) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement("DELETE FROM planner.console_sessions WHERE expires_at <= ?")) {
      ps.setTimestamp(1, Timestamp.from(now));
      return ps.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("console sessions not swept: " + e.getMessage(), e);
    }
  }

  private void update(String sql, String idHash) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, idHash);
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("console session not changed: " + e.getMessage(), e);
    }
  }
}
