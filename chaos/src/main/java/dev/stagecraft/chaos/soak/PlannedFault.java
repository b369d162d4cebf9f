package dev.stagecraft.chaos.soak;

import java.time.Duration;

/**
 * One fault of the schedule: {@code offset} after the workload started, {@code kind} on {@code
 * target} (an instance name such as {@code executor-2}, or {@code postgres}), held for {@code hold}
 * (how long a stopped process stays stopped or a stopped database down; zero for a kill, whose
 * restart follows at once).
 */
public record PlannedFault(Duration offset, FaultKind kind, String target, Duration hold) {

  @Override
  public String toString() {
    return "+"
        + offset.toMillis() / 1000.0
        + "s "
        + kind.logName()
        + " "
        + target
        + (hold.isZero() ? "" : " for " + hold.toMillis() / 1000.0 + "s");
  }
}
