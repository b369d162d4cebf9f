package dev.stagecraft.planner.apply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.planner.plan.PlanRequest;
import dev.stagecraft.planner.plan.PlanResult;
import dev.stagecraft.planner.plan.PlannedAction;
import dev.stagecraft.planner.plan.Planner;
import dev.stagecraft.planner.plan.PriorState;
import dev.stagecraft.schemas.action.ProvisionerStep;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ApplyContextTest {
  static final String CONFIG =
      """
      variable "password" {
        default = "hunter2"
        sensitive = true
      }
      resource "stateful_provisioning" "db" {
        state_key = "v1"
      }
      resource "stateful_provisioning" "app" {
        state_key = "v1"
        provisioner "local-exec" {
          command = "deploy --db=${stateful_provisioning.db.id} --pw=${var.password}"
          environment = { REV = "v1" }
          working_dir = "/tmp"
        }
        provisioner "local-exec" {
          when = destroy
          command = "echo bye ${self.id}"
        }
      }
      """;

  @Test
  void resolvesIdsOfResourcesAppliedEarlierInTheRunAndMarksSensitiveValues() {
    PlanResult result =
        Planner.plan(
            new PlanRequest("default", Map.of("main.tf", CONFIG), Map.of(), List.of(), false, null),
            PriorState.empty());
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    PlannedAction app = result.plan().action("stateful_provisioning.app").orElseThrow();
    Map<String, Map<String, Object>> applied = new LinkedHashMap<>();
    applied.put("stateful_provisioning.db", Map.of("id", "42", "state_key", "v1"));
    ActionResolution resolution = result.applyContext().resolve(app, applied, () -> "777");
    assertThat(resolution.hasErrors()).as(resolution.renderDiagnostics()).isFalse();
    assertThat(resolution.attributes()).containsEntry("id", "777").containsEntry("state_key", "v1");
    assertThat(resolution.steps()).hasSize(1);
    ProvisionerStep step = resolution.steps().get(0);
    assertThat(step.command()).isEqualTo("deploy --db=42 --pw=hunter2");
    assertThat(step.sensitive()).isTrue();
    assertThat(step.environment()).containsEntry("REV", "v1");
    assertThat(step.workingDir()).isEqualTo("/tmp");
    assertThat(step.when()).isEqualTo("create");
    assertThat(resolution.sensitiveValues()).contains("hunter2");
  }
}
