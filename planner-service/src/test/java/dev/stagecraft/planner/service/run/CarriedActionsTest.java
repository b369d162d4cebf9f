package dev.stagecraft.planner.service.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.schemas.action.ActionDispatched;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which of a carried-on run's actions remain, which are awaited, which failed (docs/adr/0035). */
class CarriedActionsTest {
  static final Instant AT = Instant.parse("2026-11-21T10:00:00Z");

  static DispatchedActions.Dispatched dispatch(String address, String credential) {
    ActionDispatched action =
        new ActionDispatched(
                "run-1",
                "run-1/" + address,
                address,
                "stateful_provisioning",
                "create",
                Map.of(),
                List.of(),
                List.of(),
                7,
                List.of(),
                false,
                false)
            .withRunCredential(credential);
    return new DispatchedActions.Dispatched(action, AT);
  }

  final DispatchedActions.Dispatched a = dispatch("stateful_provisioning.a", "scr_1");
  final DispatchedActions.Dispatched b = dispatch("stateful_provisioning.b", "scr_1");

  @Test
  void theRestOfAnApprovedPlanMustBeExactlyTheApprovedChangesNotDispatchedYet() {
    String da = change("a", "1");
    String db = change("b", "1");
    String dc = change("c", "1");
    Map<String, String> approved =
        Map.of(
            "stateful_provisioning.a", da,
            "stateful_provisioning.b", db,
            "stateful_provisioning.c", dc);
    CarriedActions carried = new CarriedActions(List.of(a), true, approved, "d");

    assertThat(
            carried.unapprovedRest(
                Map.of("stateful_provisioning.b", db, "stateful_provisioning.c", dc)))
        .as("a was dispatched before the restart; b and c remain as approved")
        .isEmpty();
    assertThat(carried.unapprovedRest(Map.of("stateful_provisioning.b", db)))
        .hasValue("approved but no longer planned: stateful_provisioning.c");
    assertThat(
            carried.unapprovedRest(
                Map.of(
                    "stateful_provisioning.b", change("b", "2"),
                    "stateful_provisioning.c", dc,
                    "stateful_provisioning.d", change("d", "1"))))
        .hasValue(
            "not in the approved plan: stateful_provisioning.d; planned differently from the"
                + " approved plan: stateful_provisioning.b");
    assertThat(new CarriedActions(List.of(a), true, null, null).unapprovedRest(Map.of()))
        .as("nothing recorded: nothing can be shown")
        .hasValueSatisfying(why -> assertThat(why).contains("recorded no copy"));
  }

  /** A change document as {@code Plan.changeDocuments} renders one (the parts that matter here). */
  static String change(String name, String stateKey) {
    return "{\"address\":\"stateful_provisioning."
        + name
        + "\",\"change\":{\"actions\":[\"update\"],\"after\":{\"state_key\":\""
        + stateKey
        + "\"},\"after_unknown\":{}}}";
  }

  @Test
  void awaitsEveryDispatchedActionKeepsTheFirstOutcomeAndSettlesWhenAllHaveOne() {
    CarriedActions carried = new CarriedActions(List.of(a, b, a), false, null, null);
    assertThat(carried.dispatchedCount()).as("an action dispatched twice counts once").isEqualTo(2);
    assertThat(carried.recorded("run-1/stateful_provisioning.a", "succeeded")).isTrue();
    assertThat(carried.recorded("run-1/stateful_provisioning.a", "failed"))
        .as("a second outcome loses, as at the state service")
        .isFalse();
    assertThat(carried.recorded("run-1/stateful_provisioning.x", "failed"))
        .as("not dispatched before the restart")
        .isFalse();
    assertThat(carried.unfinishedAddresses()).containsExactly("stateful_provisioning.b");
    assertThat(carried.settled).isNotDone();
    assertThat(carried.applyingMessage())
        .contains(
            "of the 2 action(s) this run had dispatched before its planner instance stopped, 1"
                + " had finished")
        .contains("(stateful_provisioning.a: succeeded)")
        .contains("1 were still running (stateful_provisioning.b)");

    carried.recorded("run-1/stateful_provisioning.b", "succeeded");

    assertThat(carried.settled).isDone();
    assertThat(carried.allFinished()).isTrue();
    assertThat(carried.notSucceeded()).isEmpty();
    assertThat(carried.succeededCount()).isEqualTo(2);
  }

