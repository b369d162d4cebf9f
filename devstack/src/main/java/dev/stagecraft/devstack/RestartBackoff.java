package dev.stagecraft.devstack;

import java.time.Duration;

/**
 * When to start a service again after it exited without being asked to stop (as compose's {@code
 * restart: unless-stopped}): 1 s after the first exit, then twice as long after each further exit,
 * at most 30 s; a process that stayed up {@link #STABLE} or longer starts the count again. Plain
 * logic: the caller says how long the process that exited had been up.
 *
 * <p>Concurrency: not thread-safe; one per service, used under its supervisor's lock.
 */
final class RestartBackoff {
  static final Duration FIRST = Duration.ofSeconds(1);
  static final Duration MAX = Duration.ofSeconds(30);
  static final Duration STABLE = Duration.ofSeconds(30);

  private final Duration first;
  private final Duration max;
  private final Duration stable;
  private int attempt;

  RestartBackoff() {
    this(FIRST, MAX, STABLE);
  }

  RestartBackoff(Duration first, Duration max, Duration stable) {
    if (first.isNegative() || first.isZero() || max.compareTo(first) < 0) {
      throw new IllegalArgumentException("need 0 < first <= max, got " + first + ", " + max);
    }
    this.first = first;
    this.max = max;
    this.stable = stable;
  }

  /** The restart to come: its number since the service last ran stably, and the wait before it. */
  record Restart(int attempt, Duration delay) {}

  /**
   * The next restart after a process exited.
   *
   * @param uptime how long the process that exited had been running
   */
  Restart next(Duration uptime) {
    if (uptime.compareTo(stable) >= 0) {
      attempt = 0;
    }
    attempt++;
    Duration delay = first;
    for (int i = 1; i < attempt && delay.compareTo(max) < 0; i++) {
      delay = delay.multipliedBy(2);
    }
    return new Restart(attempt, delay.compareTo(max) > 0 ? max : delay);
  }
}
