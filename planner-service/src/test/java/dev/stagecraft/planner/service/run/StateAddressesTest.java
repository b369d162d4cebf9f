package dev.stagecraft.planner.service.run;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A remote state's http address names a workspace only when it is this Stagecraft's own {@code
 * /tf/v1/workspaces/NAME/state} (docs/planning.md "Remote state"); anything else is refused, and
 * the planner never requests it.
 */
class StateAddressesTest {
  final StateAddresses own =
      new StateAddresses("https://state.example.com/stagecraft/", "http://127.0.0.1:8082");

  @Test
  void thisStagecraftsBackendAddressNamesItsWorkspace() {
    assertThat(
            own.workspaceOf("https://STATE.example.com:443/stagecraft/tf/v1/workspaces/net/state")
                .workspace())
        .contains("net");
    assertThat(
            own.workspaceOf("http://127.0.0.1:8082/tf/v1/workspaces/db-prod.v2/state").workspace())
        .contains("db-prod.v2");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "http://169.254.169.254/latest/meta-data/",
        "https://evil.example.com/stagecraft/tf/v1/workspaces/net/state",
        "http://127.0.0.1:8083/tf/v1/workspaces/net/state",
        "https://state.example.com/tf/v1/workspaces/net/state",
        "https://state.example.com/stagecraft/tf/v1/workspaces/net/lock",
        "https://state.example.com/stagecraft/tf/v1/workspaces/net/state?tenant=other",
        "https://state.example.com/stagecraft/tf/v1/workspaces/net/state#x",
        "https://u:p@state.example.com/stagecraft/tf/v1/workspaces/net/state",
        "https://state.example.com/stagecraft/tf/v1/workspaces/../state",
        "https://state.example.com/stagecraft/tf/v1/workspaces/a%2Fb/state",
        "http://127.0.0.1:8082/internal/v1/tenants/other/workspaces/net/state",
        "http://127.0.0.1:8082/api/v1/workspaces/net/state",
        "file:///etc/passwd",
        "not a url at all"
      })
  void anyOtherAddressIsRefusedSayingWhatToUse(String address) {
    StateAddresses.Resolved resolved = own.workspaceOf(address);
    assertThat(resolved.workspace()).isEmpty();
    assertThat(resolved.refusal())
        .contains("is not this Stagecraft's state address of a workspace")
        .contains("https://state.example.com/stagecraft/tf/v1/workspaces/NAME/state")
        .contains("Nothing was requested from that address");
  }
}
