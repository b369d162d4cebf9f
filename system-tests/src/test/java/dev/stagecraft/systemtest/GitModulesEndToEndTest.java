package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
 * A git module on the real stack (docs/adr/0065): the CLI fetches it from a real {@code git
 * daemon}, sends its files with the configuration, and the planner service plans its resources at
 * Terraform's addresses ({@code module.shared.null_resource.node[1]}, module_address {@code
 * module.shared}).
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
  void aGitModuleIsFetchedByTheCliAndPlannedAtTerraformsAddresses() throws Exception {
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
              """
                  .formatted(source));
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
              "module.shared.null_resource.node[0]", "module.shared.null_resource.node[1]");
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
