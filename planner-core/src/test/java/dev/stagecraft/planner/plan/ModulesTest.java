package dev.stagecraft.planner.plan;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.planner.apply.ActionResolution;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Local modules (issue 29 item 8, docs/adr/0065): the modules a configuration calls are planned
 * with it, each in its own scope (its variables, locals, resources and child modules; {@code
 * path.module} its directory), their instances at Terraform's addresses in the plan text and JSON
 * ({@code module_address}), a state holding them plans no change, and their steps resolve at apply
 * from those addresses.
 */
class ModulesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;

  private static final String ROOT =
      """
      variable "revision" { default = "r1" }
      resource "null_resource" "node" {
        triggers = { root = "yes" }
      }
      module "app" {
        source   = "./modules/app"
        nodes    = ["a", "b"]
        port     = "2222"
        revision = var.revision
      }
      output "ips" { value = module.app.ips }
      """;

  private void writeModules() throws IOException {
    write(
        "modules/app/main.tf",
        """
        variable "nodes" { type = list(string) }
        variable "port" { type = number }
        variable "revision" {}
        variable "user" { default = "deploy" }
        locals { tag = "${var.revision}-${var.user}" }
        resource "null_resource" "node" {
          count    = length(var.nodes)
          triggers = { node = var.nodes[count.index], port = var.port + 1, tag = local.tag }
          provisioner "local-exec" {
            command = "deploy ${var.nodes[count.index]} from ${path.module}"
          }
        }
        module "db" {
          source = "../db"
          after  = null_resource.node[0].id
        }
        output "ips" { value = [for n in var.nodes : "10.0.0.${index(var.nodes, n)}"] }
        output "db" { value = module.db.name }
        """);
    write(
        "modules/db/main.tf",
        """
        variable "after" {}
        resource "terraform_data" "schema" { input = var.after }
        output "name" { value = "db-${terraform_data.schema.id}" }
        """);
  }

  private void write(String path, String text) throws IOException {
    Path p = dir.resolve(path);
    Files.createDirectories(p.getParent());
    Files.writeString(p, text);
  }

  private PlanResult plan(String root, PriorState prior, List<String> replace) {
    return Planner.plan(
        new PlanRequest("default", Map.of("main.tf", root), Map.of(), replace, false, dir), prior);
  }

  @Test
  void localModulesArePlannedAtTerraformsAddressesInTheirOwnScopes() throws Exception {
    writeModules();

    PlanResult result = plan(ROOT, PriorState.empty(), List.of());

    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    Plan plan = result.plan();
    assertThat(plan.actions())
        .extracting(PlannedAction::address)
        .containsExactlyInAnyOrder(
            "null_resource.node",
            "module.app.null_resource.node[0]",
            "module.app.null_resource.node[1]",
            "module.app.module.db.terraform_data.schema");
    PlannedAction node1 = plan.action("module.app.null_resource.node[1]").orElseThrow();
    assertThat(node1.name()).isEqualTo("node");
    assertThat(JSON.writeValueAsString(node1.after().get("triggers")))
        .as(
            "the module's own variables, converted to their types, and locals (triggers are strings)")
        .isEqualTo("{\"node\":\"b\",\"port\":\"2223\",\"tag\":\"r1-deploy\"}");
    assertThat(
            JSON.writeValueAsString(
                plan.action("null_resource.node").orElseThrow().after().get("triggers")))
        .as("the root's resource of the same name is another one")
        .isEqualTo("{\"root\":\"yes\"}");
    assertThat(
            plan.action("module.app.module.db.terraform_data.schema").orElseThrow().dependencies())
        .contains("module.app.null_resource.node");
    assertThat(plan.output("ips").orElseThrow().after()).isEqualTo(List.of("10.0.0.0", "10.0.0.1"));

    JsonNode changes = JSON.readTree(PlanJson.render(plan)).path("resource_changes");
    JsonNode json = null;
    for (JsonNode c : changes) {
      if (c.path("address").asText().equals("module.app.null_resource.node[1]")) {
        json = c;
      }
    }
    assertThat(json).isNotNull();
    assertThat(json.path("module_address").asText()).isEqualTo("module.app");
    assertThat(json.path("type").asText()).isEqualTo("null_resource");
    assertThat(json.path("name").asText()).isEqualTo("node");
    assertThat(json.path("index").asInt()).isEqualTo(1);
    assertThat(PlanRenderer.render(plan))
        .contains("  # module.app.null_resource.node[1] will be created\n")
        .contains("resource \"null_resource\" \"node\" {");

    ActionResolution resolution = result.applyContext().resolve(node1, Map.of(), () -> "id-1");
    assertThat(resolution.hasErrors()).as(resolution.renderDiagnostics()).isFalse();
    assertThat(resolution.steps())
        .singleElement()
        .satisfies(s -> assertThat(s.command()).isEqualTo("deploy b from modules/app"));
  }

  @Test
  void aStateHoldingTheModulesInstancesPlansNoChange() throws Exception {
    writeModules();
    String state =
        """
        {"version":4,"serial":3,"lineage":"l","outputs":{},"resources":[
          {"mode":"managed","type":"null_resource","name":"node","provider":"p",
           "instances":[{"attributes":{"id":"r0","triggers":{"root":"yes"}}}]},
          {"module":"module.app","mode":"managed","type":"null_resource","name":"node","provider":"p",
           "instances":[
             {"index_key":0,"attributes":{"id":"n0","triggers":{"node":"a","port":2223,"tag":"r1-deploy"}}},
             {"index_key":1,"attributes":{"id":"n1","triggers":{"node":"b","port":2223,"tag":"r1-deploy"}}}]},
          {"module":"module.app.module.db","mode":"managed","type":"terraform_data","name":"schema","provider":"p",
           "instances":[{"attributes":{"id":"s1","input":"n0","output":"n0","triggers_replace":null}}]}]}
        """;

    PlanResult result = plan(ROOT, PriorState.fromV4Json(state), List.of());

    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    assertThat(result.plan().changes())
        .as(PlanRenderer.render(result.plan()) + PlanJson.render(result.plan()))
        .isEmpty();

    PlanResult replaced =
        plan(ROOT, PriorState.fromV4Json(state), List.of("module.app.null_resource.node[0]"));
    assertThat(replaced.plan().changes())
        .extracting(PlannedAction::address)
        .contains("module.app.null_resource.node[0]")
        .doesNotContain("module.app.null_resource.node[1]");
  }

  @Test
  void aModuleCannotReadTheDeclarationsOfAnother() throws Exception {
    write(
        "modules/app/main.tf",
        """
        resource "null_resource" "x" {
          triggers = { a = null_resource.node.id, b = var.revision, c = local.tag }
        }
        """);

    PlanResult result =
        plan(
            """
            variable "revision" { default = "r1" }
            locals { tag = "t" }
            resource "null_resource" "node" {}
            module "app" { source = "./modules/app" }
            """,
            PriorState.empty(),
            List.of());

    assertThat(result.plan()).isNull();
    assertThat(result.diagnostics().errors())
        .extracting(d -> d.summary() + " @" + d.range())
        .contains(
            "Reference to undeclared resource @modules/app/main.tf:2:20",
            "Reference to undeclared input variable @modules/app/main.tf:2:47");
  }
}
