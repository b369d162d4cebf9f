package dev.stagecraft.planner.plan;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.planner.apply.ActionResolution;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code timestamp()}, {@code uuid()} and a new {@code terraform_data}'s {@code output} are known
 * only after apply, as in Terraform (docs/planning.md, "Values known after apply").
 */
class ValuesKnownAfterApplyTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant PLANNED_AT = Instant.parse("2031-02-03T04:05:06.789Z");
  private static final String UUID_PATTERN =
      "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

  private static PlanResult plan(String config, PriorState prior) {
    PlanResult result =
        Planner.plan(
            new PlanRequest("default", Map.of("main.tf", config), Map.of(), List.of(), false, null),
            prior,
            Planner.parse(Map.of("main.tf", config)),
            PlanLimits.DEFAULT,
            Clock.fixed(PLANNED_AT, ZoneOffset.UTC));
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    return result;
  }

  private static PriorState stateWith(String address, String type, Map<String, Object> attributes) {
    String name = address.substring(address.indexOf('.') + 1);
    return new PriorState(
        3,
        "lineage-1",
        Map.of(address, new PriorInstance(address, type, name, attributes, List.of(), false)));
  }

  private static JsonNode change(Plan plan, String address) {
    JsonNode root = JSON.valueToTree(PlanJson.toMap(plan));
    for (JsonNode rc : root.path("resource_changes")) {
      if (rc.path("address").asText().equals(address)) {
        return rc;
      }
    }
    throw new AssertionError("no change for " + address);
  }

  private static ActionResolution apply(PlanResult result, String address) {
    ActionResolution resolution =
        result
            .applyContext()
            .resolve(result.plan().action(address).orElseThrow(), new LinkedHashMap<>(), () -> "9");
    assertThat(resolution.hasErrors()).as(resolution.renderDiagnostics()).isFalse();
    return resolution;
  }

  static final String ALWAYS =
      """
      resource "null_resource" "always" {
        triggers = { always = timestamp() }
        provisioner "local-exec" {
          command = "echo ran at ${self.triggers.always}"
        }
      }
      """;

  @Test
  void aTimestampTriggerReplacesAtEveryPlanAndIsKnownAfterApply() {
    PriorState applied =
        stateWith(
            "null_resource.always",
            "null_resource",
            Map.of("id", "1", "triggers", Map.of("always", "2031-02-03T04:05:06Z")));
    // even planned within the same second as the prior apply: unknown differs from any value
    PlanResult result = plan(ALWAYS, applied);
    PlannedAction action = result.plan().action("null_resource.always").orElseThrow();
    assertThat(action.action()).isEqualTo(ActionType.DELETE_THEN_CREATE);
    assertThat(action.reason()).isEqualTo(ActionReason.REPLACE_BECAUSE_CANNOT_UPDATE);
    assertThat(action.replacePaths()).containsExactly("triggers");
    assertThat(action.afterUnknown()).contains("triggers", "id");
    assertThat(PlanRenderer.render(result.plan()))
        .contains(
            "~ triggers = {\"always\":\"2031-02-03T04:05:06Z\"} -> (known after apply) # forces"
                + " replacement")
        .contains("# null_resource.always must be replaced");

    JsonNode change = change(result.plan(), "null_resource.always");
    assertThat(change.path("action_reason").asText()).isEqualTo("replace_because_cannot_update");
    assertThat(change.at("/change/after_unknown").toString())
        .isEqualTo("{\"id\":true,\"triggers\":{\"always\":true}}");
    assertThat(change.at("/change/after").toString()).isEqualTo("{\"triggers\":{}}");
  }

  @Test
  void theTimestampAppliedIsTheOneStoredAndTheOneTheProvisionerSees() {
    PlanResult result = plan(ALWAYS, PriorState.empty());
    ActionResolution resolution = apply(result, "null_resource.always");
    // the planner's clock: timestamp() at apply reads it (the apply's time), RFC 3339 in UTC
    assertThat(resolution.attributes().get("triggers"))
        .isEqualTo(Map.of("always", "2031-02-03T04:05:06Z"));
    assertThat(resolution.steps().get(0).command()).isEqualTo("echo ran at 2031-02-03T04:05:06Z");
  }

  @Test
  void aUuidTriggerReplacesAtEveryPlanAndOneUuidPerInstanceAndCallSiteIsApplied() {
    String config =
        """
        locals {
          run = uuid()
        }
        resource "null_resource" "n" {
          count    = 2
          triggers = { id = uuid(), run = local.run }
          provisioner "local-exec" {
            command = "echo ${self.triggers.id} ${local.run}"
          }
        }
        """;
    PlanResult again =
        plan(
            config,
            stateWith(
                "null_resource.n[0]",
                "null_resource",
                Map.of("id", "1", "triggers", Map.of("id", "x", "run", "y"))));
    assertThat(again.plan().action("null_resource.n[0]").orElseThrow().action())
        .isEqualTo(ActionType.DELETE_THEN_CREATE);
    assertThat(change(again.plan(), "null_resource.n[0]").at("/change/after_unknown").toString())
        .isEqualTo("{\"id\":true,\"triggers\":{\"id\":true,\"run\":true}}");

    PlanResult result = plan(config, PriorState.empty());
    ActionResolution first = apply(result, "null_resource.n[0]");
    ActionResolution second = apply(result, "null_resource.n[1]");
    @SuppressWarnings("unchecked")
    Map<String, Object> t0 = (Map<String, Object>) first.attributes().get("triggers");
    @SuppressWarnings("unchecked")
    Map<String, Object> t1 = (Map<String, Object>) second.attributes().get("triggers");
    assertThat((String) t0.get("id")).matches(UUID_PATTERN);
    // each instance its own uuid; the local value one uuid for the whole apply
    assertThat(t1.get("id")).isNotEqualTo(t0.get("id"));
    assertThat(t1.get("run")).isEqualTo(t0.get("run"));
    // what the provisioner sees is what the instance is stored with
    assertThat(first.steps().get(0).command())
        .isEqualTo("echo " + t0.get("id") + " " + t0.get("run"));
    assertThat(second.steps().get(0).command())
        .isEqualTo("echo " + t1.get("id") + " " + t1.get("run"));
  }

  @Test
  void triggersReplaceWithATimestampReplacesTerraformData() {
    String config =
        """
        resource "terraform_data" "d" {
          triggers_replace = timestamp()
        }
        """;
    PlanResult result =
        plan(
            config,
            stateWith(
                "terraform_data.d",
                "terraform_data",
                Map.of("id", "1", "triggers_replace", "2031-02-03T04:05:06Z")));
    PlannedAction action = result.plan().action("terraform_data.d").orElseThrow();
    assertThat(action.action()).isEqualTo(ActionType.DELETE_THEN_CREATE);
    assertThat(action.reason()).isEqualTo(ActionReason.REPLACE_BECAUSE_CANNOT_UPDATE);
    assertThat(change(result.plan(), "terraform_data.d").at("/change/after_unknown").toString())
        .isEqualTo("{\"id\":true,\"triggers_replace\":true}");
    assertThat(apply(result, "terraform_data.d").attributes())
        .containsEntry("triggers_replace", "2031-02-03T04:05:06Z");
  }

  @Test
  void plantimestampIsKnownAtPlanAndTheSameWhenApplied() {
    String config =
        """
        resource "null_resource" "p" {
          triggers = { planned = plantimestamp() }
        }
        """;
    PlanResult result = plan(config, PriorState.empty());
    PlannedAction action = result.plan().action("null_resource.p").orElseThrow();
    assertThat(action.afterUnknown()).containsExactly("id");
    assertThat(action.after()).containsEntry("triggers", Map.of("planned", "2031-02-03T04:05:06Z"));
    assertThat(apply(result, "null_resource.p").attributes().get("triggers"))
        .isEqualTo(Map.of("planned", "2031-02-03T04:05:06Z"));
  }

  @Test
  void aCountFromATimestampIsAnErrorAtTheCount() {
    String config =
        """
        resource "null_resource" "n" {
          count = length(timestamp()) > 5 ? 1 : 0
        }
        """;
    PlanResult result =
        Planner.plan(
            new PlanRequest("default", Map.of("main.tf", config), Map.of(), List.of(), false, null),
            PriorState.empty());
    assertThat(result.hasErrors()).isTrue();
    assertThat(result.renderDiagnostics())
        .contains("Invalid count argument")
        .contains("main.tf:2:11")
        .contains("cannot be determined until apply");
  }

  static final String DATA =
      """
      resource "terraform_data" "d" {
        input = "v2"
      }
      output "out" {
        value = terraform_data.d.output
      }
      resource "null_resource" "uses" {
        triggers = { out = terraform_data.d.output }
      }
      """;

  @Test
  void aNewTerraformDataOutputIsKnownAfterApplyAndSoIsWhatDependsOnIt() {
    PlanResult result = plan(DATA, PriorState.empty());
    PlannedAction data = result.plan().action("terraform_data.d").orElseThrow();
    assertThat(data.afterUnknown()).containsExactlyInAnyOrder("id", "output");
    assertThat(result.plan().output("out").orElseThrow().afterUnknown()).isTrue();
    String text = PlanRenderer.render(result.plan());
    assertThat(text)
        .contains("+ output = (known after apply)")
        .contains("+ out = (known after apply)");
    JsonNode root = JSON.valueToTree(PlanJson.toMap(result.plan()));
    assertThat(root.at("/output_changes/out/after_unknown").asBoolean()).isTrue();
    assertThat(change(result.plan(), "null_resource.uses").at("/change/after_unknown").toString())
        .isEqualTo("{\"id\":true,\"triggers\":{\"out\":true}}");
    assertThat(apply(result, "terraform_data.d").attributes()).containsEntry("output", "v2");
  }

  @Test
  void anUnchangedTerraformDataKeepsItsOutputAndAChangedInputMakesItUnknown() {
    PriorState prior =
        stateWith(
            "terraform_data.d", "terraform_data", Map.of("id", "1", "input", "v2", "output", "v2"));
    PlanResult same = plan(DATA, prior);
    PlannedAction unchanged = same.plan().action("terraform_data.d").orElseThrow();
    assertThat(unchanged.action()).isEqualTo(ActionType.NO_OP);
    assertThat(unchanged.afterUnknown()).isEmpty();
    assertThat(same.plan().output("out").orElseThrow().after()).isEqualTo("v2");

    PlanResult changed = plan(DATA.replace("\"v2\"", "\"v3\""), prior);
    PlannedAction updated = changed.plan().action("terraform_data.d").orElseThrow();
    assertThat(updated.action()).isEqualTo(ActionType.UPDATE);
    assertThat(updated.afterUnknown()).containsExactly("output");
    assertThat(changed.plan().output("out").orElseThrow().afterUnknown()).isTrue();
    assertThat(PlanRenderer.render(changed.plan()))
        .contains("~ output = \"v2\" -> (known after apply)");
  }

  @Test
  void anIgnoredKeyBesideATimestampKeepsItsPriorValueAndChangesNothing() {
    String config =
        """
        resource "stateful_provisioning" "s" {
          state_key = "v1"
          tags      = { built = timestamp(), team = "ops" }
          lifecycle {
            ignore_changes = [tags["built"]]
          }
        }
        """;
    PriorState prior =
        stateWith(
            "stateful_provisioning.s",
            "stateful_provisioning",
            Map.of(
                "id",
                "1",
                "state_key",
                "v1",
                "tags",
                Map.of("built", "2020-01-01T00:00:00Z", "team", "ops")));
    PlannedAction same = plan(config, prior).plan().action("stateful_provisioning.s").orElseThrow();
    assertThat(same.action()).isEqualTo(ActionType.NO_OP);
    assertThat(same.afterUnknown()).isEmpty();

    PlanResult moved = plan(config.replace("\"ops\"", "\"dev\""), prior);
    PlannedAction update = moved.plan().action("stateful_provisioning.s").orElseThrow();
    assertThat(update.action()).isEqualTo(ActionType.UPDATE);
    assertThat(apply(moved, "stateful_provisioning.s").attributes().get("tags"))
        .isEqualTo(Map.of("built", "2020-01-01T00:00:00Z", "team", "dev"));

    // another timestamp beside it: updated at every plan, the ignored key still kept at apply
    PlanResult seen = plan(config.replace("team = \"ops\"", "seen = timestamp()"), prior);
    PlannedAction again = seen.plan().action("stateful_provisioning.s").orElseThrow();
    assertThat(again.action()).isEqualTo(ActionType.UPDATE);
    assertThat(
            change(seen.plan(), "stateful_provisioning.s").at("/change/after_unknown").toString())
        .isEqualTo("{\"tags\":{\"seen\":true}}");
    assertThat(apply(seen, "stateful_provisioning.s").attributes().get("tags"))
        .isEqualTo(Map.of("built", "2020-01-01T00:00:00Z", "seen", "2031-02-03T04:05:06Z"));
  }
}
