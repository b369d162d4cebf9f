package dev.stagecraft.planner.plan;

import static dev.stagecraft.planner.plan.ActionReason.DELETE_BECAUSE_NO_RESOURCE_CONFIG;
import static dev.stagecraft.planner.plan.ActionReason.REPLACE_BECAUSE_CANNOT_UPDATE;
import static dev.stagecraft.planner.plan.ActionType.CREATE;
import static dev.stagecraft.planner.plan.ActionType.CREATE_THEN_DELETE;
import static dev.stagecraft.planner.plan.ActionType.DELETE;
import static dev.stagecraft.planner.plan.ActionType.DELETE_THEN_CREATE;
import static dev.stagecraft.planner.plan.ActionType.UPDATE;
import static dev.stagecraft.planner.plan.Scenario.instance;
import static dev.stagecraft.planner.plan.Scenario.resource;
import static dev.stagecraft.planner.plan.Scenario.row;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.diag.Diagnostic;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Rules 2, 6, 7 and 8: locals and outputs, ordering, diagnostics, the plan's documents. */
class PlanDocumentTest {

  @Test
  void localsAreEvaluatedInDependencyOrderAndCreateEdgesBetweenResources() {
    Plan plan =
        Scenario.config(
                """
                locals {
                  full = "${local.base}-${terraform.workspace}"
                  base = "r${stateful_provisioning.db.state_key}"
                }
                resource "stateful_provisioning" "db" {
                  state_key = "7"
                }
                resource "stateful_provisioning" "app" {
                  state_key = local.full
                }
                """)
            .expect(
                row("stateful_provisioning.db", CREATE), row("stateful_provisioning.app", CREATE));
    PlannedAction app = plan.action("stateful_provisioning.app").orElseThrow();
    assertThat(app.after()).containsEntry("state_key", "r7-default");
    assertThat(app.waitFor()).containsExactly("stateful_provisioning.db");
    assertThat(app.dependencies()).containsExactly("stateful_provisioning.db");
  }

