package dev.stagecraft.planner.plan;

import static dev.stagecraft.planner.plan.Scenario.instance;
import static dev.stagecraft.planner.plan.Scenario.resource;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link PlanComparison}: what differs between two plans — changes added or removed, actions,
 * reasons, attributes (by name only), order, outputs, the state planned against — with no value in
 * its text, and nothing when the plans have the same digest.
 */
class PlanComparisonTest {
  private static final String SECRET = "s3cret-Vb27";

  private static final String STATE =
      "{\"version\":4,\"serial\":7,\"lineage\":\"l-1\",\"outputs\":{"
          + "\"url\":{\"value\":\"http://old\",\"type\":\"string\"}},\"resources\":["
          + resource(
              "stateful_provisioning", "app", instance(null, "{\"id\":\"1\",\"state_key\":\"v1\"}"))
          + ","
          + resource(
              "stateful_provisioning", "old", instance(null, "{\"id\":\"2\",\"state_key\":\"v1\"}"))
          + "]}";

  private static Plan plan(String config, Map<String, String> vars, String state) {
    PlanResult result = Scenario.config(config, vars).rawState(state).plan();
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    return result.plan();
  }

  private static String config(String appKey, String extra) {
    return """
        variable "pw" {
          sensitive = true
        }
        resource "stateful_provisioning" "app" {
          state_key = "%s"
        }
        resource "terraform_data" "secret" {
          input = var.pw
        }
        resource "stateful_provisioning" "old" {
          state_key = "v1"
        }
        output "url" { value = "http://${stateful_provisioning.app.state_key}" }
        output "pw" {
          value     = var.pw
          sensitive = true
        }
        %s
        """
        .formatted(appKey, extra);
  }

  @Test
  void plansWithTheSameDigestHaveNoDifference() {
    Plan a = plan(config("v1", ""), Map.of("pw", SECRET), STATE);
    Plan b = plan(config("v1", ""), Map.of("pw", SECRET), STATE);

    assertThat(a.digest()).isEqualTo(b.digest());
    PlanComparison same = PlanComparison.between(a, b);
    assertThat(same.same()).isTrue();
    assertThat(same.describe()).isEmpty();
  }

  @Test
  void namesTheChangesThatDifferWithTheirActionsAndReasonsButNoValue() {
    Plan saved = plan(config("v1", ""), Map.of("pw", SECRET), STATE);
    Plan now =
        plan(
            config("v2", "resource \"null_resource\" \"extra\" {}")
                .replace(
                    """
                    resource "stateful_provisioning" "old" {
                      state_key = "v1"
                    }
                    """,
                    ""),
            Map.of("pw", SECRET + "-rotated"),
            STATE);

    PlanComparison diff = PlanComparison.between(saved, now);

    assertThat(diff.differences())
        .extracting(PlanComparison.Difference::text)
        .containsExactly(
            "stateful_provisioning.app: no change -> replace (delete, then create) because"
                + " replace_because_cannot_update",
            "null_resource.extra: not planned -> create",
            "stateful_provisioning.old: no change -> delete because"
                + " delete_because_no_resource_config",
            "output.url: update (known) -> update (known), another value (not shown here)");
    assertThat(diff.describe())
        .startsWith("  stateful_provisioning.app: no change -> replace")
        .doesNotContain(SECRET)
        .doesNotContain("http://")
        .doesNotContain("\"v2\"");
  }

  @Test
  void theSameActionWithOtherValuesNamesTheAttributesNotTheValues() {
    String config = "resource \"null_resource\" \"n\" { triggers = { a = \"%s\" } }";
    Plan saved = plan(config.formatted("first-Wq1"), Map.of(), STATE);
    Plan now = plan(config.formatted("second-Wq2"), Map.of(), STATE);

    PlanComparison diff = PlanComparison.between(saved, now);

    assertThat(diff.describe())
        .contains(
            "  null_resource.n: other values -> values that differ in triggers (not shown here)")
        .doesNotContain("first-Wq1")
        .doesNotContain("second-Wq2");
  }

