package dev.stagecraft.planner.service.adapter.clients;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Verifies API tokens with the state service (which owns tenants and tokens), caching positive
 * answers for a short time so that every request does not cost a round trip. A revoked token stops
 * working within {@link #TTL}.
 */
public final class TokenVerifier {
  static final Duration TTL = Duration.ofSeconds(15);

  /** Who a token belongs to. */
  public record Principal(String tenant, String role) {}

  private record Cached(Principal principal, Instant until) {}

  private final InternalHttp http;
  private final Clock clock;
  private final Map<String, Cached> cache = new ConcurrentHashMap<>();

  public TokenVerifier(InternalHttp http, Clock clock) {
    this.http = http;
    this.clock = clock;
  }

  public Optional<Principal> verify(String token) {
    if (token == null || token.isBlank()) {
      return Optional.empty();
    }
    Cached cached = cache.get(token);
    if (cached != null && cached.until().isAfter(clock.instant())) {
      return Optional.of(cached.principal());
    }
    InternalHttp.Response r =
        http.post("/internal/v1/auth/verify", Map.of("token", token), Duration.ofSeconds(10));
    if (r.status() != 200) {
      cache.remove(token);
      return Optional.empty();
    }
    JsonNode json = r.json();
    Principal principal = new Principal(json.get("tenant").asText(), json.get("role").asText());
    cache.put(token, new Cached(principal, clock.instant().plus(TTL)));
    return Optional.of(principal);
  }
}