  @Test
  void namesTheActionsThatDidNotSucceed() {
    CarriedActions carried = new CarriedActions(List.of(a, b), false, null, null);
    carried.recorded("run-1/stateful_provisioning.a", "succeeded");
    carried.recorded("run-1/stateful_provisioning.b", "failed");
    assertThat(carried.notSucceeded()).containsExactly("stateful_provisioning.b");
    assertThat(carried.failedMessage())
        .startsWith("Apply failed: stateful_provisioning.b")
        .contains("stateful_provisioning.a: succeeded");
  }

  @Test
  void aRemainingPlanMustNotContainAnAddressDispatchedAlready() {
    CarriedActions carried = new CarriedActions(List.of(a), false, null, null);
    assertThat(
            carried.alreadyDispatched(
                List.of("stateful_provisioning.a", "stateful_provisioning.c")))
        .containsExactly("stateful_provisioning.a");
    assertThat(carried.alreadyDispatched(List.of("stateful_provisioning.c"))).isEmpty();
    assertThat(CarriedActions.wouldRepeatMessage(List.of("stateful_provisioning.a")))
        .contains("would run stateful_provisioning.a again")
        .contains("not dispatched a second time");
  }

  @Test
  void nothingDispatchedIsSettledAtOnceAndTheCredentialIsTheLatestCarried() {
    assertThat(new CarriedActions(List.of(), true, null, null).settled).isDone();
    assertThat(
            CarriedActions.runCredential(
                List.of(
                    a.action(),
                    dispatch("stateful_provisioning.c", null).action(),
                    dispatch("stateful_provisioning.d", "scr_2").action())))
        .isEqualTo("scr_2");
  }

  static DispatchedActions.Dispatched dispatch(String address, String action, boolean skipDestroy) {
    return new DispatchedActions.Dispatched(
        new ActionDispatched(
            "run-1",
            "run-1/" + address,
            address,
            "stateful_provisioning",
            action,
            Map.of(),
            List.of(),
            List.of(),
            7,
            List.of(),
            false,
            skipDestroy),
        AT);
  }

  @Test
  void theAppliedCountsAddWhatSucceededBeforeToTheRestsPlanAsAPlanCountsIt() {
    CarriedActions carried =
        new CarriedActions(
            List.of(
                dispatch("stateful_provisioning.created", "create", false),
                dispatch("stateful_provisioning.updated", "update", false),
                dispatch("stateful_provisioning.replaced", "replace", false),
                dispatch("stateful_provisioning.kept", "replace", true), // destroy = false
                dispatch("stateful_provisioning.deleted", "delete", false),
                dispatch("stateful_provisioning.forgotten", "forget", false),
                dispatch("stateful_provisioning.failed", "create", false),
                dispatch("stateful_provisioning.running", "create", false)),
            false,
            null,
            null);
    for (String done : List.of("created", "updated", "replaced", "kept", "deleted", "forgotten")) {
      carried.recorded("run-1/stateful_provisioning." + done, "succeeded");
    }
    carried.recorded("run-1/stateful_provisioning.failed", "failed");

    // created, replaced, kept added; updated changed; replaced, deleted destroyed; the failed and
    // the running one count in nothing
    assertThat(carried.succeededResourceCounts()).containsExactly(3, 1, 2);
    assertThat(carried.appliedSummary(2, 0, 1))
        .isEqualTo(
            "Resources: 5 added, 1 changed, 3 destroyed. Of them, 3 added, 1 changed, 2 destroyed"
                + " by the actions dispatched before its planner instance stopped.");
    // nothing remained to plan: all of it came from before
    assertThat(carried.appliedSummary(0, 0, 0))
        .isEqualTo("Resources: 3 added, 1 changed, 2 destroyed.");
    // nothing succeeded before: the rest's plan alone
    assertThat(new CarriedActions(List.of(a), false, null, null).appliedSummary(1, 0, 0))
        .isEqualTo("Resources: 1 added, 0 changed, 0 destroyed.");
  }
}
