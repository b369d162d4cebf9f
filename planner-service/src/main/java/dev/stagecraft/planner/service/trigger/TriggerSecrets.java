package dev.stagecraft.planner.service.trigger;

import java.time.Instant;
import java.util.List;

/**
 * Each tenant's trigger secrets: the key of the HMAC that authenticates its run triggers (ADR
 * 0013). Stored only encrypted; in clear only in memory and, once, in the answer to {@link
 * #rotate}. Implementations are thread-safe.
 */
public interface TriggerSecrets {

  /**
   * The secrets a trigger of {@code tenant} may be signed with right now: the current one and,
   * during the grace period after a rotation, the previous one. Empty when the tenant has none.
   */
  List<String> verifying(String tenant);

  /**
   * Issues a new secret for {@code tenant}, durably; the previous one stays valid until {@code
   * previousValidUntil}.
   *
   * @throws IllegalStateException when secrets cannot be stored encrypted (no secrets keyring)
   */
  Issued rotate(String tenant);

  /** A newly issued secret, shown once. */
  record Issued(String tenant, String secret, Instant createdAt, Instant previousValidUntil) {}
}
