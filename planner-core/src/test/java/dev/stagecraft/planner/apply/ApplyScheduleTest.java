package dev.stagecraft.planner.apply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.planner.plan.ActionType;
import dev.stagecraft.planner.plan.Plan;
import dev.stagecraft.planner.plan.PlannedAction;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ApplyScheduleTest {
  static PlannedAction create(String address, String... waitFor) {
    return new PlannedAction(
        address,
        "stateful_provisioning",
        address,
        ActionType.CREATE,
        null,
        null,
        Map.of(),
        Set.of("id"),
        Set.of(),
        List.of(waitFor),
        List.of());
  }

  static Plan plan(PlannedAction... actions) {
    return new Plan("default", 0, null, false, List.of(actions));
  }

  @Test
  void dispatchesADependentOnlyAfterItsDependencySucceeded() {
    ApplySchedule s = new ApplySchedule(plan(create("a"), create("b", "a")), 10);
    assertThat(s.takeReady()).extracting(PlannedAction::address).containsExactly("a");
    assertThat(s.takeReady()).isEmpty();
    s.recordSucceeded("a");
    assertThat(s.takeReady()).extracting(PlannedAction::address).containsExactly("b");
    s.recordSucceeded("b");
    assertThat(s.isFinished()).isTrue();
    assertThat(s.hasFailures()).isFalse();
  }

  @Test
  void runsIndependentActionsTogetherUpToTheParallelism() {
    ApplySchedule s = new ApplySchedule(plan(create("a"), create("b"), create("c")), 2);
    assertThat(s.takeReady()).hasSize(2);
    s.recordSucceeded("a");
    assertThat(s.takeReady()).extracting(PlannedAction::address).containsExactly("c");
  }

  @Test
  void skipsEverythingThatWaitsForAFailedActionButFinishesIndependentOnes() {
    ApplySchedule s =
        new ApplySchedule(plan(create("a"), create("b", "a"), create("c", "b"), create("x")), 10);
    s.takeReady();
    s.recordFailed("a");
    assertThat(s.status("b")).isEqualTo(ApplySchedule.Status.SKIPPED);
    assertThat(s.status("c")).isEqualTo(ApplySchedule.Status.SKIPPED);
    assertThat(s.isFinished()).isFalse();
    s.recordSucceeded("x");
    assertThat(s.isFinished()).isTrue();
    assertThat(s.hasFailures()).isTrue();
  }

  @Test
  void ignoresADuplicateResult() {
    ApplySchedule s = new ApplySchedule(plan(create("a")), 10);
    s.takeReady();
    s.recordSucceeded("a");
    s.recordFailed("a");
    assertThat(s.status("a")).isEqualTo(ApplySchedule.Status.SUCCEEDED);
  }
}
