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

  /** Where the run of a key found recorded stands ({@link #claimUnrecorded}). */
  enum Claim {
    /** The run has a record: it is driven, or was, somewhere. The start is a duplicate. */
    RECORDED,
    /**
     * The run has no record and the planner incarnation that recorded the key is dead (it halted
     * between the key and the run's first record): the key is now this instance's, and the caller
     * starts the run.
     */
    TAKEN_OVER,
    /**
     * The run has no record and the incarnation that recorded the key lives: its first record is on
     * its way. Ask again later.
     */
    NOT_YET
  }

  /**
   * For a key found recorded whose run this instance does not drive: whether its run was recorded
   * and, when it was not and the recorder is dead, takes the key over for this instance —
   * atomically, so of two instances asking at once at most one gets {@link Claim#TAKEN_OVER}. By
   * default {@link Claim#RECORDED} (one process: a run it does not hold was recorded and ended).
   */
  default Claim claimUnrecorded(String tenant, String idempotencyKey) {
    return Claim.RECORDED;
  }

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
