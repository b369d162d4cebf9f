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

  @Test
  void resolvesCountedInstancesWithCountIndexAndAppliedSiblingsAsAList() {
    String config =
        """
        resource "stateful_provisioning" "web" {
          count     = 2
          state_key = "w${count.index}"
        }
        locals {
          ids = join(",", stateful_provisioning.web[*].id)
        }
        resource "stateful_provisioning" "lb" {
          state_key = "v1"
          provisioner "local-exec" {
            command = "register ${local.ids}"
          }
        }
        """;
    PlanResult result =
        Planner.plan(
            new PlanRequest("default", Map.of("main.tf", config), Map.of(), List.of(), false, null),
            PriorState.empty());
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    Map<String, Map<String, Object>> applied = new LinkedHashMap<>();
    ActionResolution web1 =
        result
            .applyContext()
            .resolve(
                result.plan().action("stateful_provisioning.web[1]").orElseThrow(),
                applied,
                () -> "i1");
    assertThat(web1.attributes()).containsEntry("state_key", "w1").containsEntry("id", "i1");
    applied.put("stateful_provisioning.web[0]", Map.of("id", "i0", "state_key", "w0"));
    applied.put("stateful_provisioning.web[1]", web1.attributes());
    ActionResolution lb =
        result
            .applyContext()
            .resolve(
                result.plan().action("stateful_provisioning.lb").orElseThrow(), applied, () -> "x");
    assertThat(lb.hasErrors()).as(lb.renderDiagnostics()).isFalse();
    assertThat(lb.steps()).extracting(ProvisionerStep::command).containsExactly("register i0,i1");
  }
}
