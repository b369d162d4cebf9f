package dev.stagecraft.planner.plan;

import static dev.stagecraft.planner.plan.ActionReason.DELETE_BECAUSE_NO_RESOURCE_CONFIG;
import static dev.stagecraft.planner.plan.ActionType.DELETE;
import static dev.stagecraft.planner.plan.ActionType.DELETE_THEN_CREATE;
import static dev.stagecraft.planner.plan.ActionType.NO_OP;
import static dev.stagecraft.planner.plan.Scenario.instance;
import static dev.stagecraft.planner.plan.Scenario.resource;
import static dev.stagecraft.planner.plan.Scenario.row;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.diag.Diagnostic;
import dev.stagecraft.planner.apply.ActionResolution;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code moved} blocks and Terraform's implied moves (issue 29 item 9): the object the state holds
 * at {@code from} is planned at {@code to}, nothing is destroyed or provisioned again by a move,
 * the plan says "has moved to" and its JSON carries {@code previous_address}; Terraform's errors
 * for invalid, ambiguous and cyclic moves, each at the moved block.
 */
class MovedBlocksTest {
  private static final String A1 =
      resource("null_resource", "a", instance(null, "{\"id\":\"111\",\"triggers\":{\"v\":\"1\"}}"));

  private static final String DEPLOY_B =
      """
      resource "null_resource" "b" {
        triggers = { v = "1" }
        provisioner "local-exec" { command = "deploy" }
      }
      """;

  @Test
  void aRenamedResourceMovesWithoutBeingDestroyedOrProvisionedAgain() {
    PlanResult result =
        Scenario.config(DEPLOY_B + "moved {\n  from = null_resource.a\n  to = null_resource.b\n}\n")
            .state(A1)
            .plan();

    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    Plan plan = result.plan();
    PlannedAction b = plan.action("null_resource.b").orElseThrow();
    assertThat(b.action()).isEqualTo(NO_OP);
    assertThat(b.previousAddress()).isEqualTo("null_resource.a");
    assertThat(b.wireAction()).isEqualTo("move");
    assertThat(plan.action("null_resource.a")).isEmpty();
    assertThat(plan.hasChanges()).as("a move is applied").isTrue();
    assertThat(PlanRenderer.render(plan))
        .contains("  # null_resource.a has moved to null_resource.b\n")
        .contains("Plan: 0 to add, 0 to change, 0 to destroy.");
    assertThat(PlanJson.render(plan))
        .contains("\"address\":\"null_resource.b\"")
        .contains("\"previous_address\":\"null_resource.a\"")
        .contains("\"actions\":[\"no-op\"]");
    ActionResolution resolution =
        result.applyContext().resolve(b, Map.of(), () -> "must-not-be-used");
    assertThat(resolution.steps()).as("a move runs no step").isEmpty();
    assertThat(resolution.attributes()).containsEntry("id", "111");
  }

  @Test
  void aMovedInstanceWhoseTriggersChangedIsReplacedAtItsNewAddress() {
    PlanResult result =
        Scenario.config(
                DEPLOY_B.replace("v = \"1\"", "v = \"2\"")
                    + "moved {\n  from = null_resource.a\n  to = null_resource.b\n}\n")
            .state(A1)
            .plan();

    PlannedAction b = result.plan().action("null_resource.b").orElseThrow();
    assertThat(b.action()).isEqualTo(DELETE_THEN_CREATE);
    assertThat(b.previousAddress()).isEqualTo("null_resource.a");
    assertThat(b.wireAction()).isEqualTo("replace");
    assertThat(PlanRenderer.render(result.plan()))
        .contains("  # null_resource.b must be replaced\n  # (moved from null_resource.a)\n");
  }

