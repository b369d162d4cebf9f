package dev.stagecraft.chaos.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FaultPlanTest {
  private static final Duration WINDOW = Duration.ofMinutes(30);
  private static final Duration GAP = Duration.ofSeconds(15);
  private static final Duration HOLD = Duration.ofSeconds(10);
  private static final String[] PINNED_SEED_7 = {
    "+24.613s black-hole ssh",
    "+41.579s black-hole http",
    "+65.742s sever http",
    "+78.156s black-hole http",
    "+89.82s black-hole ssh",
    "+112.652s black-hole http",
    "+134.431s sever http",
    "+149.519s sever http",
    "+174.932s sever http"
  };

  @Test
  void theSameSeedDrawsTheSameScheduleAndAnotherSeedAnotherOne() {
    Set<FaultKind> all = EnumSet.allOf(FaultKind.class);
    List<PlannedFault> a = FaultPlan.draw(42, WINDOW, GAP, all, HOLD);
    assertThat(FaultPlan.draw(42, WINDOW, GAP, all, HOLD)).isEqualTo(a);
    assertThat(FaultPlan.draw(43, WINDOW, GAP, all, HOLD)).isNotEqualTo(a);
  }

  @Test
  void faultsStayInTheWindowOneGapApartAndCoverEveryKindAndTarget() {
    List<PlannedFault> plan = FaultPlan.draw(7, WINDOW, GAP, EnumSet.allOf(FaultKind.class), HOLD);
    // 30 min at a mean gap of 15 s: about 120 faults
    assertThat(plan).hasSizeBetween(100, 140);
    for (int i = 0; i < plan.size(); i++) {
      PlannedFault f = plan.get(i);
      assertThat(f.offset()).isLessThanOrEqualTo(WINDOW);
      Duration previous = i == 0 ? Duration.ZERO : plan.get(i - 1).offset();
      assertThat(f.offset().minus(previous))
          .isBetween(GAP.dividedBy(2), GAP.multipliedBy(3).dividedBy(2));
      switch (f.kind()) {
        case KILL -> {
          assertThat(FaultPlan.KILL_TARGETS).contains(f.target());
          assertThat(f.hold()).isZero();
        }
        case STOP -> {
          assertThat(FaultPlan.STOP_TARGETS).contains(f.target());
          assertThat(f.hold()).as("longer than the leases").isGreaterThanOrEqualTo(HOLD);
        }
        case POSTGRES_RESTART -> assertThat(f.target()).isEqualTo("postgres");
        case SEVER, BLACK_HOLE -> {
          assertThat(FaultPlan.NET_TARGETS).contains(f.target());
          assertThat(f.hold()).as("instantaneous: the connections open now").isZero();
        }
      }
    }
    assertThat(plan).extracting(PlannedFault::kind).containsAll(EnumSet.allOf(FaultKind.class));
    assertThat(plan.stream().filter(f -> f.kind() == FaultKind.KILL).map(PlannedFault::target))
        .containsAll(FaultPlan.KILL_TARGETS);
    for (FaultKind net : List.of(FaultKind.SEVER, FaultKind.BLACK_HOLE)) {
      assertThat(plan.stream().filter(f -> f.kind() == net).map(PlannedFault::target))
          .as(net + " hits both the SSH and the HTTP proxies")
          .containsAll(FaultPlan.NET_TARGETS);
    }
  }

  @Test
  void seversAndBlackHolesAreDrawnFromTheSeedAlone() {
    Set<FaultKind> net = EnumSet.of(FaultKind.SEVER, FaultKind.BLACK_HOLE);
    List<PlannedFault> plan =
        FaultPlan.draw(7, Duration.ofMinutes(3), Duration.ofSeconds(20), net, HOLD);
    // pinned: dev/chaos --minutes 3 --faults sever,black-hole --fault-gap 20 --seed 7
    assertThat(plan).extracting(PlannedFault::toString).containsExactly(PINNED_SEED_7);
    assertThat(FaultPlan.draw(7, Duration.ofMinutes(3), Duration.ofSeconds(20), net, HOLD))
        .isEqualTo(plan);
  }

  @Test
  void onlyTheChosenKindsAreDrawnAndNoKindsMeansNoFaults() {
    assertThat(FaultPlan.draw(7, WINDOW, GAP, EnumSet.of(FaultKind.STOP), HOLD))
        .isNotEmpty()
        .allSatisfy(f -> assertThat(f.kind()).isEqualTo(FaultKind.STOP));
    assertThat(FaultPlan.draw(7, WINDOW, GAP, EnumSet.noneOf(FaultKind.class), HOLD)).isEmpty();
  }
}
