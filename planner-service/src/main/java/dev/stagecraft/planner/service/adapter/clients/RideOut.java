package dev.stagecraft.planner.service.adapter.clients;

import dev.stagecraft.servicekit.http.InternalHttp;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * Sends an idempotent internal request again while its service restarts: while it cannot be reached
 * at all, and while it answers 503 (its database restarts; docs/internal-api.md,
 * "database-unavailable"), after a pause that doubles up to 2 s, for at most a budget. A run's
 * request to lock-service or state-service so rides out a restart of either or of PostgreSQL
 * instead of failing the run. Only requests that mean the same when sent twice may be repeated.
 */
final class RideOut {
  /** How long a request is repeated by default before it fails. */
  static final Duration BUDGET = Duration.ofSeconds(60);

  private static final Duration MAX_PAUSE = Duration.ofSeconds(2);

  private final Duration budget;
  private final Duration firstPause;

  /**
   * @param budget how long a request is repeated (zero: not at all)
   * @param firstPause the pause before the first repetition (doubled each time, up to 2 s)
   */
  RideOut(Duration budget, Duration firstPause) {
    this.budget = budget;
    this.firstPause = firstPause;
  }

  /** The default: 60 s, a first pause of 250 ms. */
  static RideOut byDefault() {
    return new RideOut(BUDGET, Duration.ofMillis(250));
  }

  /**
   * Sends {@code request} again while the service cannot be reached or answers 503, as long as the
   * budget lasts; then returns the last answer or throws the last {@link InternalHttp.Unreachable}.
   */
  InternalHttp.Response repeat(Supplier<InternalHttp.Response> request) {
    long giveUp = System.nanoTime() + budget.toNanos();
    Duration pause = firstPause;
    while (true) {
      InternalHttp.Response r = null;
      InternalHttp.Unreachable unreachable = null;
      try {
        r = request.get();
      } catch (InternalHttp.Unreachable e) {
        unreachable = e;
      }
      boolean again = unreachable != null || r.status() == 503;
      if (!again || System.nanoTime() + pause.toNanos() > giveUp) {
        if (unreachable != null) {
          throw unreachable;
        }
        return r;
      }
      try {
        Thread.sleep(pause); // backing off while the service or its database restarts
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        if (unreachable != null) {
          throw unreachable;
        }
        return r;
      }
      pause = pause.multipliedBy(2).compareTo(MAX_PAUSE) > 0 ? MAX_PAUSE : pause.multipliedBy(2);
    }
  }
}