  @Test
  void countIndexesMoveToForEachKeysAndChainedMovesGoAllTheWay() {
    String state =
        resource(
            "null_resource",
            "node",
            instance(0, "{\"id\":\"n0\",\"triggers\":{\"n\":\"x\"}}"),
            instance(1, "{\"id\":\"n1\",\"triggers\":{\"n\":\"y\"}}"));
    Plan plan =
        Scenario.config(
                """
                resource "null_resource" "host" {
                  for_each = toset(["x", "y"])
                  triggers = { n = each.key }
                }
                moved {
                  from = null_resource.node[0]
                  to   = null_resource.server["x"]
                }
                moved {
                  from = null_resource.server["x"]
                  to   = null_resource.host["x"]
                }
                moved {
                  from = null_resource.node[1]
                  to   = null_resource.host["y"]
                }
                """)
            .state(state)
            .expect(
                row("null_resource.host[\"x\"]", NO_OP), row("null_resource.host[\"y\"]", NO_OP));
    assertThat(plan.action("null_resource.host[\"x\"]").orElseThrow().previousAddress())
        .isEqualTo("null_resource.node[0]");
    assertThat(plan.action("null_resource.host[\"y\"]").orElseThrow().previousAddress())
        .isEqualTo("null_resource.node[1]");
    assertThat(plan.toAdd() + plan.toDestroy()).isZero();
  }

  @Test
  void addingOrRemovingCountMovesTheInstanceImplicitlyAsTerraformDoes() {
    Plan counted =
        Scenario.config(
                "resource \"null_resource\" \"a\" {\n  count = 1\n  triggers = { v = \"1\" }\n}\n")
            .state(A1)
            .expect(row("null_resource.a[0]", NO_OP));
    assertThat(counted.action("null_resource.a[0]").orElseThrow().previousAddress())
        .isEqualTo("null_resource.a");

    Plan single =
        Scenario.config("resource \"null_resource\" \"a\" {\n  triggers = { v = \"1\" }\n}\n")
            .state(
                resource(
                    "null_resource",
                    "a",
                    instance(0, "{\"id\":\"111\",\"triggers\":{\"v\":\"1\"}}")))
            .expect(row("null_resource.a", NO_OP));
    assertThat(single.action("null_resource.a").orElseThrow().previousAddress())
        .isEqualTo("null_resource.a[0]");
  }

  @Test
  void aNullResourceMovesToTerraformDataWithItsTriggersAsTriggersReplace() {
    Plan plan =
        Scenario.config(
                """
                resource "terraform_data" "b" {
                  triggers_replace = { v = "1" }
                }
                moved {
                  from = null_resource.a
                  to   = terraform_data.b
                }
                """)
            .state(A1)
            .expect(row("terraform_data.b", NO_OP));
    PlannedAction b = plan.action("terraform_data.b").orElseThrow();
    assertThat(b.previousAddress()).isEqualTo("null_resource.a");
    assertThat(b.before()).containsEntry("id", "111").containsKey("triggers_replace");
  }

  @Test
  void aMoveOntoAnObjectTheStateHoldsIsNotMadeAndSaysSo() {
    String both =
        A1
            + ","
            + resource(
                "null_resource",
                "b",
                instance(null, "{\"id\":\"222\",\"triggers\":{\"v\":\"1\"}}"));
    PlanResult result =
        Scenario.config(DEPLOY_B + "moved {\n  from = null_resource.a\n  to = null_resource.b\n}\n")
            .state(both)
            .plan();

    assertThat(result.hasErrors()).isFalse();
    assertThat(result.plan().action("null_resource.a").orElseThrow())
        .satisfies(
            a -> {
              assertThat(a.action()).isEqualTo(DELETE);
              assertThat(a.reason()).isEqualTo(DELETE_BECAUSE_NO_RESOURCE_CONFIG);
            });
    assertThat(result.plan().action("null_resource.b").orElseThrow().previousAddress()).isNull();
    assertThat(result.diagnostics().list())
        .anySatisfy(
            d -> {
              assertThat(d.summary()).isEqualTo("Unresolved resource instance address changes");
              assertThat(d.detail()).contains("null_resource.a could not move to null_resource.b");
            });
  }

