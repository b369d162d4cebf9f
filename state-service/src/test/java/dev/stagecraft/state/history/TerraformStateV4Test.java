package dev.stagecraft.state.history;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.state.history.StateEvent.InstanceWritten;
import dev.stagecraft.state.history.StateEvent.LineageAssigned;
import dev.stagecraft.state.history.StateEvent.WriteKind;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TerraformStateV4Test {

  private static InstanceWritten write(String address, boolean tainted) {
    return new InstanceWritten(
        address,
        "stateful_provisioning",
        Map.of("id", address),
        List.of("stateful_provisioning.db"),
        tainted,
        tainted ? WriteKind.TAINTED : WriteKind.CREATED);
  }

  @Test
  void emptyWorkspaceRendersSerialZeroWithoutResources() {
    Map<String, Object> doc = TerraformStateV4.render(WorkspaceState.EMPTY, "fresh");

    assertThat(doc)
        .containsEntry("version", 4)
        .containsEntry("terraform_version", "stagecraft-0.1.0")
        .containsEntry("serial", 0L)
        .containsEntry("lineage", "fresh")
        .containsEntry("outputs", Map.of())
        .containsEntry("resources", List.of());
  }

  @Test
  @SuppressWarnings("unchecked")
  void groupsInstancesByResourceWithIndexKeysInOrder() {
    WorkspaceState state =
        WorkspaceState.fold(
            List.of(
                new LineageAssigned("l-1"),
                write("stateful_provisioning.web[10]", false),
                write("stateful_provisioning.web[2]", true),
                write("stateful_provisioning.app", false),
                write("stateful_provisioning.kv[\"b\"]", false)));

    Map<String, Object> doc = TerraformStateV4.render(state, "unused");

    assertThat(doc).containsEntry("serial", 4L).containsEntry("lineage", "l-1");
    List<Map<String, Object>> resources = (List<Map<String, Object>>) doc.get("resources");
    assertThat(resources).extracting(r -> r.get("name")).containsExactly("app", "kv", "web");
    Map<String, Object> web = resources.get(2);
    assertThat(web)
        .containsEntry("mode", "managed")
        .containsEntry("type", "stateful_provisioning")
        .containsEntry("provider", "provider[\"stagecraft.dev/builtin/stagecraft\"]");
    List<Map<String, Object>> instances = (List<Map<String, Object>>) web.get("instances");
    assertThat(instances).extracting(i -> i.get("index_key")).containsExactly(2L, 10L);
    assertThat(instances.get(0))
        .containsEntry("status", "tainted")
        .containsEntry("schema_version", 0)
        .containsEntry("sensitive_attributes", List.of())
        .containsEntry("dependencies", List.of("stateful_provisioning.db"));
    assertThat(instances.get(1)).doesNotContainKey("status");
    Map<String, Object> app = resources.get(0);
    assertThat((List<Map<String, Object>>) app.get("instances"))
        .singleElement()
        .satisfies(i -> assertThat(i).doesNotContainKey("index_key"));
    Map<String, Object> kv = resources.get(1);
    assertThat((List<Map<String, Object>>) kv.get("instances"))
        .singleElement()
        .satisfies(i -> assertThat(i).containsEntry("index_key", "b"));
  }

  @Test
  @SuppressWarnings("unchecked")
  void rendersLifecycleFlagsOnlyWhenTrue() {
    WorkspaceState state =
        WorkspaceState.fold(
            List.of(
                new LineageAssigned("l-1"),
                new InstanceWritten(
                    "stateful_provisioning.cbd",
                    "stateful_provisioning",
                    Map.of("id", "a"),
                    List.of(),
                    false,
                    WriteKind.CREATED,
                    true,
                    false),
                new InstanceWritten(
                    "stateful_provisioning.kept",
                    "stateful_provisioning",
                    Map.of("id", "b"),
                    List.of(),
                    false,
                    WriteKind.CREATED,
                    false,
                    true),
                write("stateful_provisioning.plain", false)));

    List<Map<String, Object>> resources =
        (List<Map<String, Object>>) TerraformStateV4.render(state, "unused").get("resources");

    Map<String, Map<String, Object>> byName = new java.util.HashMap<>();
    for (Map<String, Object> resource : resources) {
      byName.put(
          (String) resource.get("name"),
          ((List<Map<String, Object>>) resource.get("instances")).get(0));
    }
    assertThat(byName.get("cbd"))
        .containsEntry("create_before_destroy", true)
        .doesNotContainKey("skip_destroy");
    assertThat(byName.get("kept"))
        .containsEntry("skip_destroy", true)
        .doesNotContainKey("create_before_destroy");
    assertThat(byName.get("plain"))
        .doesNotContainKey("create_before_destroy")
        .doesNotContainKey("skip_destroy");
    // Terraform's key order: create_before_destroy follows dependencies
    assertThat(byName.get("cbd").keySet())
        .containsSubsequence("dependencies", "create_before_destroy");
  }
}
