package dev.stagecraft.planner.plan;

import static dev.stagecraft.planner.plan.ActionType.NO_OP;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code moved} blocks with module ends (issue 29 item 9): resources move into and out of modules,
 * a module call is renamed, a module gains {@code for_each}; nothing is destroyed or provisioned
 * again, and the plan names where each object was.
 */
class ModuleMovesTest {
  @TempDir Path dir;

  private static final String MODULE =
      """
      resource "null_resource" "a" {
        triggers = { v = "1" }
        provisioner "local-exec" { command = "deploy" }
      }
      """;

  private static String state(String module, String key) {
    String m = module == null ? "" : "\"module\":" + quote(module) + ",";
    String k = key == null ? "" : "\"index_key\":" + key + ",";
    return """
        {"version":4,"serial":1,"lineage":"l","outputs":{},"resources":[
          {%s"mode":"managed","type":"null_resource","name":"a","provider":"p",
           "instances":[{%s"attributes":{"id":"111","triggers":{"v":"1"}}}]}]}
        """
        .formatted(m, k);
  }

  private static String quote(String s) {
    return "\"" + s.replace("\"", "\\\"") + "\"";
  }

  private PlanResult plan(String root, String state) throws IOException {
    Files.createDirectories(dir.resolve("modules/app"));
    Files.writeString(dir.resolve("modules/app/main.tf"), MODULE);
    return Planner.plan(
        new PlanRequest("default", Map.of("main.tf", root), Map.of(), List.of(), false, dir),
        PriorState.fromV4Json(state));
  }

  private static void assertMoved(PlanResult result, String to, String from) {
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    Plan plan = result.plan();
    assertThat(plan.actions())
        .as(PlanRenderer.render(plan))
        .singleElement()
        .satisfies(
            a -> {
              assertThat(a.address()).isEqualTo(to);
              assertThat(a.action()).isEqualTo(NO_OP);
              assertThat(a.previousAddress()).isEqualTo(from);
            });
    assertThat(PlanRenderer.render(plan))
        .contains("  # " + from + " has moved to " + to + "\n")
        .contains("Plan: 0 to add, 0 to change, 0 to destroy.");
    assertThat(PlanJson.render(plan))
        .contains("\"previous_address\":" + quote(from).replace("\\\"", "\\\\\\\""));
  }

  @Test
  void aResourceMovesIntoAModuleAndOutOfOne() throws Exception {
    assertMoved(
        plan(
            """
            module "app" { source = "./modules/app" }
            moved {
              from = null_resource.a
              to   = module.app.null_resource.a
            }
            """,
            state(null, null)),
        "module.app.null_resource.a",
        "null_resource.a");

    assertMoved(
        plan(
            MODULE
                + """
                moved {
                  from = module.app.null_resource.a
                  to   = null_resource.a
                }
                """,
            state("module.app", null)),
        "null_resource.a",
        "module.app.null_resource.a");
  }

  @Test
  void aRenamedModuleCallAndAModuleThatGainedForEachKeepTheirObjects() throws Exception {
    assertMoved(
        plan(
            """
            module "web" { source = "./modules/app" }
            moved {
              from = module.app
              to   = module.web
            }
            """,
            state("module.app", null)),
        "module.web.null_resource.a",
        "module.app.null_resource.a");

    assertMoved(
        plan(
            """
            module "app" {
              for_each = toset(["eu"])
              source   = "./modules/app"
            }
            moved {
              from = module.app
              to   = module.app["eu"]
            }
            """,
            state("module.app", null)),
        "module.app[\"eu\"].null_resource.a",
        "module.app.null_resource.a");
  }

  @Test
  void aModuleStillCalledCannotBeMovedFrom() throws Exception {
    PlanResult result =
        plan(
            """
            module "app" { source = "./modules/app" }
            module "web" { source = "./modules/app" }
            moved {
              from = module.app
              to   = module.web
            }
            """,
            state("module.app", null));

    assertThat(result.diagnostics().errors())
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.summary()).isEqualTo("Moved object still exists");
              assertThat(d.detail()).contains("a move from module.app");
              assertThat(d.range().toString()).isEqualTo("main.tf:3:1");
            });
  }

  @Test
  void aRemovedModuleIsForgottenAndAResourceRemovedFromOneRunsItsDestroyTimeSteps()
      throws Exception {
    PlanResult forgotten =
        plan(
            """
            removed {
              from = module.app
              lifecycle {
                destroy = false
              }
            }
            """,
            state("module.app[\"eu\"]", null));
    assertThat(forgotten.hasErrors()).as(forgotten.renderDiagnostics()).isFalse();
    assertThat(forgotten.plan().actions())
        .extracting(a -> a.address() + " " + a.action())
        .containsExactly("module.app[\"eu\"].null_resource.a FORGET");

    PlanResult destroyed =
        plan(
            """
            removed {
              from = module.app.null_resource.a
              provisioner "local-exec" {
                when    = destroy
                command = "undeploy ${self.id}"
              }
            }
            """,
            state("module.app", null));
    assertThat(destroyed.hasErrors()).as(destroyed.renderDiagnostics()).isFalse();
    PlannedAction delete = destroyed.plan().actions().get(0);
    assertThat(delete.address()).isEqualTo("module.app.null_resource.a");
    assertThat(delete.action()).isEqualTo(ActionType.DELETE);
    assertThat(destroyed.applyContext().resolve(delete, Map.of(), () -> "x").steps())
        .singleElement()
        .satisfies(step -> assertThat(step.command()).isEqualTo("undeploy 111"));

    PlanResult stillCalled =
        plan(
            """
            module "app" { source = "./modules/app" }
            removed {
              from = module.app
              lifecycle {
                destroy = false
              }
            }
            """,
            state("module.app", null));
    assertThat(stillCalled.diagnostics().errors())
        .extracting(d -> d.summary() + " @" + d.range())
        .containsExactly("Removed module still exists @main.tf:3:10");
  }
}
