package dev.stagecraft.state.history;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.state.history.StateEvent.InstanceWritten;
import dev.stagecraft.state.history.StateEvent.LineageAssigned;
import dev.stagecraft.state.history.StateEvent.WriteKind;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Attribute values the planner sealed (docs/adr/0024) are stored as received; the v4 document lists
 * their paths in {@code sensitive_attributes} (without a key), and a diff between versions masks
 * them and shows no change when the sealed value is the same.
 */
class SealedAttributesStateTest {
  private static final String SEALED_A = "stagecraft:sealed:v1:k1:AAAAsealedA";
  private static final String SEALED_B = "stagecraft:sealed:v1:k1:BBBBsealedB";

  private static WorkspaceState state(String pw, String tag) {
    return WorkspaceState.fold(
        List.of(
            new LineageAssigned("l-1"),
            new InstanceWritten(
                "stateful_provisioning.app",
                "stateful_provisioning",
                Map.of(
                    "id",
                    "i-1",
                    "state_key",
                    SEALED_A,
                    "triggers",
                    Map.of("pw", pw, "plain", "x"),
                    "tags",
                    Map.of("t", tag)),
                List.of(),
                false,
                WriteKind.CREATED)));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> instance(Map<String, Object> doc) {
    Map<String, Object> resource = ((List<Map<String, Object>>) doc.get("resources")).get(0);
    return ((List<Map<String, Object>>) resource.get("instances")).get(0);
  }

  @Test
  void sealedValuesAreListedAsSensitiveAttributesAndKeptAsStored() {
    Map<String, Object> doc = TerraformStateV4.render(state(SEALED_B, "v1"), "unused");

    Map<String, Object> instance = instance(doc);
    assertThat(instance.get("attributes"))
        .isEqualTo(state(SEALED_B, "v1").instances().values().iterator().next().attributes());
    assertThat((List<Object>) instance.get("sensitive_attributes"))
        .containsExactlyInAnyOrder(
            List.of(Map.of("type", "get_attr", "value", "state_key")),
            List.of(
                Map.of("type", "get_attr", "value", "triggers"),
                Map.of("type", "index", "value", Map.of("value", "pw", "type", "string"))));
    assertThat(StateDiff.sensitiveNames(instance))
        .containsExactlyInAnyOrder("state_key", "triggers");
  }

  @Test
  @SuppressWarnings("unchecked")
  void aDiffMasksSealedAttributesAndShowsNoChangeForAnEqualSealedValue() {
    Map<String, Object> v1 = TerraformStateV4.render(state(SEALED_B, "v1"), "unused");
    Map<String, Object> sameSecret = TerraformStateV4.render(state(SEALED_B, "v2"), "unused");
    Map<String, Object> newSecret = TerraformStateV4.render(state(SEALED_A, "v1"), "unused");

    String unchanged = StateDiff.between(v1, sameSecret).toString();
    assertThat(unchanged).contains("tags").doesNotContain("triggers").doesNotContain("state_key");
    String changed = StateDiff.between(v1, newSecret).toString();
    assertThat(changed)
        .contains("triggers")
        .contains(StateDiff.MASK)
        .doesNotContain("sealedA")
        .doesNotContain("sealedB");
  }

  @Test
  @SuppressWarnings("unchecked")
  void aPulledStatePushedBackRendersAsPushed() throws Exception {
    Map<String, Object> pulled = TerraformStateV4.render(state(SEALED_B, "v1"), "unused");
    Map<String, Object> pushed =
        dev.stagecraft.schemas.EventCodec.mapper()
            .readValue(
                dev.stagecraft.schemas.EventCodec.mapper().writeValueAsString(pulled), Map.class);

    Map<String, Object> again = TerraformStateV4.render(TerraformStateV4.parse(pushed), "unused");

    assertThat(instance(again).get("sensitive_attributes"))
        .isEqualTo(instance(pushed).get("sensitive_attributes"));
    assertThat(instance(again).get("attributes")).isEqualTo(instance(pushed).get("attributes"));
  }
}
