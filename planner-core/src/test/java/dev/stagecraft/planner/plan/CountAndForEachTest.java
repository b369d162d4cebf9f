package dev.stagecraft.planner.plan;

import static dev.stagecraft.planner.plan.ActionReason.DELETE_BECAUSE_COUNT_INDEX;
import static dev.stagecraft.planner.plan.ActionReason.DELETE_BECAUSE_EACH_KEY;
import static dev.stagecraft.planner.plan.ActionReason.DELETE_BECAUSE_WRONG_REPETITION;
import static dev.stagecraft.planner.plan.ActionReason.REPLACE_BECAUSE_CANNOT_UPDATE;
import static dev.stagecraft.planner.plan.ActionType.CREATE;
import static dev.stagecraft.planner.plan.ActionType.DELETE;
import static dev.stagecraft.planner.plan.ActionType.DELETE_THEN_CREATE;
import static dev.stagecraft.planner.plan.ActionType.NO_OP;
import static dev.stagecraft.planner.plan.Scenario.instance;
import static dev.stagecraft.planner.plan.Scenario.resource;
import static dev.stagecraft.planner.plan.Scenario.row;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.diag.Diagnostic;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Rule 1: count and for_each give one action per instance; the graph stays per resource. */
class CountAndForEachTest {

  @Test
  void countCreatesOneInstancePerIndexWithCountIndex() {
    Plan plan =
        Scenario.config(
                """
                resource "stateful_provisioning" "web" {
                  count     = 2
                  state_key = "v1-${count.index}"
                }
                """)
            .expect(
                row("stateful_provisioning.web[0]", CREATE),
                row("stateful_provisioning.web[1]", CREATE));
    assertThat(plan.action("stateful_provisioning.web[1]").orElseThrow().after())
        .containsEntry("state_key", "v1-1");
    assertThat(PlanJson.render(plan)).contains("\"index\":1");
  }

  @Test
  void forEachCreatesOneInstancePerKeyWithEachKeyAndEachValue() {
    Plan plan =
        Scenario.config(
                """
                resource "stateful_provisioning" "site" {
                  for_each  = { blue = "b1", green = "g1" }
                  state_key = "${each.key}=${each.value}"
                }
                """)
            .expect(
                row("stateful_provisioning.site[\"blue\"]", CREATE),
                row("stateful_provisioning.site[\"green\"]", CREATE));
    assertThat(plan.action("stateful_provisioning.site[\"green\"]").orElseThrow().after())
        .containsEntry("state_key", "green=g1");
    assertThat(PlanJson.render(plan)).contains("\"index\":\"green\"");
  }

  @Test
  void forEachAcceptsASetOfStrings() {
    Scenario.config(
            """
            resource "stateful_provisioning" "site" {
              for_each  = toset(["a", "b", "a"])
              state_key = each.value
            }
            """)
        .expect(
            row("stateful_provisioning.site[\"a\"]", CREATE),
            row("stateful_provisioning.site[\"b\"]", CREATE));
  }

  @Test
  void referencesToACountedResourceGiveAListAndSplatWorks() {
    Plan plan =
        Scenario.config(
                """
                resource "stateful_provisioning" "web" {
                  count     = 2
                  state_key = "w${count.index}"
                }
                resource "stateful_provisioning" "lb" {
                  state_key = join(",", stateful_provisioning.web[*].state_key)
                  tags      = { first = stateful_provisioning.web[0].state_key, n = length(stateful_provisioning.web) }
                }
                """)
            .expect(
                row("stateful_provisioning.web[0]", CREATE),
                row("stateful_provisioning.web[1]", CREATE),
                row("stateful_provisioning.lb", CREATE));
    PlannedAction lb = plan.action("stateful_provisioning.lb").orElseThrow();
    assertThat(lb.after()).containsEntry("state_key", "w0,w1");
    assertThat(lb.after().get("tags").toString()).contains("first=w0");
    // a repeated resource is waited for as a whole: all of its changed instances
    assertThat(lb.waitFor()).containsExactly("stateful_provisioning.web");
    assertThat(lb.dependencies()).containsExactly("stateful_provisioning.web");
  }

  @Test
  void referencesToAForEachResourceGiveAMap() {
    Plan plan =
        Scenario.config(
                """
                resource "stateful_provisioning" "site" {
                  for_each  = { a = 1, b = 2 }
                  state_key = "s-${each.key}"
                }
                resource "stateful_provisioning" "all" {
                  state_key = join(",", [for k, s in stateful_provisioning.site : "${k}:${s.state_key}"])
                }
                """)
            .expect(
                row("stateful_provisioning.site[\"a\"]", CREATE),
                row("stateful_provisioning.site[\"b\"]", CREATE),
                row("stateful_provisioning.all", CREATE));
    assertThat(plan.action("stateful_provisioning.all").orElseThrow().after())
        .containsEntry("state_key", "a:s-a,b:s-b");
  }