  @Test
  void theChangeDocumentsOfAnApprovedPlanAndOfThePlanMadeAgainSayHowEachChangeDiffers() {
    String config =
        """
        resource "stateful_provisioning" "db" { state_key = "v1" }
        resource "stateful_provisioning" "app" {
          state_key  = "%s"
          depends_on = [%s]
        }
        %s
        """;
    Plan approved = plan(config.formatted("v2", "stateful_provisioning.db", ""), Map.of(), STATE);
    Plan again =
        plan(
            config.formatted(
                "v2",
                "",
                "resource \"null_resource\" \"extra\" {}\n"
                    + "resource \"stateful_provisioning\" \"old\" { state_key = \"v2\" }"),
            Map.of(),
            STATE);

    PlanComparison diff =
        PlanComparison.betweenChangeDocuments(approved.changeDocuments(), again.changeDocuments());

    assertThat(diff.differences())
        .extracting(PlanComparison.Difference::text)
        .containsExactly(
            "null_resource.extra: not approved -> create",
            "stateful_provisioning.app: depends on stateful_provisioning.db -> depends on nothing",
            "stateful_provisioning.old: delete because delete_because_no_resource_config ->"
                + " replace (delete, then create) because replace_because_cannot_update");
    assertThat(
            PlanComparison.betweenChangeDocuments(
                    approved.changeDocuments(), approved.changeDocuments())
                .same())
        .isTrue();
    assertThat(
            PlanComparison.betweenChangeDocuments(
                    Map.of("x.y", "{\"change\":{}}"), Map.of("x.y", "{}"))
                .describe())
        .contains(
            "x.y: a change document that cannot be read (not a plan document: approved.mode:");
  }

  @Test
  void aDifferentReasonForTheSameActionIsADifference() {
    String state =
        "{\"version\":4,\"serial\":7,\"lineage\":\"l-1\",\"outputs\":{},\"resources\":["
            + resource(
                "stateful_provisioning",
                "app",
                instance(null, "{\"id\":\"1\",\"state_key\":\"v1\"}", "\"status\":\"tainted\""))
            + "]}";
    String config = "resource \"stateful_provisioning\" \"app\" { state_key = \"v1\" }";
    Plan tainted = plan(config, Map.of(), state);
    Plan requested =
        Scenario.config(config)
            .rawState(state.replace(",\"status\":\"tainted\"", ""))
            .replace("stateful_provisioning.app")
            .plan()
            .plan();

    assertThat(PlanComparison.between(tainted, requested).differences())
        .extracting(PlanComparison.Difference::text)
        .containsExactly(
            "stateful_provisioning.app: replace (delete, then create) because"
                + " replace_because_tainted -> replace (delete, then create) because"
                + " replace_by_request");
  }

  @Test
  void theStatePlannedAgainstModeAndOrderAreDifferences() {
    String config =
        """
        resource "stateful_provisioning" "db" { state_key = "v1" }
        resource "stateful_provisioning" "app" {
          state_key  = "v1"
          depends_on = [stateful_provisioning.db]
        }
        """;
    Plan first = plan(config, Map.of(), "{\"version\":4,\"serial\":3,\"lineage\":\"l-1\"}");
    Plan moved = plan(config, Map.of(), "{\"version\":4,\"serial\":4,\"lineage\":\"l-1\"}");
    Plan unordered =
        plan(
            config.replace("depends_on = [stateful_provisioning.db]", ""),
            Map.of(),
            "{\"version\":4,\"serial\":3,\"lineage\":\"l-1\"}");

    assertThat(PlanComparison.between(first, moved).describe())
        .isEqualTo(
            "  state: planned against serial 3 of lineage l-1 -> planned against serial 4 of"
                + " lineage l-1");
    assertThat(PlanComparison.between(first, unordered).differences())
        .extracting(PlanComparison.Difference::text)
        .containsExactly(
            "stateful_provisioning.app: waits for stateful_provisioning.db -> waits for nothing");
  }

  @Test
  void aDifferenceIsFoundExactlyWhenTheDigestsDiffer() {
    List<Plan> plans =
        List.of(
            plan(config("v1", ""), Map.of("pw", SECRET), STATE),
            plan(config("v2", ""), Map.of("pw", SECRET), STATE),
            plan(config("v1", "output \"more\" { value = 1 }"), Map.of("pw", SECRET), STATE),
            plan(
                config("v1", ""),
                Map.of("pw", SECRET),
                STATE.replace("\"serial\":7", "\"serial\":8")),
            plan(
                config("v1", "resource \"null_resource\" \"n\" { triggers = { a = \"b\" } }"),
                Map.of("pw", SECRET),
                STATE),
            Scenario.config(config("v1", ""), Map.of("pw", SECRET))
                .rawState(STATE)
                .destroy()
                .plan()
                .plan());
    for (Plan a : plans) {
      for (Plan b : plans) {
        PlanComparison c = PlanComparison.between(a, b);
        assertThat(c.same()).as(c.describe()).isEqualTo(a.digest().equals(b.digest()));
        assertThat(c.describe()).doesNotContain(SECRET);
      }
    }
  }
}
