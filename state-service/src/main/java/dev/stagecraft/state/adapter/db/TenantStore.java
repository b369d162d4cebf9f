package dev.stagecraft.state.adapter.db;

import dev.stagecraft.platform.auth.TokenHash;
import dev.stagecraft.servicekit.db.Sql;
import dev.stagecraft.state.adapter.LruMaps;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import javax.sql.DataSource;

/**
 * Tenants and API tokens. Tokens are stored only as SHA-256 hashes.
 *
 * <p>{@link #verify} asks the database every time. {@link #verifyCached} (the state service's own
 * {@code /tf/**} and {@code /api/**} requests) remembers a positive answer for {@link #TOKEN_TTL}
 * (ADR 0036), as the planner's {@code TokenVerifier} does: an answer is used as it is for {@link
 * #TOKEN_REFRESH_AFTER}; for the rest of its TTL a request still gets it at once while one
 * background check per token asks the database again, renewing or dropping it. A revocation through
 * this instance ({@link #revoke}, {@link #revokeById}) drops the answer at once, and an answer read
 * before a revocation committed is never remembered after it; a revocation through another instance
 * of the service takes effect here within the TTL. Unknown and revoked tokens are not remembered (a
 * new token works at once). At most {@link #TOKEN_CACHE_SIZE} tokens are remembered (the least
 * recently used is dropped). Thread-safe.
 */
@Singleton
public final class TenantStore {
  /** How long a verified API token is believed without asking the database (ADR 0036). */
  public static final Duration TOKEN_TTL = Duration.ofSeconds(15);

  /** After this, a request still uses the answer, and a background check renews it. */
  public static final Duration TOKEN_REFRESH_AFTER = Duration.ofSeconds(10);

  /** The most tokens remembered at once. */
  static final int TOKEN_CACHE_SIZE = 4096;

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

  /** A remembered answer, keyed by the token's SHA-256 (never the token). */
  private record Verified(Principal principal, Instant refreshAfter, Instant until) {}

  private final DataSource dataSource;
  private final Clock clock;
  private final Executor refresher;

  /** Compound updates synchronize on it (with {@link #revocations}); bounded by Caffeine. */
  private final Map<String, Verified> verified = LruMaps.bounded(TOKEN_CACHE_SIZE);

  /** Hashes of the tokens with a background check under way. */
  private final Set<String> refreshing = ConcurrentHashMap.newKeySet();

  /**
   * Counts revocations through this instance (guarded by {@link #verified}): an answer read before
   * one is not remembered after it.
   */
  private long revocations;

  /** Background checks on virtual threads. */
  @Inject
  public TenantStore(DataSource dataSource, Clock clock) {
    this(dataSource, clock, task -> Thread.ofVirtual().name("token-refresh").start(task));
  }

  /**
   * @param refresher runs the background checks of remembered answers in their refresh window
   */
  TenantStore(DataSource dataSource, Clock clock, Executor refresher) {
    this.dataSource = dataSource;
    this.clock = clock;
    this.refresher = refresher;
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
      forget(TokenHash.sha256(token), null);
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
  public List<String> tenants() throws SQLException {
    List<String> out = new ArrayList<>();
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
      String id, String role, String description, Instant createdAt, Instant revokedAt) {}

  /** The tenant's tokens, oldest first, revoked ones included. */
  public List<TokenInfo> tokens(String tenant) throws SQLException {
    List<TokenInfo> out = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT substr(token_hash, 1, 16), role, description, created_at, revoked_at"
                    + " FROM state.api_tokens WHERE tenant = ? ORDER BY created_at, token_hash",
                tenant);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        Timestamp revoked = rs.getTimestamp(5);
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
      boolean found =
          Sql.update(
                  c,
                  "UPDATE state.api_tokens SET revoked_at = coalesce(revoked_at, ?)"
                      + " WHERE tenant = ? AND substr(token_hash, 1, 16) = ?",
                  clock.instant(),
                  tenant,
                  id)
              > 0;
      forget(id, tenant);
      return found;
    }
  }

  /**
   * Drops the remembered answers of the tokens whose hash starts with {@code hashPrefix} (of {@code
   * tenant}, when not null), after their revocation committed; answers being read now are not
   * remembered.
   */
  private void forget(String hashPrefix, String tenant) {
    synchronized (verified) {
      revocations++;
      verified
          .entrySet()
          .removeIf(
              e ->
                  e.getKey().startsWith(hashPrefix)
                      && (tenant == null || tenant.equals(e.getValue().principal().tenant())));
    }
  }

  /** The tenant and role of a token that exists and is not revoked, asking the database. */
  public Optional<Principal> verify(String token) throws SQLException {
    if (token == null || token.isEmpty()) {
      return Optional.empty();
    }
    return lookUp(TokenHash.sha256(token));
  }

  /**
   * As {@link #verify}, but a token verified in the last {@link #TOKEN_TTL} is answered from memory
   * (see the class comment: revoked through this instance, refused at once; through another, within
   * the TTL). For this service's own requests; the planner's check ({@code
   * /internal/v1/auth/verify}) uses {@link #verify}, as it caches the answer itself.
   */
  public Optional<Principal> verifyCached(String token) throws SQLException {
    if (token == null || token.isEmpty()) {
      return Optional.empty();
    }
    String hash = TokenHash.sha256(token);
    Instant now = clock.instant();
    Verified known;
    long before;
    synchronized (verified) {
      known = verified.get(hash);
      before = revocations;
    }
    if (known != null && known.until().isAfter(now)) {
      if (!known.refreshAfter().isAfter(now) && refreshing.add(hash)) {
        try {
          refresher.execute(() -> refresh(hash));
        } catch (RuntimeException e) {
          refreshing.remove(hash); // the answer runs out at its TTL
        }
      }
      return Optional.of(known.principal());
    }
    Optional<Principal> principal = lookUp(hash);
    remember(hash, principal, before);
    return principal;
  }

  /** The background check of a remembered answer: renews it, or drops it when refused. */
  private void refresh(String hash) {
    try {
      long before;
      synchronized (verified) {
        before = revocations;
      }
      remember(hash, lookUp(hash), before);
    } catch (SQLException | RuntimeException e) {
      // the answer runs out at its TTL; the next request after that asks on its own path
    } finally {
      refreshing.remove(hash);
    }
  }

  /**
   * Remembers a positive answer read after {@code before} revocations (unless one came since), or
   * forgets the token when the answer is negative.
   */
  private void remember(String hash, Optional<Principal> principal, long before) {
    Instant now = clock.instant();
    synchronized (verified) {
      if (principal.isEmpty()) {
        verified.remove(hash);
      } else if (revocations == before) {
        verified.put(
            hash,
            new Verified(principal.get(), now.plus(TOKEN_REFRESH_AFTER), now.plus(TOKEN_TTL)));
      }
    }
  }

  private Optional<Principal> lookUp(String hash) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT tenant, role FROM state.api_tokens"
                    + " WHERE token_hash = ? AND revoked_at IS NULL",
                hash);
        ResultSet rs = ps.executeQuery()) {
      return rs.next()
          ? Optional.of(
              new Principal(rs.getString(1), rs.getString(2), "api-token:" + hash.substring(0, 12)))
          : Optional.empty();
    }
  }
}
