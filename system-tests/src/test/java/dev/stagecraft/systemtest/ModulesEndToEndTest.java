package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.systemtest.SharedStack.CliResult;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Local modules on the real stack (issue 29 item 8): the CLI sends the modules' files with the
 * configuration, the planner plans them at Terraform's addresses, their provisioners run, the state
 * groups their instances by {@code module}, a second plan has no change, and the state makes the
 * round trip through the Terraform HTTP backend into another workspace, which plans no change
 * either.
 */
class ModulesEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  static SharedStack stack;

  @BeforeAll
  static void start() throws Exception {
    stack = SharedStack.get();
  }

  @Test
  void localModulesApplyIntoModuleStateAndPlanNoChangeAfterABackendRoundTrip() throws Exception {
    Path log = stack.shared.resolve("modules.log");
    Path dir =
        stack.configDir(
            "modules-e2e",
            """
            module "app" {
              source = "./modules/app"
              nodes  = ["a", "b"]
              log    = "%s"
            }
            module "db" {
              source = "./modules/db"
              after  = module.app.first_id
            }
            output "first" { value = module.app.first_id }
            """
                .formatted(log));
    Files.createDirectories(dir.resolve("modules/app"));
    Files.createDirectories(dir.resolve("modules/db"));
    Files.writeString(
        dir.resolve("modules/app/main.tf"),
        """
        variable "nodes" { type = list(string) }
        variable "log" {}
        resource "null_resource" "node" {
          count    = length(var.nodes)
          triggers = { node = var.nodes[count.index] }
          provisioner "local-exec" {
            command = "echo ${var.nodes[count.index]} >> ${var.log}"
          }
        }
        output "first_id" { value = null_resource.node[0].id }
        """);
    Files.writeString(
        dir.resolve("modules/db/main.tf"),
        """
        variable "after" {}
        resource "terraform_data" "schema" { input = var.after }
        """);

    CliResult applied = stack.cli(dir, "apply", "-workspace=modules-e2e", "-auto-approve");
    assertThat(applied.exitCode()).as(applied.all()).isZero();
    assertThat(applied.out())
        .contains("# module.app.null_resource.node[1] will be created")
        .contains("# module.db.terraform_data.schema will be created")
        .contains("Plan: 3 to add");
    assertThat(Files.readAllLines(log)).containsExactlyInAnyOrder("a", "b");

    HttpResponse<String> pulled = TerraformBackend.call(stack, "GET", "modules-e2e", "/state", "");
    assertThat(pulled.statusCode()).isEqualTo(200);
    Map<String, JsonNode> byAddress = resources(JSON.readTree(pulled.body()));
    assertThat(byAddress)
        .containsOnlyKeys("module.app.null_resource.node", "module.db.terraform_data.schema");
    assertThat(byAddress.get("module.app.null_resource.node").path("instances")).hasSize(2);
    String first =
        byAddress
            .get("module.app.null_resource.node")
            .path("instances")
            .get(0)
            .path("attributes")
            .path("id")
            .asText();
    assertThat(
            byAddress
                .get("module.db.terraform_data.schema")
                .path("instances")
                .get(0)
                .path("attributes")
                .path("input")
                .asText())
        .as("the db module's input came from the app module's output")
        .isEqualTo(first);

    CliResult again = stack.cli(dir, "plan", "-workspace=modules-e2e");
    assertThat(again.exitCode()).as(again.all()).isZero();
    assertThat(again.out()).contains("No changes.");

    HttpResponse<String> pushed =
        TerraformBackend.call(stack, "POST", "modules-e2e-copy", "/state", pulled.body());
    assertThat(pushed.statusCode()).as(pushed.body()).isBetween(200, 204);
    HttpResponse<String> back =
        TerraformBackend.call(stack, "GET", "modules-e2e-copy", "/state", "");
    assertThat(resources(JSON.readTree(back.body()))).isEqualTo(byAddress);
    CliResult copy = stack.cli(dir, "plan", "-workspace=modules-e2e-copy");
    assertThat(copy.exitCode()).as(copy.all()).isZero();
    assertThat(copy.out()).contains("No changes.");
    assertThat(Files.readAllLines(log)).as("nothing provisioned again").hasSize(2);
  }

  @Test
  void repeatedModulesApplyAtKeyedAddressesAndPlanNoChangeAfterABackendRoundTrip()
      throws Exception {
    Path log = stack.shared.resolve("repeated-modules.log");
    Path dir =
        stack.configDir(
            "modules-repeated",
            """
            module "app" {
              for_each = { eu = "10.1", us = "10.2" }
              source   = "./modules/app"
              region   = each.key
              subnet   = each.value
              log      = "%s"
            }
            module "db" {
              source = "./modules/db"
              after  = module.app["eu"].first_id
            }
            output "first" { value = { for k, m in module.app : k => m.host } }
            """
                .formatted(log));
    Files.createDirectories(dir.resolve("modules/app"));
    Files.createDirectories(dir.resolve("modules/db"));
    Files.writeString(
        dir.resolve("modules/app/main.tf"),
        """
        variable "region" {}
        variable "subnet" {}
        variable "log" {}
        resource "null_resource" "node" {
          count    = 2
          triggers = { host = "${var.subnet}.0.${count.index}" }
          provisioner "local-exec" {
            command = "echo ${var.region}-${count.index} >> ${var.log}"
          }
        }
        output "first_id" { value = null_resource.node[0].id }
        output "host" { value = null_resource.node[0].triggers.host }
        """);
    Files.writeString(
        dir.resolve("modules/db/main.tf"),
        """
        variable "after" {}
        resource "terraform_data" "schema" { input = var.after }
        """);

    CliResult planned = stack.cli(dir, "plan", "-workspace=modules-repeated", "-json");
    assertThat(planned.exitCode()).as(planned.all()).isZero();
    Map<String, JsonNode> changes = new TreeMap<>();
    for (JsonNode rc : JSON.readTree(planned.out()).path("resource_changes")) {
      changes.put(rc.path("address").asText(), rc);
    }
    assertThat(changes)
        .containsOnlyKeys(
            "module.app[\"eu\"].null_resource.node[0]",
            "module.app[\"eu\"].null_resource.node[1]",
            "module.app[\"us\"].null_resource.node[0]",
            "module.app[\"us\"].null_resource.node[1]",
            "module.db.terraform_data.schema");
    JsonNode us1 = changes.get("module.app[\"us\"].null_resource.node[1]");
    assertThat(us1.path("module_address").asText()).isEqualTo("module.app[\"us\"]");
    assertThat(us1.path("type").asText()).isEqualTo("null_resource");
    assertThat(us1.path("name").asText()).isEqualTo("node");
    assertThat(us1.path("index").asInt()).isEqualTo(1);
    assertThat(changes.get("module.db.terraform_data.schema").path("module_address").asText())
        .isEqualTo("module.db");

    CliResult applied = stack.cli(dir, "apply", "-workspace=modules-repeated", "-auto-approve");
    assertThat(applied.exitCode()).as(applied.all()).isZero();
    assertThat(applied.out())
        .contains("# module.app[\"us\"].null_resource.node[1] will be created")
        .contains("Plan: 5 to add");
    assertThat(Files.readAllLines(log)).containsExactlyInAnyOrder("eu-0", "eu-1", "us-0", "us-1");

    HttpResponse<String> pulled =
        TerraformBackend.call(stack, "GET", "modules-repeated", "/state", "");
    assertThat(pulled.statusCode()).isEqualTo(200);
    Map<String, JsonNode> byAddress = resources(JSON.readTree(pulled.body()));
    assertThat(byAddress)
        .containsOnlyKeys(
            "module.app[\"eu\"].null_resource.node",
            "module.app[\"us\"].null_resource.node",
            "module.db.terraform_data.schema");
    CliResult list = stack.cli(dir, "state", "list", "-workspace=modules-repeated");
    assertThat(list.exitCode()).as(list.all()).isZero();
    assertThat(list.out()).contains("module.app[\"us\"].null_resource.node[1]");

    CliResult again = stack.cli(dir, "plan", "-workspace=modules-repeated");
    assertThat(again.exitCode()).as(again.all()).isZero();
    assertThat(again.out()).contains("No changes.");

    HttpResponse<String> pushed =
        TerraformBackend.call(stack, "POST", "modules-repeated-copy", "/state", pulled.body());
    assertThat(pushed.statusCode()).as(pushed.body()).isBetween(200, 204);
    CliResult copy = stack.cli(dir, "plan", "-workspace=modules-repeated-copy");
    assertThat(copy.exitCode()).as(copy.all()).isZero();
    assertThat(copy.out()).contains("No changes.");
    assertThat(Files.readAllLines(log)).as("nothing provisioned again").hasSize(4);

    CliResult tainted =
        stack.cli(
            dir,
            "taint",
            "-workspace=modules-repeated-copy",
            "module.app[\"us\"].null_resource.node[1]");
    assertThat(tainted.exitCode()).as(tainted.all()).isZero();
    CliResult replan = stack.cli(dir, "plan", "-workspace=modules-repeated-copy");
    assertThat(replan.exitCode()).as(replan.all()).isZero();
    assertThat(replan.out())
        .contains("# module.app[\"us\"].null_resource.node[1] is tainted, so must be replaced")
        .contains("Plan: 1 to add, 0 to change, 1 to destroy.");
  }

  /** v4 resources by {@code module.type.name}. */
  private static Map<String, JsonNode> resources(JsonNode state) {
    Map<String, JsonNode> out = new TreeMap<>();
    for (JsonNode r : state.path("resources")) {
      String module = r.hasNonNull("module") ? r.path("module").asText() + "." : "";
      out.put(module + r.path("type").asText() + "." + r.path("name").asText(), r);
    }
    return out;
  }
}