  @Test
  void stateInstancesAreMatchedByAddressAndThoseThatDisappearAreDeleted() {
    Scenario.config(
            """
            resource "stateful_provisioning" "web" {
              count     = 2
              state_key = "v1"
            }
            resource "stateful_provisioning" "site" {
              for_each  = toset(["a"])
              state_key = "v2"
            }
            """)
        .state(
            resource(
                "stateful_provisioning",
                "web",
                instance(0, "{\"id\":\"1\",\"state_key\":\"v1\"}"),
                instance(1, "{\"id\":\"2\",\"state_key\":\"old\"}"),
                instance(2, "{\"id\":\"3\",\"state_key\":\"v1\"}")),
            resource(
                "stateful_provisioning",
                "site",
                instance("a", "{\"id\":\"4\",\"state_key\":\"v2\"}"),
                instance("b", "{\"id\":\"5\",\"state_key\":\"v2\"}")))
        .expect(
            row("stateful_provisioning.web[0]", NO_OP),
            row("stateful_provisioning.web[1]", DELETE_THEN_CREATE, REPLACE_BECAUSE_CANNOT_UPDATE),
            row("stateful_provisioning.web[2]", DELETE, DELETE_BECAUSE_COUNT_INDEX),
            row("stateful_provisioning.site[\"a\"]", NO_OP),
            row("stateful_provisioning.site[\"b\"]", DELETE, DELETE_BECAUSE_EACH_KEY));
  }

  @Test
  void anInstanceWithoutKeyMovesToIndexZeroWhenTheResourceStartsUsingCountAsInTerraform() {
    Plan plan =
        Scenario.config(
                """
                resource "stateful_provisioning" "web" {
                  count     = 2
                  state_key = "v1"
                }
                """)
            .state(
                resource(
                    "stateful_provisioning",
                    "web",
                    instance(null, "{\"id\":\"1\",\"state_key\":\"v1\"}")))
            .expect(
                row("stateful_provisioning.web[0]", NO_OP),
                row("stateful_provisioning.web[1]", CREATE));
    assertThat(plan.action("stateful_provisioning.web[0]").orElseThrow().previousAddress())
        .isEqualTo("stateful_provisioning.web");
  }

  @Test
  void anInstanceWithoutKeyIsDeletedWhenTheResourceStartsUsingForEach() {
    Scenario.config(
            """
            resource "stateful_provisioning" "web" {
              for_each  = toset(["a"])
              state_key = "v1"
            }
            """)
        .state(
            resource(
                "stateful_provisioning",
                "web",
                instance(null, "{\"id\":\"1\",\"state_key\":\"v1\"}")))
        .expect(
            row("stateful_provisioning.web[\"a\"]", CREATE),
            row("stateful_provisioning.web", DELETE, DELETE_BECAUSE_WRONG_REPETITION));
  }

  @Test
  void shrinkingCountRendersTheReason() {
    PlanResult result =
        Scenario.config(
                """
                resource "stateful_provisioning" "web" {
                  count     = 0
                  state_key = "v1"
                }
                """)
            .state(
                resource(
                    "stateful_provisioning",
                    "web",
                    instance(0, "{\"id\":\"1\",\"state_key\":\"v1\"}")))
            .plan();
    assertThat(PlanRenderer.render(result.plan()))
        .contains("# stateful_provisioning.web[0] will be destroyed")
        .contains("# (because index [0] is out of range for count)");
    assertThat(PlanJson.render(result.plan()))
        .contains("\"action_reason\":\"delete_because_count_index\"");
  }

  @Test
  void unknownCountIsADiagnosticWithPosition() {
    PlanResult result =
        Scenario.config(
                """
                resource "stateful_provisioning" "db" {
                  state_key = "x"
                }
                resource "stateful_provisioning" "web" {
                  count     = length(stateful_provisioning.db.id)
                  state_key = "v1"
                }
                resource "stateful_provisioning" "site" {
                  for_each  = { (stateful_provisioning.db.id) = 1 }
                  state_key = "v1"
                }
                """)
            .plan();
    assertThat(result.hasErrors()).isTrue();
    assertThat(result.diagnostics().errors())
        .extracting(Diagnostic::summary, d -> d.range().toString())
        .contains(
            org.assertj.core.groups.Tuple.tuple("Invalid count argument", "main.tf:5:15"),
            org.assertj.core.groups.Tuple.tuple("Invalid for_each argument", "main.tf:9:15"));
  }

  @Test
  void countIndexOutsideACountedResourceIsAnError() {
    PlanResult result =
        Scenario.config(
                """
                resource "stateful_provisioning" "web" {
                  state_key = "v${count.index}"
                }
                """)
            .plan();
    assertThat(result.diagnostics().errors())
        .extracting(Diagnostic::summary)
        .contains("Reference to \"count\" in non-counted context");
  }

  @Test
  void validateAcceptsCountFromAVariableWithoutValue() {
    assertThat(
            Planner.validate(
                    Map.of(
                        "main.tf",
                        """
                        variable "n" {}
                        resource "stateful_provisioning" "web" {
                          count     = var.n
                          state_key = "v${count.index}"
                        }
                        """),
                    null)
                .hasErrors())
        .isFalse();
  }

  @Test
  void countConvertsANumericStringToANumberAsTerraformDoes() {
    PlanResult result =
        Planner.plan(
            new PlanRequest(
                "default",
                java.util.Map.of(
                    "main.tf",
                    """
                    variable "n" {}
                    resource "stateful_provisioning" "p" {
                      count     = var.n
                      state_key = "x"
                    }
                    """),
                java.util.Map.of("n", "2"),
                java.util.List.of(),
                false,
                null),
            PriorState.empty());
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    assertThat(result.plan().actions())
        .extracting(PlannedAction::address)
        .containsExactly("stateful_provisioning.p[0]", "stateful_provisioning.p[1]");
  }
}
