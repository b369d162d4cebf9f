package dev.stagecraft.chaos.soak;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * The fault schedule of a soak, drawn from its seed alone ({@code java.util.Random(seed)}): the
 * same seed, window, gap, kinds and targets give the same schedule, fault for fault. Faults come
 * one at a time (the injector waits for one to be over before the next), so never are all planners
 * or all executors down together.
 */
public final class FaultPlan {
  /** Instances a kill may hit: every service process of the soak's stack. */
  public static final List<String> KILL_TARGETS =
      List.of(
          "planner-1", "planner-2", "executor-1", "executor-2", "executor-3", "state-1", "lock-1");

  /** Instances a stop may hit: those that hold leases (planner instance, executor action). */
  public static final List<String> STOP_TARGETS =
      List.of("planner-1", "planner-2", "executor-1", "executor-2", "executor-3");

  /** What a sever or a black hole hits: all the SSH proxies, or all the HTTP proxies. */
  public static final List<String> NET_TARGETS = List.of("ssh", "http");

  private FaultPlan() {}

  /**
   * Draws the schedule: the first fault after a first gap, each next one a gap later (uniform in
   * [gap/2, 3·gap/2]); none starts after {@code window}. A stop is held for {@code stopHold} plus
   * up to 4 s; a PostgreSQL restart keeps the database down 1 to 4 s, a Kafka restart the broker 2
   * to 6 s; a sever or a black hole hits the connections open at that instant through the {@code
   * ssh} or the {@code http} proxies. A kind's draws take from the one {@code Random} only when
   * that kind is drawn, so adding a kind to the enum leaves the schedule of the other kinds' sets
   * as it was.
   *
   * @param kinds the kinds to draw from (each equally likely); empty gives no faults
   */
  public static List<PlannedFault> draw(
      long seed, Duration window, Duration gap, Set<FaultKind> kinds, Duration stopHold) {
    List<FaultKind> ordered = kinds.stream().sorted().toList();
    List<PlannedFault> plan = new ArrayList<>();
    if (ordered.isEmpty() || gap.isZero() || gap.isNegative()) {
      return plan;
    }
    Random random = new Random(seed);
    long at = 0;
    while (true) {
      at += gap.toMillis() / 2 + (long) (random.nextDouble() * gap.toMillis());
      if (at > window.toMillis()) {
        return plan;
      }
      FaultKind kind = ordered.get(random.nextInt(ordered.size()));
      Duration offset = Duration.ofMillis(at);
      switch (kind) {
        case KILL ->
            plan.add(
                new PlannedFault(
                    offset,
                    kind,
                    KILL_TARGETS.get(random.nextInt(KILL_TARGETS.size())),
                    Duration.ZERO));
        case STOP ->
            plan.add(
                new PlannedFault(
                    offset,
                    kind,
                    STOP_TARGETS.get(random.nextInt(STOP_TARGETS.size())),
                    stopHold.plusMillis(random.nextInt(4000))));
        case POSTGRES_RESTART ->
            plan.add(
                new PlannedFault(
                    offset, kind, "postgres", Duration.ofMillis(1000 + random.nextInt(3000))));
        case KAFKA_RESTART ->
            plan.add(
                new PlannedFault(
                    offset, kind, "kafka", Duration.ofMillis(2000 + random.nextInt(4000))));
        case SEVER, BLACK_HOLE ->
            plan.add(
                new PlannedFault(
                    offset,
                    kind,
                    NET_TARGETS.get(random.nextInt(NET_TARGETS.size())),
                    Duration.ZERO));
      }
    }
  }
}
