package dev.stagecraft.planner.service.adapter;

import dev.stagecraft.planner.service.run.Run;
import dev.stagecraft.planner.service.run.RunStatus;
import dev.stagecraft.planner.service.run.journal.RunObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * The planner's run metrics (docs/operations.md "Metrics"), taken from the lifecycle transitions
 * the coordinator reports, then handed on to the {@link RunObserver} that records the runs: runs
 * started and ended by status, runs active, queued and awaiting approval on this instance, the time
 * from a run's trigger to its apply (its first dispatch) and a run's whole duration. Tags are
 * bounded sets (statuses); no workspace or run id is a tag. A tenant is one only when the operator
 * names it ({@code STAGECRAFT_METRICS_TENANTS}, ADR 0080): then the started and ended counters and
 * the run duration carry {@code tenant}, the tenant's name for those listed and {@code other} for
 * the rest, so their number of series stays what the operator chose.
 *
 * <p>A run resumed after a restart of its planner starts (PENDING) again on the instance that
 * resumes it and counts as started there once more.
 *
 * <p>Concurrency: called on each run's recording lane (one call at a time per run, calls of
 * different runs at once); the live runs are kept in a concurrent map, meters are thread-safe.
 */
final class RunMetrics implements RunObserver {
  /** Statuses that hold a run before planning: waiting for admission or for the lock. */
  private static final Set<RunStatus> QUEUED = EnumSet.of(RunStatus.PENDING, RunStatus.QUEUED);

  private final RunObserver next;
  private final MeterRegistry meters;
  private final Map<String, RunStatus> live = new ConcurrentHashMap<>();
  private final Set<String> applied = ConcurrentHashMap.newKeySet();
  private final Set<String> taggedTenants;
  private final Timer triggerToApply;

  /**
   * @param taggedTenants the tenants named in a {@code tenant} tag; empty for no tenant tag at all
   */
  RunMetrics(MeterRegistry meters, Set<String> taggedTenants, RunObserver next) {
    this.next = next;
    this.meters = meters;
    this.taggedTenants = Set.copyOf(taggedTenants);
    this.triggerToApply =
        Timer.builder("stagecraft.run.trigger.to.apply")
            .description("Time from a run's trigger to its apply (the first action dispatch)")
            .publishPercentileHistogram()
            .register(meters);
    gauge("stagecraft.runs.active", "Runs not ended on this planner", s -> true);
    gauge("stagecraft.runs.queued", "Runs waiting for admission or the lock", QUEUED::contains);
    gauge(
        "stagecraft.runs.awaiting.approval",
        "Runs planned and waiting for approval",
        s -> s == RunStatus.PLANNED);
  }

  private void gauge(String name, String description, Predicate<RunStatus> p) {
    Gauge.builder(name, live, m -> m.values().stream().filter(p).count())
        .description(description)
        .register(meters);
  }

  @Override
  public void transitioned(Run run, long sequence, RunStatus status, String message, Instant at) {
    try {
      count(run, status, at);
    } finally {
      next.transitioned(run, sequence, status, message, at);
    }
  }

  private void count(Run run, RunStatus status, Instant at) {
    String id = run.id();
    Instant created = run.summary().createdAt();
    Tags tenant = tenantTag(run.request().tenant());
    if (status.isTerminal()) {
      live.remove(id);
      applied.remove(id);
      Counter.builder("stagecraft.runs.ended")
          .description("Runs ended on this planner, by final status")
          .tag("status", status.wireName())
          .tags(tenant)
          .register(meters)
          .increment();
      if (created != null) {
        Timer.builder("stagecraft.run.duration")
            .description("A run's whole duration, trigger to end, by final status")
            .tag("status", status.wireName())
            .tags(tenant)
            .publishPercentileHistogram()
            .register(meters)
            .record(nonNegative(Duration.between(created, at)));
      }
      return;
    }
    RunStatus before = live.put(id, status);
    if (status == RunStatus.PENDING && before == null) {
      Counter.builder("stagecraft.runs.started")
          .description("Runs started (or resumed) on this planner")
          .tags(tenant)
          .register(meters)
          .increment();
    }
    if (status == RunStatus.APPLYING && created != null && applied.add(id)) {
      triggerToApply.record(nonNegative(Duration.between(created, at)));
    }
  }

  private Tags tenantTag(String tenant) {
    if (taggedTenants.isEmpty()) {
      return Tags.empty();
    }
    return Tags.of("tenant", taggedTenants.contains(tenant) ? tenant : "other");
  }

  private static Duration nonNegative(Duration d) {
    return d.isNegative() ? Duration.ZERO : d;
  }
}
