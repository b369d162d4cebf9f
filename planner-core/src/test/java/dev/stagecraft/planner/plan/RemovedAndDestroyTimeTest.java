package dev.stagecraft.planner.plan;

import static dev.stagecraft.planner.plan.ActionReason.DELETE_BECAUSE_COUNT_INDEX;
import static dev.stagecraft.planner.plan.ActionReason.DELETE_BECAUSE_NO_RESOURCE_CONFIG;
import static dev.stagecraft.planner.plan.ActionReason.REPLACE_BECAUSE_CANNOT_UPDATE;
import static dev.stagecraft.planner.plan.ActionType.CREATE_THEN_DELETE;
import static dev.stagecraft.planner.plan.ActionType.DELETE;
import static dev.stagecraft.planner.plan.ActionType.DELETE_THEN_CREATE;
import static dev.stagecraft.planner.plan.ActionType.FORGET;
import static dev.stagecraft.planner.plan.Scenario.instance;
import static dev.stagecraft.planner.plan.Scenario.resource;
import static dev.stagecraft.planner.plan.Scenario.row;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.diag.Diagnostic;
import dev.stagecraft.planner.apply.ActionResolution;
import dev.stagecraft.schemas.action.ProvisionerStep;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Rules 4 and 5: removed blocks and destroy-time provisioners. */
class RemovedAndDestroyTimeTest {
  static final String APP_STATE =
      resource(
          "stateful_provisioning",
          "app",
          instance(null, "{\"id\":\"a1\",\"state_key\":\"v1\",\"tags\":{\"host\":\"h1\"}}"));

  static ActionResolution resolve(PlanResult result, String address) {
    return result
        .applyContext()
        .resolve(result.plan().action(address).orElseThrow(), Map.of(), () -> "new-id");
  }

  @Test
  void removedBlockWithDestroyFalseForgetsWithTerraformsReason() {
    Plan plan =
        Scenario.config(
                """
                removed {
                  from = stateful_provisioning.app
                  lifecycle {
                    destroy = false
                  }
                }
                """)
            .state(APP_STATE, APP_STATE.replace("\"app\"", "\"other\""))
            .expect(
                row("stateful_provisioning.app", FORGET, DELETE_BECAUSE_NO_RESOURCE_CONFIG),
                row("stateful_provisioning.other", DELETE, DELETE_BECAUSE_NO_RESOURCE_CONFIG));
    assertThat(PlanJson.render(plan)).contains("\"actions\":[\"forget\"]");
    assertThat(PlanRenderer.render(plan))
        .contains(
            "# stateful_provisioning.app will be removed from the state, but will not be destroyed")
        .contains("Plan: 0 to add, 0 to change, 1 to destroy, 1 to forget.");
  }

  @Test
  void removedBlockWithDestroyTrueDestroysWithItsDestroyTimeProvisioners() {
    PlanResult result =
        Scenario.config(
                """
                removed {
                  from = stateful_provisioning.app
                  lifecycle {
                    destroy = true
                  }
                  provisioner "local-exec" {
                    when    = destroy
                    command = "undeploy ${self.id} on ${self.tags.host}"
                    connection {
                      host = self.tags.host
                    }
                  }
                }
                """)
            .state(APP_STATE.replace("}}", "}}").replace("\"a1\"", "\"a1\""))
            .plan();
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    assertThat(result.plan().action("stateful_provisioning.app").orElseThrow().action())
        .isEqualTo(DELETE);
    ActionResolution r = resolve(result, "stateful_provisioning.app");
    assertThat(r.hasErrors()).as(r.renderDiagnostics()).isFalse();
    assertThat(r.steps()).extracting(ProvisionerStep::command).containsExactly("undeploy a1 on h1");
    assertThat(r.connections()).containsExactly(Map.of("host", "h1"));
    assertThat(r.attributes()).containsEntry("id", "a1");
    // a removed block that overrides skip_destroy in state destroys
    assertThat(
            Scenario.config(
                    "removed {\n  from = stateful_provisioning.app\n  lifecycle {\n    destroy = true\n  }\n}\n")
                .state(
                    resource(
                        "stateful_provisioning",
                        "app",
                        instance(null, "{\"id\":\"a1\"}", "\"skip_destroy\":true")))
                .plan()
                .plan()
                .action("stateful_provisioning.app")
                .orElseThrow()
                .action())
        .isEqualTo(DELETE);
  }

