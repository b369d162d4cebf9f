package dev.stagecraft.planner.service.console;

import dev.stagecraft.schemas.seal.SealedBox;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import dev.stagecraft.schemas.seal.UnsealException;
import dev.stagecraft.servicekit.http.Json;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Console sessions: an API token exchanged for a random session id (the browser's cookie) and a
 * CSRF secret. The store keeps only the id's SHA-256 and the token sealed with the secrets keyring
 * (bound to that hash), so every planner instance behind one address reads the same sessions and a
 * leaked table opens nothing without the keyring. The session answers the API token it acts with;
 * callers verify it again on each request (a revoked token ends its session). Thread-safe when the
 * store is.
 */
public final class ConsoleSessions {
  /** How long a session lasts from sign-in. */
  public static final Duration LIFETIME = Duration.ofHours(8);

  /** A session as stored (never the session id itself). */
  public record Stored(
      String idHash,
      String tenant,
      String role,
      String sealedToken,
      String csrfSecret,
      Instant createdAt,
      Instant expiresAt) {}

  /** Where sessions live; the planner's schema in production ({@link JdbcSessionStore}). */
  public interface Store {
    void save(Stored session);

    Optional<Stored> find(String idHash);

    void delete(String idHash);

    /** Deletes every session whose expiry passed; how many. */
    int deleteExpired(Instant now);
  }

  /** A signed-in session: who, with which token, and the secret its forms carry. */
  public record Session(
      String idHash, String tenant, String role, String token, String csrf, Instant expiresAt) {
    /** Whether {@code presented} is this session's CSRF token (constant time). */
    public boolean csrfMatches(String presented) {
      return presented != null
          && MessageDigest.isEqual(
              csrf.getBytes(StandardCharsets.UTF_8), presented.getBytes(StandardCharsets.UTF_8));
    }
  }

  /** A new session: the id for the cookie (a secret) and the session. */
  public record Started(String id, Session session) {}

  private final Store store;
  private final SecretsKeyring keyring;
  private final Clock clock;
  private final SecureRandom random = new SecureRandom();

  public ConsoleSessions(Store store, SecretsKeyring keyring, Clock clock) {
    this.store = store;
    this.keyring = keyring;
    this.clock = clock;
  }

  /** Whether sessions can be started: the token is only ever stored sealed. */
  public boolean available() {
    return keyring.canSeal();
  }

  /** Starts a session for a verified token of {@code tenant} with {@code role}. */
  public Started start(String tenant, String role, String token) {
    String id = randomText();
    String hash = hash(id);
    Instant now = clock.instant();
    String sealed =
        Json.write(keyring.seal(token.getBytes(StandardCharsets.UTF_8), associatedData(hash)));
    String csrf = randomText();
    Instant expires = now.plus(LIFETIME);
    store.save(new Stored(hash, tenant, role, sealed, csrf, now, expires));
    return new Started(id, new Session(hash, tenant, role, token, csrf, expires));
  }

  /** The live session with this cookie value; empty when unknown, expired or unreadable. */
  public Optional<Session> find(String id) {
    if (id == null || id.isBlank() || id.length() > 100) {
      return Optional.empty();
    }
    String hash = hash(id);
    Optional<Stored> stored = store.find(hash);
    if (stored.isEmpty()) {
      return Optional.empty();
    }
    Stored s = stored.get();
    if (!s.expiresAt().isAfter(clock.instant())) {
      store.delete(hash);
      return Optional.empty();
    }
    try {
      String token =
          new String(
              keyring.open(box(s.sealedToken()), associatedData(hash)), StandardCharsets.UTF_8);
      return Optional.of(
          new Session(hash, s.tenant(), s.role(), token, s.csrfSecret(), s.expiresAt()));
    } catch (UnsealException | RuntimeException e) {
      store.delete(hash); // sealed with a key no longer in the keyring: sign in again
      return Optional.empty();
    }
  }

  /** Ends a session (sign-out, or its token no longer verifies). */
  public void end(Session session) {
    store.delete(session.idHash());
  }

  /** Drops expired sessions; how many. */
  public int sweep() {
    return store.deleteExpired(clock.instant());
  }

  private String randomText() {
    byte[] bytes = new byte[32];
    random.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  static String hash(String id) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(id.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] associatedData(String hash) {
    return ("console-session:" + hash).getBytes(StandardCharsets.UTF_8);
  }

  private static SealedBox box(String text) {
    var node = Json.object(text);
    return new SealedBox(
        node.path("alg").asText(),
        node.path("kid").asText(),
        node.path("nonce").asText(),
        node.path("ciphertext").asText());
  }
}