  @Test
  void outputsAreEvaluatedRedactedWhenSensitiveAndExposedAsOutputChanges() {
    String config =
        """
        variable "password" {
          default   = "hunter2"
          sensitive = true
        }
        resource "stateful_provisioning" "app" {
          state_key = "v1"
        }
        output "key" {
          value = stateful_provisioning.app.state_key
        }
        output "id" {
          value = stateful_provisioning.app.id
        }
        output "secret" {
          value     = "pw=${var.password}"
          sensitive = true
        }
        """;
    Plan plan =
        Scenario.config(config)
            .rawState(
                "{\"version\":4,\"serial\":3,\"lineage\":\"l\",\"outputs\":{\"gone\":{\"value\":\"x\",\"type\":\"string\"},"
                    + "\"key\":{\"value\":\"v0\",\"type\":\"string\"}},\"resources\":[]}")
            .expect(row("stateful_provisioning.app", CREATE));
    assertThat(plan.outputChanges())
        .extracting(OutputChange::name, o -> o.actions().get(0))
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("id", "create"),
            org.assertj.core.groups.Tuple.tuple("key", "update"),
            org.assertj.core.groups.Tuple.tuple("secret", "create"),
            org.assertj.core.groups.Tuple.tuple("gone", "delete"));
    assertThat(plan.output("key").orElseThrow().after()).isEqualTo("v1");
    assertThat(plan.output("id").orElseThrow().afterUnknown()).isTrue();
    String json = PlanJson.render(plan);
    assertThat(json)
        .contains("\"output_changes\":{")
        .contains("\"secret\":{\"actions\":[\"create\"],\"after\":null")
        .contains("\"after_sensitive\":true")
        .doesNotContain("hunter2");
    assertThat(PlanRenderer.render(plan))
        .contains("Changes to Outputs:")
        .contains("  + secret = (sensitive value)")
        .contains("  ~ key = \"v0\" -> \"v1\"")
        .doesNotContain("hunter2");
    PlanResult unmarked =
        Scenario.config(
                config.replace(
                    "\"pw=${var.password}\"\n  sensitive = true\n", "\"pw=${var.password}\"\n"))
            .plan();
    assertThat(unmarked.diagnostics().errors())
        .extracting(Diagnostic::summary)
        .contains("Output refers to sensitive values");
  }

  @Test
  void sensitiveValuesNeverAppearInClearInThePlanTextOrJson() {
    Plan plan =
        Scenario.config(
                """
                variable "token" {
                  default   = "s3cr3t"
                  sensitive = true
                }
                resource "stateful_provisioning" "app" {
                  state_key = "v1-${var.token}"
                  tags      = { team = "blue" }
                }
                """)
            .state(
                resource(
                    "stateful_provisioning",
                    "app",
                    instance(null, "{\"id\":\"1\",\"state_key\":\"v0-s3cr3t\"}")))
            .expect(
                row(
                    "stateful_provisioning.app",
                    DELETE_THEN_CREATE,
                    REPLACE_BECAUSE_CANNOT_UPDATE));
    String json = PlanJson.render(plan);
    assertThat(json)
        .doesNotContain("s3cr3t")
        .contains("\"after_sensitive\":{\"state_key\":true}")
        .contains("\"prior_state\":{");
    assertThat(PlanRenderer.render(plan))
        .doesNotContain("s3cr3t")
        .contains("~ state_key = (sensitive value) -> (sensitive value) # forces replacement");
  }

  @Test
  void planJsonCarriesPriorStateOutputChangesAndTheReasonOfEveryNonObviousAction() {
    Plan plan =
        Scenario.config(
                """
                resource "stateful_provisioning" "app" {
                  state_key = "v2"
                }
                """)
            .state(
                resource(
                    "stateful_provisioning",
                    "app",
                    instance(null, "{\"id\":\"1\",\"state_key\":\"v1\"}")),
                resource(
                    "stateful_provisioning",
                    "old",
                    instance(null, "{\"id\":\"2\",\"state_key\":\"v1\"}")))
            .expect(
                row("stateful_provisioning.app", DELETE_THEN_CREATE, REPLACE_BECAUSE_CANNOT_UPDATE),
                row("stateful_provisioning.old", DELETE, DELETE_BECAUSE_NO_RESOURCE_CONFIG));
    Map<String, Object> json = PlanJson.toMap(plan);
    assertThat(json).containsKeys("prior_state", "output_changes", "resource_changes");
    @SuppressWarnings("unchecked")
    Map<String, Object> prior = (Map<String, Object>) json.get("prior_state");
    assertThat(prior).containsEntry("serial", 7).containsEntry("lineage", "l-1");
    assertThat(PlanJson.render(plan))
        .contains("\"action_reason\":\"replace_because_cannot_update\"")
        .contains("\"action_reason\":\"delete_because_no_resource_config\"");
    assertThat(PlanRenderer.render(plan))
        .contains("# stateful_provisioning.app must be replaced")
        .contains("# (because stateful_provisioning.old is not in configuration)")
        .contains("Plan: 1 to add, 0 to change, 2 to destroy.");
  }

  @Test
  void destroysRunInReverseOrderAndAfterDependentsAreChanged() {
    Plan plan =
        Scenario.config(
                """
                resource "stateful_provisioning" "db" {
                  count     = 1
                  state_key = "v1"
                }
                resource "stateful_provisioning" "app" {
                  state_key = "v1"
                  tags      = { db = stateful_provisioning.db[0].id }
                }
                """)
            .state(
                resource(
                    "stateful_provisioning",
                    "db",
                    instance(0, "{\"id\":\"d0\",\"state_key\":\"v1\"}"),
                    instance(1, "{\"id\":\"d1\",\"state_key\":\"v1\"}")),
                resource(
                    "stateful_provisioning",
                    "app",
                    instance(
                        null,
                        "{\"id\":\"a\",\"state_key\":\"v1\"}",
                        "\"dependencies\":[\"stateful_provisioning.db\"]")),
                resource(
                    "stateful_provisioning",
                    "gone",
                    instance(
                        null, "{\"id\":\"g\"}", "\"dependencies\":[\"stateful_provisioning.db\"]")))
            .expect(
                row("stateful_provisioning.app", UPDATE),
                row("stateful_provisioning.db[1]", DELETE, ActionReason.DELETE_BECAUSE_COUNT_INDEX),
                row("stateful_provisioning.gone", DELETE, DELETE_BECAUSE_NO_RESOURCE_CONFIG));
    assertThat(plan.action("stateful_provisioning.db[1]").orElseThrow().waitFor())
        .containsExactly("stateful_provisioning.app", "stateful_provisioning.gone");
    assertThat(plan.action("stateful_provisioning.app").orElseThrow().waitFor()).isEmpty();
  }

  @Test
  void createBeforeDestroyReplaceIsOneActionThatDependentsWaitFor() {
    Plan plan =
        Scenario.config(
                """
                resource "stateful_provisioning" "db" {
                  state_key = "v2"
                  lifecycle {
                    create_before_destroy = true
                  }
                }
                resource "stateful_provisioning" "app" {
                  state_key = "v1"
                  tags      = { db = stateful_provisioning.db.id }
                }
                """)
            .state(
                resource(
                    "stateful_provisioning",
                    "db",
                    instance(null, "{\"id\":\"d\",\"state_key\":\"v1\"}")),
                resource(
                    "stateful_provisioning",
                    "app",
                    instance(
                        null,
                        "{\"id\":\"a\",\"state_key\":\"v1\",\"tags\":{\"db\":\"d\"}}",
                        "\"dependencies\":[\"stateful_provisioning.db\"]")))
            .expect(
                row("stateful_provisioning.db", CREATE_THEN_DELETE, REPLACE_BECAUSE_CANNOT_UPDATE),
                row("stateful_provisioning.app", UPDATE));
    assertThat(plan.action("stateful_provisioning.app").orElseThrow().waitFor())
        .containsExactly("stateful_provisioning.db");
    assertThat(plan.action("stateful_provisioning.db").orElseThrow().waitFor()).isEmpty();
  }

  @Test
  void diagnosticsAreAllReportedInOnePassWithPositions() {
    PlanResult result =
        Scenario.config(
                """
                resource "stateful_provisioning" "a" {
                  state_key = local.b
                }
                locals {
                  b = stateful_provisioning.a.id
                  c = local.nope
                }
                resource "stateful_provisioning" "x" {
                  state_key = var.missing
                  tags      = { g = stateful_provisioning.ghost.id }
                }
                """)
            .plan();
    assertThat(result.diagnostics().errors())
        .extracting(Diagnostic::summary, d -> d.range().toString())
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple(
                "Reference to undeclared local value", "main.tf:6:7"),
            org.assertj.core.groups.Tuple.tuple(
                "Reference to undeclared input variable", "main.tf:9:15"),
            org.assertj.core.groups.Tuple.tuple(
                "Reference to undeclared resource", "main.tf:10:21"),
            org.assertj.core.groups.Tuple.tuple(
                "Cycle: stateful_provisioning.a, local.b", "main.tf:1:1"));
  }

  @Test
  void duplicateResourceAddressesAreReportedWithPosition() {
    PlanResult result =
        Scenario.config(
                """
                resource "stateful_provisioning" "a" {
                  state_key = "1"
                }
                resource "stateful_provisioning" "a" {
                  state_key = "2"
                }
                """)
            .plan();
    assertThat(result.hasErrors()).isTrue();
    assertThat(result.diagnostics().errors().get(0).range().toString()).startsWith("main.tf:4:");
  }

  @Test
  void sameResourceInstanceActionsRenderWithTheirSymbols() {
    Plan plan =
        Scenario.config(
                """
                resource "stateful_provisioning" "web" {
                  count     = 1
                  state_key = "v1"
                }
                """)
            .expect(row("stateful_provisioning.web[0]", CREATE));
    assertThat(PlanRenderer.render(plan))
        .contains("# stateful_provisioning.web[0] will be created");
  }
}
