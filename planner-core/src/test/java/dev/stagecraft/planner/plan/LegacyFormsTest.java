package dev.stagecraft.planner.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.diag.Diagnostic;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Forms Terraform still accepts from older configurations (issue 29, item 2): a bare {@code list}
 * or {@code map} type, quoted references in {@code depends_on} and {@code ignore_changes} (with
 * Terraform's deprecation warning), and {@code depends_on} naming an input variable or a local
 * value. Each quoted or indirect reference is a real dependency: closing a loop through one is a
 * cycle.
 */
class LegacyFormsTest {

  private static PlanResult plan(String config) {
    Map<String, String> files = Map.of("main.tf", config);
    return Planner.plan(
        new PlanRequest("default", files, Map.of(), List.of(), false, null), PriorState.empty());
  }

  private static List<String> warnings(PlanResult result) {
    return result.diagnostics().list().stream()
        .filter(d -> !d.isError())
        .map(d -> d.summary() + " @" + d.range())
        .toList();
  }

  @Test
  void aBareListOrMapTypeIsListOfAnyOrMapOfAny() {
    PlanResult result =
        plan(
            """
            variable "nodes" {
              type    = list
              default = ["a", "b"]
            }
            variable "tags" {
              type    = map
              default = { team = "ops" }
            }
            resource "stateful_provisioning" "node" {
              count     = length(var.nodes)
              state_key = "${var.nodes[count.index]}-${var.tags["team"]}"
            }
            """);
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    assertThat(result.diagnostics().list()).isEmpty();
    assertThat(result.plan().toAdd()).isEqualTo(2);
  }

  @Test
  void aQuotedDependsOnIsAReferenceWithTerraformsDeprecationWarning() {
    PlanResult ok =
        plan(
            """
            resource "stateful_provisioning" "a" { state_key = "1" }
            resource "stateful_provisioning" "b" {
              state_key  = "1"
              depends_on = ["stateful_provisioning.a"]
            }
            """);
    assertThat(ok.hasErrors()).as(ok.renderDiagnostics()).isFalse();
    assertThat(warnings(ok)).containsExactly("Quoted references are deprecated @main.tf:4:17");

    PlanResult cycle =
        plan(
            """
            resource "stateful_provisioning" "a" {
              state_key  = "1"
              depends_on = [stateful_provisioning.b]
            }
            resource "stateful_provisioning" "b" {
              state_key  = "1"
              depends_on = ["stateful_provisioning.a"]
            }
            """);
    assertThat(cycle.diagnostics().errors())
        .extracting(Diagnostic::summary)
        .anyMatch(s -> s.startsWith("Cycle:"));
  }

  @Test
  void aQuotedReferenceToAnUndeclaredResourceIsStillAnError() {
    PlanResult result =
        plan(
            """
            resource "stateful_provisioning" "b" {
              state_key  = "1"
              depends_on = ["stateful_provisioning.missing"]
            }
            """);
    assertThat(result.diagnostics().errors())
        .extracting(d -> d.summary() + " @" + d.range())
        .containsExactly("Reference to undeclared resource @main.tf:3:18");
  }

  @Test
  void aQuotedIgnoreChangesIsAnAttributeWithTerraformsDeprecationWarning() {
    PlanResult result =
        plan(
            """
            resource "null_resource" "a" {
              triggers = { v = "1" }
              lifecycle {
                ignore_changes = ["triggers"]
              }
            }
            """);
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    assertThat(warnings(result)).containsExactly("Quoted references are deprecated @main.tf:4:23");
  }

  @Test
  void dependsOnMayNameAnInputVariableOrALocalValueAndALocalCarriesItsDependencies() {
    PlanResult ok =
        plan(
            """
            variable "release" { default = "r1" }
            locals { target = stateful_provisioning.a.id }
            resource "stateful_provisioning" "a" { state_key = "1" }
            resource "stateful_provisioning" "b" {
              state_key  = "1"
              depends_on = [var.release, local.target]
            }
            """);
    assertThat(ok.hasErrors()).as(ok.renderDiagnostics()).isFalse();
    assertThat(ok.plan().toAdd()).isEqualTo(2);

    PlanResult cycle =
        plan(
            """
            locals { target = stateful_provisioning.a.id }
            resource "stateful_provisioning" "a" {
              state_key  = "1"
              depends_on = [stateful_provisioning.b]
            }
            resource "stateful_provisioning" "b" {
              state_key  = "1"
              depends_on = [local.target]
            }
            """);
    assertThat(cycle.diagnostics().errors())
        .extracting(Diagnostic::summary)
        .anyMatch(s -> s.startsWith("Cycle:"));
  }
}
