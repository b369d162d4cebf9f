package dev.stagecraft.chaos.invariant;

import dev.stagecraft.chaos.history.History;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Checks a history against every invariant; the violations come in {@link Violation#ORDER}. */
public final class ChaosChecker {

  private final List<Invariant> invariants;

  public ChaosChecker(List<Invariant> invariants) {
    this.invariants = List.copyOf(invariants);
  }

  /**
   * Every invariant of design §9, with runs allowed {@code endBound} after the last fault (or after
   * they were queued, if later) to reach an end state.
   */
  public static ChaosChecker all(Duration endBound) {
    return new ChaosChecker(
        List.of(
            new RunsEnd(endBound),
            new StepsAtMostOnce(),
            new StateHistories(),
            new OneLockHolder(),
            new NoLostEvents(),
            new FifoQueues(),
            new TenantIsolation()));
  }

  public List<Invariant> invariants() {
    return invariants;
  }

  public List<Violation> check(History history) {
    List<Violation> all = new ArrayList<>();
    for (Invariant invariant : invariants) {
      all.addAll(invariant.check(history));
    }
    all.sort(Violation.ORDER);
    return List.copyOf(all);
  }
}
