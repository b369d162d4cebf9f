package dev.stagecraft.planner.service.adapter.clients;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.servicekit.http.InternalHttp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Verifies API tokens with the state service (which owns tenants and tokens), caching positive
 * answers for a short time so that every request does not cost a round trip. A revoked token stops
 * working within {@link #TTL}.
 *
 * <p>An answer is used as is for {@link #REFRESH_AFTER}; for the rest of its {@link #TTL} a request
 * still gets it at once while one background check (per token) asks the state service again, so a
 * token in steady use never pays the round trip on a request's path. That check renews the answer,
 * or drops it when the token was revoked or its tenant deleted; when the state service cannot be
 * reached the answer simply runs out at its TTL, as before. Thread-safe.
 */
public final class TokenVerifier {
  static final Duration TTL = Duration.ofSeconds(15);
  static final Duration REFRESH_AFTER = Duration.ofSeconds(10);

  private static final Logger log = LoggerFactory.getLogger(TokenVerifier.class);

  /** Who a token belongs to. */
  public record Principal(String tenant, String role) {}

  private record Cached(Principal principal, Instant refreshAfter, Instant until) {}

  private final InternalHttp http;
  private final Clock clock;
  private final Executor refresher;
  private final Map<String, Cached> cache = new ConcurrentHashMap<>();
  private final Map<String, Boolean> refreshing = new ConcurrentHashMap<>();

  /** Background checks on virtual threads. */
  public TokenVerifier(InternalHttp http, Clock clock) {
    this(http, clock, task -> Thread.ofVirtual().name("token-refresh").start(task));
  }

  /**
   * @param refresher runs the background checks of answers in their refresh window
   */
  public TokenVerifier(InternalHttp http, Clock clock, Executor refresher) {
    this.http = http;
    this.clock = clock;
    this.refresher = refresher;
  }

  public Optional<Principal> verify(String token) {
    if (token == null || token.isBlank()) {
      return Optional.empty();
    }
    Cached cached = cache.get(token);
    Instant now = clock.instant();
    if (cached != null && cached.until().isAfter(now)) {
      if (!cached.refreshAfter().isAfter(now) && refreshing.putIfAbsent(token, true) == null) {
        refresher.execute(() -> refresh(token));
      }
      return Optional.of(cached.principal());
    }
    return ask(token);
  }

  private void refresh(String token) {
    try {
      InternalHttp.Response r = post(token);
      if (r.status() == 200) {
        remember(token, r);
      } else if (r.status() < 500) {
        cache.remove(token); // revoked, or its tenant deleted
      } // else the state service is failing: the answer runs out at its TTL
    } catch (RuntimeException e) {
      // the cached answer runs out at its TTL; the next request after that asks on its own path
      log.debug("token check in the background failed: {}", e.toString());
    } finally {
      refreshing.remove(token);
    }
  }

  private Optional<Principal> ask(String token) {
    InternalHttp.Response r = post(token);
    if (r.status() != 200) {
      cache.remove(token);
      return Optional.empty();
    }
    return Optional.of(remember(token, r));
  }

  private InternalHttp.Response post(String token) {
    return http.post("/internal/v1/auth/verify", Map.of("token", token), Duration.ofSeconds(10));
  }

  private Principal remember(String token, InternalHttp.Response r) {
    JsonNode json = r.json();
    Principal principal = new Principal(json.get("tenant").asText(), json.get("role").asText());
    Instant now = clock.instant();
    cache.put(token, new Cached(principal, now.plus(REFRESH_AFTER), now.plus(TTL)));
    return principal;
  }
}
