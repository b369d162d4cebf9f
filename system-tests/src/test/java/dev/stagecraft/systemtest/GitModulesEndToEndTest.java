package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.sshtestkit.GitDaemon;
import dev.stagecraft.systemtest.SharedStack.CliResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.eclipse.jgit.api.Git;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A git module beside two local modules, one with {@code for_each}, on the real stack (issue 29's
 * acceptance, docs/adr/0065): the CLI fetches the git module from a real {@code git daemon}, sends
 * every module's files with the configuration, and the planner service plans their resources at
 * Terraform's addresses in the plan JSON ({@code module.shared.null_resource.node[1]} with
 * module_address {@code module.shared} and index 1; {@code module.app["us"].null_resource.deploy}
 * with module_address {@code module.app["us"]} and no index).
 */
class GitModulesEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  static SharedStack stack;

  @TempDir Path tmp;

  @BeforeAll
  static void start() throws Exception {
    stack = SharedStack.get();
  }

  @Test
  void gitAndLocalModulesOneRepeatedArePlannedAtTerraformsAddresses() throws Exception {
    Path repos = Files.createDirectories(tmp.resolve("repos"));
    try (Git git = GitDaemon.init(repos, "shared.git")) {
      GitDaemon.commit(
          git,
          "modules/nodes/main.tf",
          """
          variable "names" { type = list(string) }
          resource "null_resource" "node" {
            count    = length(var.names)
            triggers = { name = var.names[count.index] }
          }
          output "first" { value = null_resource.node[0].id }
          """);
      git.tag().setName("v1").call();
    }
    try (GitDaemon daemon = GitDaemon.start(repos)) {
      String source = "git::" + daemon.url("shared.git") + "//modules/nodes?ref=v1";
      Path dir =
          stack.configDir(
              "git-modules-e2e",
              """
              module "shared" {
                source = "%s"
                names  = ["a", "b"]
              }
              module "app" {
                for_each = toset(["eu", "us"])
                source   = "./modules/app"
                region   = each.key
                after    = module.shared.first
              }
              module "db" {
                source = "./modules/db"
              }
              """
                  .formatted(source));
      Files.createDirectories(dir.resolve("modules/app"));
      Files.createDirectories(dir.resolve("modules/db"));
      Files.writeString(
          dir.resolve("modules/app/main.tf"),
          """
          variable "region" {}
          variable "after" {}
          resource "null_resource" "deploy" {
            triggers = { region = var.region, after = var.after }
          }
          """);
      Files.writeString(
          dir.resolve("modules/db/main.tf"), "resource \"terraform_data\" \"schema\" {}\n");
      Map<String, String> env = new HashMap<>();
      env.put("XDG_CACHE_HOME", tmp.resolve("cache").toString());

      CliResult planned =
          stack.cliWith(dir, env, null, "plan", "-json", "-workspace=git-modules-e2e");

      assertThat(planned.exitCode()).as(planned.all()).isZero();
      Map<String, JsonNode> changes = new HashMap<>();
      for (JsonNode c : JSON.readTree(planned.out()).path("resource_changes")) {
        changes.put(c.path("address").asText(), c);
      }
      assertThat(changes)
          .containsOnlyKeys(
              "module.shared.null_resource.node[0]",
              "module.shared.null_resource.node[1]",
              "module.app[\"eu\"].null_resource.deploy",
              "module.app[\"us\"].null_resource.deploy",
              "module.db.terraform_data.schema");
      JsonNode us = changes.get("module.app[\"us\"].null_resource.deploy");
      assertThat(us.path("module_address").asText()).isEqualTo("module.app[\"us\"]");
      assertThat(us.path("type").asText()).isEqualTo("null_resource");
      assertThat(us.path("name").asText()).isEqualTo("deploy");
      assertThat(us.has("index")).as("a resource without count has no index").isFalse();
      assertThat(us.path("change").path("after").path("triggers").path("region").asText())
          .isEqualTo("us");
      assertThat(changes.get("module.db.terraform_data.schema").path("module_address").asText())
          .isEqualTo("module.db");
      JsonNode second = changes.get("module.shared.null_resource.node[1]");
      assertThat(second.path("module_address").asText()).isEqualTo("module.shared");
      assertThat(second.path("type").asText()).isEqualTo("null_resource");
      assertThat(second.path("name").asText()).isEqualTo("node");
      assertThat(second.path("index").asInt()).isEqualTo(1);
      assertThat(second.path("change").path("actions").get(0).asText()).isEqualTo("create");
      assertThat(second.path("change").path("after").path("triggers").path("name").asText())
          .isEqualTo("b");
      assertThat(dir.resolve(".stagecraft/modules.lock.json")).exists();
    }
  }
}
