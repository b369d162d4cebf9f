package dev.stagecraft.planner.service.run.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.schemas.action.ActionDispatched;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a carried-on run keeps of what it dispatched before the restart: the rest of an approved
 * plan must be its changes not dispatched yet (docs/adr/0051), its credential is the latest
 * carried.
 */
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
  void theCredentialIsTheLatestCarried() {
    assertThat(
            CarriedActions.runCredential(
                List.of(
                    a.action(),
                    dispatch("stateful_provisioning.c", null).action(),
                    dispatch("stateful_provisioning.d", "scr_2").action())))
        .isEqualTo("scr_2");
  }
}