  @Test
  void aMovedBlockWithNothingToMoveChangesNothing() {
    PlanResult result =
        Scenario.config(
                DEPLOY_B + "moved {\n  from = null_resource.gone\n  to = null_resource.b\n}\n")
            .state(
                resource(
                    "null_resource",
                    "b",
                    instance(null, "{\"id\":\"2\",\"triggers\":{\"v\":\"1\"}}")))
            .plan();
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    assertThat(result.plan().hasChanges()).isFalse();
  }

  @Test
  void invalidMovesAreTerraformsErrorsAtTheMovedBlock() {
    assertError(
        DEPLOY_B
            + "resource \"null_resource\" \"a\" {}\n"
            + "moved {\n  from = null_resource.a\n  to = null_resource.b\n}\n",
        "Moved object still exists",
        "This statement declares a move from null_resource.a, but that resource is still declared"
            + " at main.tf:5:1. Change your configuration so that this resource will be declared"
            + " as null_resource.b instead.",
        6);
    assertError(
        DEPLOY_B
            + "moved {\n  from = null_resource.a\n  to = null_resource.b\n}\n"
            + "moved {\n  from = null_resource.a\n  to = null_resource.c\n}\n",
        "Ambiguous move statements",
        "A statement at main.tf:5:1 declared that null_resource.a moved to null_resource.b, but"
            + " this statement instead declares that it moved to null_resource.c.",
        9);
    assertError(
        DEPLOY_B
            + "moved {\n  from = null_resource.a\n  to = null_resource.b\n}\n"
            + "moved {\n  from = null_resource.c\n  to = null_resource.b\n}\n",
        "Ambiguous move statements",
        "but this statement instead declares that null_resource.c moved there",
        9);
    assertError(
        DEPLOY_B
            + "moved {\n  from = null_resource.x\n  to = null_resource.y\n}\n"
            + "moved {\n  from = null_resource.y\n  to = null_resource.x\n}\n",
        "Cyclic dependency in move statements",
        "  - main.tf:5:1: null_resource.x → null_resource.y\n"
            + "  - main.tf:9:1: null_resource.y → null_resource.x",
        5);
    assertError(
        DEPLOY_B + "moved {\n  from = null_resource.b\n  to = null_resource.b\n}\n",
        "Redundant move statement",
        "null_resource.b to the same address",
        5);
    assertError(
        DEPLOY_B + "moved {\n  from = terraform_data.a\n  to = null_resource.b\n}\n",
        "Resource type mismatch",
        "from terraform_data.a to null_resource.b, which is a resource of a different type",
        5);
    assertError(
        DEPLOY_B + "moved {\n  from = module.old.null_resource.a\n  to = module.new\n}\n",
        "Invalid \"moved\" addresses",
        "both refer to resources or both refer to modules; this statement moves"
            + " module.old.null_resource.a to module.new",
        5);
    assertError(
        DEPLOY_B + "moved {\n  from = null_resource.a.id\n  to = null_resource.b\n}\n",
        "Invalid address",
        "null_resource.app[\"eu\"]",
        6);
    assertError(
        DEPLOY_B + "moved {\n  from = null_resource.a\n}\n",
        "Missing required argument",
        "\"to\" is missing",
        5);
  }

  @Test
  void validateChecksMovedBlocksToo() {
    List<Diagnostic> diagnostics =
        Planner.validate(
                Map.of(
                    "main.tf",
                    DEPLOY_B + "moved {\n  from = null_resource.b\n  to = null_resource.b\n}\n"),
                null)
            .list();
    assertThat(diagnostics)
        .anySatisfy(d -> assertThat(d.summary()).isEqualTo("Redundant move statement"));
  }

  private static void assertError(String config, String summary, String detail, int line) {
    PlanResult result = Scenario.config(config).state(A1).plan();
    assertThat(result.plan()).as(config).isNull();
    assertThat(result.diagnostics().list())
        .as(result.renderDiagnostics())
        .anySatisfy(
            d -> {
              assertThat(d.summary()).isEqualTo(summary);
              assertThat(d.detail()).contains(detail);
              assertThat(d.range()).isNotNull();
              assertThat(d.range().file()).isEqualTo("main.tf");
              assertThat(d.range().line()).isEqualTo(line);
            });
  }
}
