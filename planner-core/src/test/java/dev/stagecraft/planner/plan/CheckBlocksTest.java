package dev.stagecraft.planner.plan;

import static dev.stagecraft.planner.plan.Scenario.instance;
import static dev.stagecraft.planner.plan.Scenario.resource;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.language.diag.Diagnostic;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code check} blocks: evaluated after planning and again after apply; a failure is a warning with
 * its message and stops nothing; an unknown condition is decided after apply; the plan's JSON has
 * Terraform's {@code checks} array.
 */
class CheckBlocksTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  static String config(String condition) {
    return """
        variable "replicas" {
          default = 1
        }
        resource "stateful_provisioning" "app" {
          state_key = "v1"
        }
        check "app_health" {
          assert {
            condition     = %s
            error_message = "The app needs two replicas, it has ${var.replicas}."
          }
        }
        """
        .formatted(condition);
  }

  private static List<String> warnings(PlanResult result) {
    return result.diagnostics().list().stream()
        .filter(d -> !d.isError())
        .map(d -> d.summary() + " @" + d.range())
        .toList();
  }

  @Test
  void aPassingCheckGivesNoWarningAndPassesInTheJson() throws Exception {
    PlanResult result = Scenario.config(config("var.replicas >= 1")).plan();
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    assertThat(result.diagnostics().list()).isEmpty();
    JsonNode checks = JSON.readTree(PlanJson.render(result.plan())).get("checks");
    assertThat(checks).hasSize(1);
    assertThat(checks.get(0).get("address").get("to_display").asText())
        .isEqualTo("check.app_health");
    assertThat(checks.get(0).get("address").get("kind").asText()).isEqualTo("check");
    assertThat(checks.get(0).get("status").asText()).isEqualTo("pass");
    assertThat(checks.get(0).get("instances").get(0).get("status").asText()).isEqualTo("pass");
    assertThat(checks.get(0).get("instances").get(0).has("problems")).isFalse();
  }

  @Test
  void aFailingCheckIsAWarningWithItsMessageAndThePlanGoesOn() throws Exception {
    PlanResult result = Scenario.config(config("var.replicas >= 2")).plan();
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    assertThat(result.plan().action("stateful_provisioning.app").orElseThrow().action())
        .isEqualTo(ActionType.CREATE);
    assertThat(warnings(result)).containsExactly("Check block assertion failed @main.tf:9:21");
    Diagnostic warning = result.diagnostics().list().get(0);
    assertThat(warning.detail())
        .startsWith("The app needs two replicas, it has 1.")
        .contains("check.app_health");
    assertThat(PlanRenderer.render(result.plan()))
        .contains("Plan: 1 to add, 0 to change, 0 to destroy.")
        .contains("Warning: Check block assertion failed")
        .contains("The app needs two replicas, it has 1.");
    JsonNode check = JSON.readTree(PlanJson.render(result.plan())).get("checks").get(0);
    assertThat(check.get("status").asText()).isEqualTo("fail");
    assertThat(check.get("instances").get(0).get("problems").get(0).get("message").asText())
        .isEqualTo("The app needs two replicas, it has 1.");
  }

  @Test
  void aCheckChangesNeitherTheDigestNorTheOrderOfThePlan() {
    Plan without =
        Scenario.config(
                """
                resource "stateful_provisioning" "app" {
                  state_key = "v1"
                }
                resource "stateful_provisioning" "web" {
                  state_key = "v1"
                }
                """)
            .plan()
            .plan();
    Plan with =
        Scenario.config(
                """
                resource "stateful_provisioning" "app" {
                  state_key = "v1"
                }
                resource "stateful_provisioning" "web" {
                  state_key = "v1"
                }
                check "web_after_app" {
                  assert {
                    condition     = stateful_provisioning.web.state_key == stateful_provisioning.app.state_key
                    error_message = "Versions differ."
                  }
                }
                """)
            .plan()
            .plan();
    assertThat(with.checks()).hasSize(1);
    assertThat(with.digest()).isEqualTo(without.digest());
    assertThat(with.actions()).isEqualTo(without.actions());
    assertThat(with.action("stateful_provisioning.web").orElseThrow().dependencies()).isEmpty();
  }

  @Test
  void aConditionUnknownAtPlanIsReportedAfterApply() throws Exception {
    PlanResult result = Scenario.config(config("stateful_provisioning.app.id == \"app-2\"")).plan();
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    assertThat(warnings(result))
        .containsExactly("Check block assertion known after apply @main.tf:9:21");
    assertThat(
            JSON.readTree(PlanJson.render(result.plan()))
                .get("checks")
                .get(0)
                .get("status")
                .asText())
        .isEqualTo("unknown");

    var failed =
        result
            .applyContext()
            .checkAfterApply(
                Map.of("stateful_provisioning.app", Map.of("id", "app-1", "state_key", "v1")));
    assertThat(failed.hasErrors()).isFalse();
    assertThat(failed.list())
        .extracting(d -> d.summary() + " @" + d.range())
        .containsExactly("Check block assertion failed @main.tf:9:21");
    assertThat(failed.list().get(0).detail())
        .startsWith("The app needs two replicas, it has 1.")
        .contains("after apply");

    assertThat(
            result
                .applyContext()
                .checkAfterApply(
                    Map.of("stateful_provisioning.app", Map.of("id", "app-2", "state_key", "v1")))
                .list())
        .isEmpty();
  }

  @Test
  void afterApplyInstancesNotAppliedInTheRunAreReadFromState() {
    PlanResult result =
        Scenario.config(config("stateful_provisioning.app.id == \"app-1\""))
            .state(
                resource(
                    "stateful_provisioning",
                    "app",
                    instance(null, "{\"id\":\"app-1\",\"state_key\":\"v1\"}")))
            .plan();
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    assertThat(result.diagnostics().list()).isEmpty();
    assertThat(result.applyContext().checkAfterApply(Map.of()).list()).isEmpty();
  }

  @Test
  void aConditionThatCannotBeDecidedIsAnErrorAtPlanAndAWarningAfterApply() {
    String config =
        """
        resource "stateful_provisioning" "app" {
          state_key = "v1"
        }
        check "typed" {
          assert {
            condition     = stateful_provisioning.app.id == "x" ? null : true
            error_message = "never"
          }
        }
        """;
    PlanResult known =
        Scenario.config(config)
            .state(
                resource(
                    "stateful_provisioning",
                    "app",
                    instance(null, "{\"id\":\"x\",\"state_key\":\"v1\"}")))
            .plan();
    assertThat(known.diagnostics().errors())
        .extracting(d -> d.summary() + " @" + d.range())
        .containsExactly("Invalid condition result @main.tf:6:21");

    PlanResult deferred = Scenario.config(config).plan();
    assertThat(deferred.hasErrors()).as(deferred.renderDiagnostics()).isFalse();
    var afterApply =
        deferred
            .applyContext()
            .checkAfterApply(
                Map.of("stateful_provisioning.app", Map.of("id", "x", "state_key", "v1")));
    assertThat(afterApply.hasErrors()).isFalse();
    assertThat(afterApply.list())
        .extracting(Diagnostic::summary)
        .containsExactly("Invalid condition result");
  }

  @Test
  void aCheckMayReferToDeclaredThingsOnly() {
    PlanResult result =
        Scenario.config(
                """
                locals {
                  name = "app"
                }
                check "refs" {
                  assert {
                    condition     = local.name != "" && var.missing != "" && null_resource.nope.id != ""
                    error_message = "x"
                  }
                }
                """)
            .plan();
    assertThat(result.diagnostics().errors())
        .extracting(d -> d.summary() + " @" + d.range())
        .containsExactly(
            "Reference to undeclared input variable @main.tf:6:41",
            "Reference to undeclared resource @main.tf:6:62");
  }

  @Test
  void aSensitiveErrorMessageIsNotShown() {
    PlanResult result =
        Scenario.config(
                """
                variable "password" {
                  default   = "hunter2"
                  sensitive = true
                }
                check "length" {
                  assert {
                    condition     = length(var.password) > 10
                    error_message = "The password ${var.password} is too short."
                  }
                }
                """)
            .plan();
    assertThat(result.renderDiagnostics()).doesNotContain("hunter2");
    assertThat(result.diagnostics().list())
        .extracting(Diagnostic::summary)
        .contains("Error message refers to sensitive values");
  }

  @Test
  void aDestroyPlanRunsNoChecks() {
    PlanResult result =
        Scenario.config(config("var.replicas >= 2"))
            .state(
                resource(
                    "stateful_provisioning",
                    "app",
                    instance(null, "{\"id\":\"app-1\",\"state_key\":\"v1\"}")))
            .destroy()
            .plan();
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    assertThat(result.diagnostics().list()).isEmpty();
    assertThat(result.plan().checks()).isEmpty();
    assertThat(PlanJson.toMap(result.plan())).doesNotContainKey("checks");
  }
}
