package dev.stagecraft.planner.apply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.planner.plan.ActionType;
import dev.stagecraft.planner.plan.Plan;
import dev.stagecraft.planner.plan.PlannedAction;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Which steps of a plan may start when (dependencies, repeated resources, parallelism, failures).
 */
class ApplyStepsTest {
  /** A schedule and the addresses it dispatched last. */
  static final class Schedule {
    ApplySteps steps;

    Schedule(Plan plan, int parallelism) {
      steps = ApplySteps.of(plan, parallelism);
    }

    /** Dispatches every ready step, as a run does; returns their addresses. */
    List<String> takeReady() {
      List<String> ready = steps.ready().stream().map(PlannedStep::address).toList();
      ready.forEach(a -> steps = steps.dispatched(a));
      return ready;
    }

    void recordSucceeded(String address) {
      steps = steps.succeeded(address);
    }

    void recordFailed(String address) {
      steps = steps.failed(address);
    }

    ApplySteps.Status status(String address) {
      return steps.status(address);
    }
  }

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
    Schedule s = new Schedule(plan(create("a"), create("b", "a")), 10);
    assertThat(s.takeReady()).containsExactly("a");
    assertThat(s.takeReady()).isEmpty();
    s.recordSucceeded("a");
    assertThat(s.takeReady()).containsExactly("b");
    s.recordSucceeded("b");
    assertThat(s.steps.isFinished()).isTrue();
    assertThat(s.steps.hasFailures()).isFalse();
  }

  @Test
  void runsIndependentActionsTogetherUpToTheParallelism() {
    Schedule s = new Schedule(plan(create("a"), create("b"), create("c")), 2);
    assertThat(s.takeReady()).hasSize(2);
    s.recordSucceeded("a");
    assertThat(s.takeReady()).containsExactly("c");
  }

  @Test
  void skipsEverythingThatWaitsForAFailedActionButFinishesIndependentOnes() {
    Schedule s =
        new Schedule(plan(create("a"), create("b", "a"), create("c", "b"), create("x")), 10);
    s.takeReady();
    s.recordFailed("a");
    assertThat(s.status("b")).isEqualTo(ApplySteps.Status.SKIPPED);
    assertThat(s.status("c")).isEqualTo(ApplySteps.Status.SKIPPED);
    assertThat(s.steps.isFinished()).isFalse();
    s.recordSucceeded("x");
    assertThat(s.steps.isFinished()).isTrue();
    assertThat(s.steps.hasFailures()).isTrue();
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
    Schedule s = new Schedule(plan(web(0), web(1), lb()), 10);
    assertThat(s.takeReady())
        .containsExactly("stateful_provisioning.web[0]", "stateful_provisioning.web[1]");
    s.recordSucceeded("stateful_provisioning.web[0]");
    assertThat(s.takeReady()).isEmpty();
    s.recordSucceeded("stateful_provisioning.web[1]");
    assertThat(s.takeReady()).containsExactly("stateful_provisioning.lb");
  }

  @Test
  void aFailedInstanceSkipsWhatWaitsForItsResource() {
    Schedule s = new Schedule(plan(web(0), web(1), lb()), 10);
    s.takeReady();
    s.recordFailed("stateful_provisioning.web[1]");
    assertThat(s.status("stateful_provisioning.lb")).isEqualTo(ApplySteps.Status.SKIPPED);
  }

  @Test
  void ignoresADuplicateResult() {
    Schedule s = new Schedule(plan(create("a")), 10);
    s.takeReady();
    s.recordSucceeded("a");
    s.recordFailed("a");
    assertThat(s.status("a")).isEqualTo(ApplySteps.Status.SUCCEEDED);
  }
}
