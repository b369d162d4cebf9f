package dev.stagecraft.chaos.history;

import java.time.Instant;
import java.util.Objects;

/**
 * A run entered {@code status} at {@code at} (the planner's run transitions).
 *
 * @param runId the run
 * @param status the status it entered ({@code queued}, {@code planning}, {@code applied}, ...)
 * @param at when
 */
public record RunTransition(String runId, String status, Instant at) {
  public RunTransition {
    Objects.requireNonNull(runId, "runId");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(at, "at");
  }
}
