package dev.stagecraft.planner.service.run.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Which of a carried-on run's actions remain, which are awaited, which failed, and what they count
 * for (docs/adr/0035), as the decider keeps them.
 */
class CarriedOverTest {
  static final Instant AT = Instant.parse("2026-11-21T10:00:00Z");

  static CarriedAction action(String name, String action, boolean skipDestroy) {
    return new CarriedAction(
        "run-1/stateful_provisioning." + name,
        "stateful_provisioning." + name,
        action,
        AT,
        false,
        skipDestroy);
  }

  final CarriedAction a = action("a", "create", false);
  final CarriedAction b = action("b", "create", false);

  @Test
  void awaitsEveryDispatchedActionKeepsTheFirstOutcomeAndSettlesWhenAllHaveOne() {
    CarriedOver carried =
        CarriedOver.of(List.of(a, b, a), false, null, null)
            .recorded(a.actionId(), "succeeded")
            .recorded(a.actionId(), "failed") // a second outcome loses, as at the state service
            .recorded("run-1/stateful_provisioning.x", "failed"); // not dispatched before
    assertThat(carried.actions()).as("an action dispatched twice counts once").hasSize(2);
    assertThat(carried.outcomes()).containsExactly(Map.entry(a.actionId(), "succeeded"));
    assertThat(carried.unfinishedAddresses()).containsExactly("stateful_provisioning.b");
    assertThat(carried.settled()).isFalse();
    assertThat(RunMessages.carriedApplying(carried))
        .contains(
            "of the 2 action(s) this run had dispatched before its planner instance stopped, 1"
                + " had finished")
        .contains("(stateful_provisioning.a: succeeded)")
        .contains("1 were still running (stateful_provisioning.b)");

    CarriedOver all = carried.recorded(b.actionId(), "succeeded");

    assertThat(all.settled()).isTrue();
    assertThat(all.notSucceeded()).isEmpty();
    assertThat(all.succeededCount()).isEqualTo(2);
    assertThat(CarriedOver.of(List.of(), true, null, null).settled())
        .as("nothing dispatched: settled at once")
        .isTrue();
  }

  @Test
  void namesTheActionsThatDidNotSucceed() {
    CarriedOver carried =
        CarriedOver.of(List.of(a, b), false, null, null)
            .recorded(a.actionId(), "succeeded")
            .recorded(b.actionId(), "failed");
    assertThat(carried.notSucceeded()).containsExactly("stateful_provisioning.b");
    assertThat(RunMessages.carriedFailed(carried, Map.of()))
        .startsWith("Apply failed: stateful_provisioning.b")
        .contains("stateful_provisioning.a: succeeded");
  }

  @Test
  void aRemainingPlanMustNotContainAnAddressDispatchedAlready() {
    CarriedOver carried = CarriedOver.of(List.of(a), false, null, null);
    assertThat(
            carried.alreadyDispatched(
                List.of("stateful_provisioning.a", "stateful_provisioning.c")))
        .containsExactly("stateful_provisioning.a");
    assertThat(carried.alreadyDispatched(List.of("stateful_provisioning.c"))).isEmpty();
    assertThat(RunMessages.wouldRepeat(List.of("stateful_provisioning.a")))
        .contains("would run stateful_provisioning.a again")
        .contains("not dispatched a second time");
  }

  @Test
  void theAppliedCountsAddWhatSucceededBeforeToTheRestsPlanAsAPlanCountsIt() {
    CarriedOver carried =
        CarriedOver.of(
            List.of(
                action("created", "create", false),
                action("updated", "update", false),
                action("replaced", "replace", false),
                action("kept", "replace", true), // destroy = false
                action("deleted", "delete", false),
                action("forgotten", "forget", false),
                action("failed", "create", false),
                action("running", "create", false)),
            false,
            null,
            null);
    for (String done : List.of("created", "updated", "replaced", "kept", "deleted", "forgotten")) {
      carried = carried.recorded("run-1/stateful_provisioning." + done, "succeeded");
    }
    carried = carried.recorded("run-1/stateful_provisioning.failed", "failed");

    // created, replaced, kept added; updated changed; replaced, deleted destroyed; the failed and
    // the running one count in nothing
    assertThat(carried.succeededResourceCounts()).containsExactly(3, 1, 2);
    assertThat(RunMessages.carriedResources(carried.succeededResourceCounts(), 2, 0, 1))
        .isEqualTo(
            "Resources: 5 added, 1 changed, 3 destroyed. Of them, 3 added, 1 changed, 2 destroyed"
                + " by the actions dispatched before its planner instance stopped.");
    // nothing remained to plan: all of it came from before
    assertThat(RunMessages.carriedResources(carried.succeededResourceCounts(), 0, 0, 0))
        .isEqualTo("Resources: 3 added, 1 changed, 2 destroyed.");
    // nothing succeeded before: the rest's plan alone
    CarriedOver none = CarriedOver.of(List.of(a), false, null, null);
    assertThat(RunMessages.carriedResources(none.succeededResourceCounts(), 1, 0, 0))
        .isEqualTo("Resources: 1 added, 0 changed, 0 destroyed.");
  }
}
