package dev.stagecraft.planner.plan;

import static dev.stagecraft.planner.plan.Scenario.instance;
import static dev.stagecraft.planner.plan.Scenario.resource;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code null_resource}'s {@code triggers} is a map of strings, as Terraform's null provider has
 * it: numbers and bools are planned as strings, so a state Terraform wrote plans no change, and so
 * does one Stagecraft wrote with numbers before.
 */
class NullResourceTriggersTest {
  private static final String CONFIG =
      """
      resource "null_resource" "app" {
        triggers = { port = 2222, on = true, name = "web", ratio = 1.50 }
      }
      """;

  @Test
  void numbersAndBoolsArePlannedAsStrings() {
    PlanResult result = Scenario.config(CONFIG).plan();

    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    assertThat(result.plan().action("null_resource.app").orElseThrow().after().get("triggers"))
        .isEqualTo(Map.of("port", "2222", "on", "true", "name", "web", "ratio", "1.5"));
  }

  @Test
  void aStateTerraformWroteAndOneWithNumbersBothPlanNoChange() {
    String terraform =
        resource(
            "null_resource",
            "app",
            instance(
                null,
                "{\"id\":\"1\",\"triggers\":{\"port\":\"2222\",\"on\":\"true\",\"name\":\"web\","
                    + "\"ratio\":\"1.5\"}}"));
    String numbers =
        resource(
            "null_resource",
            "app",
            instance(
                null,
                "{\"id\":\"1\",\"triggers\":{\"port\":2222,\"on\":true,\"name\":\"web\","
                    + "\"ratio\":1.50}}"));

    for (String state : new String[] {terraform, numbers}) {
      PlanResult result = Scenario.config(CONFIG).state(state).plan();
      assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
      assertThat(result.plan().changes()).as(state).isEmpty();
    }
    PlanResult changed = Scenario.config(CONFIG.replace("2222", "2223")).state(numbers).plan();
    assertThat(changed.plan().changes())
        .extracting(PlannedAction::action)
        .containsExactly(ActionType.DELETE_THEN_CREATE);
  }

  @Test
  void aListInTriggersIsAnErrorAtTheArgument() {
    PlanResult result =
        Scenario.config(
                """
                resource "null_resource" "app" {
                  triggers = { hosts = ["a", "b"] }
                }
                """)
            .plan();

    assertThat(result.diagnostics().errors())
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.summary()).isEqualTo("Incorrect attribute value type");
              assertThat(d.detail()).contains("\"triggers\"", "hosts", "jsonencode()");
              assertThat(d.range().toString()).isEqualTo("main.tf:2:14");
            });
  }
}
