package dev.stagecraft.planner.service.run.intake;

import java.time.Instant;
import java.util.Optional;

/**
 * The durable record of which run each public API {@code Idempotency-Key} made, with the keyed
 * digest of the request that made it (planner.run_request_keys). Implementations are thread-safe
 * and throw a {@link RuntimeException} when the record cannot be read or written.
 */
public interface ApiRequestKeys {

  /** A key as recorded. */
  record Recorded(String runId, String requestDigest, Instant recordedAt) {}

  /** The record of {@code storedKey}, whatever its age. */
  Optional<Recorded> find(String tenant, String storedKey);

  /**
   * Records that {@code storedKey} makes {@code runId}, before the run starts: inserted when
   * absent, or replacing a record from before {@code expiredBefore} — atomically, so of two
   * planners recording the same key at once exactly one wins.
   *
   * @return true when this call recorded it; false when a live record exists
   */
  boolean record(
      String tenant,
      String storedKey,
      String runId,
      String workspace,
      String requestDigest,
      Instant expiredBefore);

  /** No record: only usable where no API key is ever submitted (chat-ops alone, tests). */
  ApiRequestKeys NONE =
      new ApiRequestKeys() {
        @Override
        public Optional<Recorded> find(String tenant, String storedKey) {
          return Optional.empty();
        }

        @Override
        public boolean record(
            String tenant,
            String storedKey,
            String runId,
            String workspace,
            String requestDigest,
            Instant expiredBefore) {
          throw new IllegalStateException("no record of API idempotency keys is configured");
        }
      };
}
