package dev.stagecraft.planner.service.run.lifecycle;

import java.time.Instant;

/**
 * An action a run dispatched before its planner instance restarted, as read from {@code
 * stagecraft.actions} (docs/adr/0035).
 *
 * @param taken an executor had taken the dispatch before the restart (docs/adr/0056)
 * @param skipDestroy a {@code replace} that forgets the old object ({@code lifecycle { destroy =
 *     false }}): it counts as added only
 */
public record CarriedAction(
    String actionId,
    String address,
    String action,
    Instant dispatchedAt,
    boolean taken,
    boolean skipDestroy) {

  /** An action that destroys what it replaces. */
  public CarriedAction(
      String actionId, String address, String action, Instant dispatchedAt, boolean taken) {
    this(actionId, address, action, dispatchedAt, taken, false);
  }
}
