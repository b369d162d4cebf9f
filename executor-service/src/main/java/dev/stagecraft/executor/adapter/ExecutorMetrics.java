package dev.stagecraft.executor.adapter;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.time.Duration;
import java.util.concurrent.Semaphore;

/**
 * The executor's own metrics (docs/operations.md "Metrics"): step durations by provisioner type and
 * outcome, actions by outcome, the wait from dispatch to start and the action slots in use. Tags
 * are bounded sets (provisioner types, outcomes); no tenant, run or host is a tag.
 *
 * <p>Thread-safe: Micrometer's meters are; this class holds no state of its own.
 */
final class ExecutorMetrics {
  /** Records into a registry with no backend (nothing is kept). */
  static final ExecutorMetrics NONE = new ExecutorMetrics(new CompositeMeterRegistry());

  private final MeterRegistry registry;
  private final Timer dispatchToStarted;

  ExecutorMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.dispatchToStarted =
        Timer.builder("stagecraft.action.dispatch.to.started")
            .description("Time from an action's dispatch (envelope time) to its start here")
            .publishPercentileHistogram()
            .register(registry);
  }

  /** Publishes the slots of {@code permits} (of {@code total}) in use as gauges. */
  void slots(Semaphore permits, int total) {
    Gauge.builder("stagecraft.executor.slots.in.use", permits, p -> total - p.availablePermits())
        .description("Actions running or claimed on this executor now")
        .register(registry);
    Gauge.builder("stagecraft.executor.slots", () -> total)
        .description("Actions this executor runs at once at most (STAGECRAFT_EXECUTOR_CONCURRENCY)")
        .register(registry);
  }

  /** One provisioner step ended after {@code duration}. */
  void stepEnded(String provisioner, boolean succeeded, Duration duration) {
    Timer.builder("stagecraft.step.duration")
        .description("Duration of provisioner steps, by provisioner type and outcome")
        .tag("provisioner", provisioner == null ? "unknown" : provisioner)
        .tag("outcome", succeeded ? "succeeded" : "failed")
        .publishPercentileHistogram()
        .register(registry)
        .record(duration);
  }

  /** An action's start was published {@code waited} after its dispatch. */
  void started(Duration waited) {
    if (!waited.isNegative()) {
      dispatchToStarted.record(waited);
    }
  }

  /** An action ended with {@code outcome} (its result's outcome, lower case). */
  void actionEnded(String outcome) {
    Counter.builder("stagecraft.actions.finished")
        .description("Actions this executor finished, by outcome")
        .tag("outcome", outcome)
        .register(registry)
        .increment();
  }

  /** A clock reading for {@link #since}. */
  static long now() {
    return System.nanoTime();
  }

  static Duration since(long start) {
    return Duration.ofNanos(System.nanoTime() - start);
  }
}