  @Test
  void removedBlockForAnAddressStillInConfigurationIsAnError() {
    PlanResult result =
        Scenario.config(
                """
                resource "stateful_provisioning" "app" {
                  state_key = "v1"
                }
                removed {
                  from = stateful_provisioning.app
                }
                """)
            .plan();
    Diagnostic d = result.diagnostics().errors().get(0);
    assertThat(d.summary()).isEqualTo("Removed resource block still exists");
    assertThat(d.range().toString()).isEqualTo("main.tf:5:10");
  }

  static final String WITH_DESTROY_PROVISIONER =
      """
      resource "stateful_provisioning" "app" {
        count     = %s
        state_key = "%s"
        lifecycle {
          create_before_destroy = %s
        }
        provisioner "local-exec" {
          command = "deploy ${self.state_key}"
        }
        provisioner "local-exec" {
          when    = destroy
          command = "undeploy ${self.state_key} #${count.index}"
        }
      }
      """;

  static String appInstances(int n) {
    String[] instances = new String[n];
    for (int i = 0; i < n; i++) {
      instances[i] = instance(i, "{\"id\":\"a" + i + "\",\"state_key\":\"v1\"}");
    }
    return resource("stateful_provisioning", "app", instances);
  }

  @Test
  void destroyTimeProvisionersRunForDeleteOfAStillConfiguredResource() {
    PlanResult result =
        Scenario.config(WITH_DESTROY_PROVISIONER.formatted("1", "v1", "false"))
            .state(appInstances(2))
            .plan();
    assertThat(result.plan().action("stateful_provisioning.app[1]").orElseThrow().reason())
        .isEqualTo(DELETE_BECAUSE_COUNT_INDEX);
    ActionResolution r = resolve(result, "stateful_provisioning.app[1]");
    assertThat(r.steps())
        .extracting(ProvisionerStep::when, ProvisionerStep::command)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("destroy", "undeploy v1 #1"));
  }

  @Test
  void destroyThenCreateRunsDestroyTimeStepsFirstButCreateBeforeDestroyDoesNot() {
    PlanResult dtc =
        Scenario.config(WITH_DESTROY_PROVISIONER.formatted("1", "v2", "false"))
            .state(appInstances(1))
            .plan();
    assertThat(dtc.plan().action("stateful_provisioning.app[0]").orElseThrow().action())
        .isEqualTo(DELETE_THEN_CREATE);
    assertThat(resolve(dtc, "stateful_provisioning.app[0]").steps())
        .extracting(ProvisionerStep::when, ProvisionerStep::command)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("destroy", "undeploy v1 #0"),
            org.assertj.core.groups.Tuple.tuple("create", "deploy v2"));
    PlanResult cbd =
        Scenario.config(WITH_DESTROY_PROVISIONER.formatted("1", "v2", "true"))
            .state(appInstances(1))
            .plan();
    PlannedAction action = cbd.plan().action("stateful_provisioning.app[0]").orElseThrow();
    assertThat(action.action()).isEqualTo(CREATE_THEN_DELETE);
    assertThat(action.reason()).isEqualTo(REPLACE_BECAUSE_CANNOT_UPDATE);
    assertThat(resolve(cbd, "stateful_provisioning.app[0]").steps())
        .extracting(ProvisionerStep::when, ProvisionerStep::command)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("create", "deploy v2"));
  }

  @Test
  void destroyTimeProvisionersMayReferenceOnlySelfCountIndexEachKeyPathAndTerraform() {
    PlanResult result =
        Scenario.config(
                """
                variable "who" {
                  default = "x"
                }
                resource "stateful_provisioning" "app" {
                  state_key = "v1"
                  provisioner "local-exec" {
                    when    = destroy
                    command = "undeploy ${var.who} ${self.id}"
                  }
                }
                removed {
                  from = stateful_provisioning.old
                  provisioner "local-exec" {
                    when    = destroy
                    command = "bye ${terraform.workspace} ${path.module} ${var.who}"
                  }
                }
                """)
            .plan();
    assertThat(result.diagnostics().errors())
        .extracting(Diagnostic::summary, d -> d.range().toString())
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple(
                "Invalid reference from destroy provisioner", "main.tf:8:27"),
            org.assertj.core.groups.Tuple.tuple(
                "Invalid reference from destroy provisioner", "main.tf:15:60"));
  }
}
