package dev.stagecraft.state.application;

import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.state.history.Decision;
import dev.stagecraft.state.history.StateDecider;
import dev.stagecraft.state.history.WorkspaceState;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * Use case: record an executor's action result (ADR 0021, 0027, 0052). Folds (the remembered fold,
 * else a read), asks {@link StateDecider#decide}, records a result the {@link ResultLog} refuses
 * (the run's credential) as {@code rejected}, and appends in one round trip. The log answers with a
 * type: a redelivery gets the first {@code state.recorded}; a stale token is decided again as
 * {@code rejected} knowing the newest token; a lost race (another writer appended) folds and
 * decides again — so sequences never have gaps or duplicates, whatever runs concurrently.
 *
 * <p>Idempotent by the envelope id and by (run id, action id): a second delivery appends nothing
 * and answers with the very same {@code state.recorded} as the first. Thread-safe (no state of its
 * own); concurrent calls for one workspace, from any instance, serialize in the database.
 */
public final class ActionResults {
  /**
   * How often a recording folds and decides again after losing a race before it gives up
   * (transient).
   */
  public static final int MAX_APPEND_ATTEMPTS = 1000;

  /** The envelope to publish, and whether it was recorded before (a redelivery). */
  public record Recorded(EventEnvelope envelope, boolean duplicate) {}

  private final ResultLog log;
  private final StateDecider decider;

  public ActionResults(ResultLog log, StateDecider decider) {
    this.log = log;
    this.decider = decider;
  }

  /**
   * Records {@code finished}, delivered in {@code source}.
   *
   * @throws SQLException a database failure (transient or not: see the Kafka listener), or, as
   *     SQLSTATE 40001 (transient), after {@value #MAX_APPEND_ATTEMPTS} lost races in a row
   */
  public Recorded record(EventEnvelope source, ActionFinished finished) throws SQLException {
    try (ResultLog.Recording recording = log.open(source.tenant(), source.workspace())) {
      // the newest fencing token is not read up front: the append refuses a stale token with the
      // newest, and the result is then decided again as rejected for that reason
      long newest = Long.MIN_VALUE;
      for (int attempt = 1; ; attempt++) {
        Decision decision = decide(recording, finished, newest);
        switch (recording.append(source, finished, decision, newest != Long.MIN_VALUE)) {
          case ResultLog.Answer.Appended appended -> {
            return new Recorded(appended.envelope(), false);
          }
          case ResultLog.Answer.Duplicate duplicate -> {
            return new Recorded(duplicate.previous(), true);
          }
          case ResultLog.Answer.Stale stale -> newest = stale.newest();
          case ResultLog.Answer.Moved moved -> recording.forget(); // fold again, decide again
        }
        if (attempt >= MAX_APPEND_ATTEMPTS) {
          throw new SQLException(
              "recording "
                  + source.id()
                  + " lost the race for workspace "
                  + source.tenant()
                  + "/"
                  + source.workspace()
                  + " "
                  + attempt
                  + " times in a row; retry later",
              "40001");
        }
      }
    }
  }

  /** The decision on the recording's fold; a result rejected anyway keeps that reason. */
  private Decision decide(ResultLog.Recording recording, ActionFinished finished, long newest)
      throws SQLException {
    WorkspaceState state = recording.state();
    Decision decision = decider.decide(finished, state, newest);
    if (decision.outcome() == Decision.Outcome.REJECTED) {
      return decision;
    }
    Optional<String> refusal = recording.refusal(finished);
    return refusal.isEmpty()
        ? decision
        : new Decision(List.of(), Decision.Outcome.REJECTED, refusal.get(), state.serial());
  }
}
