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

  static PlannedAction web(int index) {
    return new PlannedAction(
        "stateful_provisioning.web[" + index + "]",
        "stateful_provisioning",
        "web",
        ActionType.CREATE,
        null,
        null,
        Map.of(),
        Set.of("id"),
        Set.of(),
        List.of(),
        List.of());
  }

  static PlannedAction lb() {
    return new PlannedAction(
        "stateful_provisioning.lb",
        "stateful_provisioning",
        "lb",
        ActionType.CREATE,
        null,
        null,
        Map.of(),
        Set.of("id"),
        Set.of(),
        List.of("stateful_provisioning.web"),
        List.of());
  }

  @Test
  void aWaitForARepeatedResourceWaitsForAllOfItsChangedInstances() {
    ApplySchedule s = new ApplySchedule(plan(web(0), web(1), lb()), 10);
    assertThat(s.takeReady())
        .extracting(PlannedAction::address)
        .containsExactly("stateful_provisioning.web[0]", "stateful_provisioning.web[1]");
    s.recordSucceeded("stateful_provisioning.web[0]");
    assertThat(s.takeReady()).isEmpty();
    s.recordSucceeded("stateful_provisioning.web[1]");
    assertThat(s.takeReady())
        .extracting(PlannedAction::address)
        .containsExactly("stateful_provisioning.lb");
  }

  @Test
  void aFailedInstanceSkipsWhatWaitsForItsResource() {
    ApplySchedule s = new ApplySchedule(plan(web(0), web(1), lb()), 10);
    s.takeReady();
    s.recordFailed("stateful_provisioning.web[1]");
    assertThat(s.status("stateful_provisioning.lb")).isEqualTo(ApplySchedule.Status.SKIPPED);
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
