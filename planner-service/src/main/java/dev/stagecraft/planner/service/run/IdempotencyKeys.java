package dev.stagecraft.planner.service.run;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The durable record of which run each (tenant, idempotency key) of a trigger made ({@link
 * RunCoordinator#start(RunRequest, String, String)}). A key, once recorded, is never forgotten or
 * reassigned. Implementations are thread-safe.
 */
public interface IdempotencyKeys {

  /** The run the key made, if it was recorded (by this instance or, once seen, by another). */
  Optional<String> runFor(String tenant, String idempotencyKey);

  /**
   * Records that the key makes {@code runId}, durably, before the run starts.
   *
   * @return true when this call recorded it; false when the key was recorded already (by another
   *     planner instance a moment ago): the caller must then start nothing
   * @throws RuntimeException when it could not be recorded durably (the caller starts nothing)
   */
  boolean record(String tenant, String idempotencyKey, String runId, String workspace);

  /** Keys kept in this process only: a restart forgets them (tests, and the default). */
  static IdempotencyKeys inMemory() {
    Map<String, String> runs = new ConcurrentHashMap<>();
    return new IdempotencyKeys() {
      @Override
      public Optional<String> runFor(String tenant, String idempotencyKey) {
        return Optional.ofNullable(runs.get(tenant + "/" + idempotencyKey));
      }

      @Override
      public boolean record(String tenant, String idempotencyKey, String runId, String workspace) {
        return runs.putIfAbsent(tenant + "/" + idempotencyKey, runId) == null;
      }
    };
  }
}
