package dev.stagecraft.planner.apply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.planner.plan.PlanRequest;
import dev.stagecraft.planner.plan.PlanResult;
import dev.stagecraft.planner.plan.Planner;
import dev.stagecraft.planner.plan.PriorState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server plans with the uploaded files in a private directory: file functions and provisioner
 * files read inside it, never outside, and the directory never shows in the plan.
 */
class ConfinedFilesTest {
  @TempDir Path root;

  Path dir;
  Path outside;

  PlanResult plan(String config, boolean confined) throws Exception {
    dir = Files.createDirectories(root.resolve("config"));
    Files.writeString(dir.resolve("message.txt"), "hello");
    Files.createDirectories(dir.resolve("scripts"));
    Files.writeString(dir.resolve("scripts/deploy.sh"), "#!/bin/sh\necho deploy\n");
    outside = Files.writeString(root.resolve("secret.txt"), "TOPSECRET");
    return Planner.plan(
        new PlanRequest(
            "default", Map.of("main.tf", config), Map.of(), List.of(), false, dir, confined),
        PriorState.empty());
  }

  @Test
  void fileFunctionsReadInsideTheDirectoryAndPathModuleShowsDot() throws Exception {
    PlanResult r =
        plan(
            """
            resource "null_resource" "a" {
              triggers = {
                message = file("message.txt")
                script  = filemd5("${path.module}/scripts/deploy.sh")
                tpl     = templatefile("message.txt", {})
              }
            }
            output "module" {
              value = path.module
            }
            """,
            true);
    assertThat(r.hasErrors()).as(r.renderDiagnostics()).isFalse();
    @SuppressWarnings("unchecked")
    Map<String, Object> triggers =
        (Map<String, Object>)
            r.plan().action("null_resource.a").orElseThrow().after().get("triggers");
    assertThat(triggers).containsEntry("message", "hello").containsEntry("tpl", "hello");
    assertThat((String) triggers.get("script")).hasSize(32);
    assertThat(r.plan().output("module").orElseThrow().after()).isEqualTo(".");
    assertThat(r.plan().toString()).doesNotContain(dir.toString());
  }

  @Test
  void pathsLeavingTheDirectoryAreRefused() throws Exception {
    for (String path : List.of("../secret.txt", "scripts/../../secret.txt", "ABSOLUTE")) {
      String p = path.equals("ABSOLUTE") ? root.resolve("secret.txt").toString() : path;
      PlanResult r =
          plan(
              """
              resource "null_resource" "a" {
                triggers = { x = file("%s") }
              }
              """
                  .formatted(p),
              true);
      assertThat(r.hasErrors()).as(p).isTrue();
      assertThat(r.renderDiagnostics())
          .as(p)
          .contains(
              path.equals("ABSOLUTE")
                  ? "absolute paths cannot be read on the server"
                  : "outside the configuration directory");
      assertThat(r.renderDiagnostics()).as(p).doesNotContain("TOPSECRET");
    }
  }

  @Test
  void provisionerFilesAreConfinedToo() throws Exception {
    String config =
        """
        resource "stateful_provisioning" "app" {
          state_key = "v1"
          connection {
            host = "h"
          }
          provisioner "remote-exec" {
            script = "%s"
          }
        }
        """;
    ActionResolution ok = resolve(plan(config.formatted("scripts/deploy.sh"), true));
    assertThat(ok.hasErrors()).as(ok.renderDiagnostics()).isFalse();
    assertThat(ok.steps().get(0).scripts()).containsExactly("#!/bin/sh\necho deploy\n");
    for (String p : List.of("../secret.txt", root.resolve("secret.txt").toString())) {
      ActionResolution bad = resolve(plan(config.formatted(p), true));
      assertThat(bad.hasErrors()).as(p).isTrue();
      assertThat(bad.renderDiagnostics())
          .as(p)
          .contains(
              p.startsWith("/")
                  ? "absolute paths cannot be read on the server"
                  : "outside the configuration directory");
    }
    // a missing file's error does not name the server's directory
    ActionResolution missing = resolve(plan(config.formatted("nope.sh"), true));
    assertThat(missing.renderDiagnostics()).doesNotContain(dir.toString());
  }

  @Test
  void unconfinedTheCliReadsAnyPathAndShowsItsDirectory() throws Exception {
    PlanResult r =
        plan(
            """
            resource "null_resource" "a" {
              triggers = { x = file("../secret.txt") }
            }
            output "module" {
              value = path.module
            }
            """,
            false);
    assertThat(r.hasErrors()).as(r.renderDiagnostics()).isFalse();
    assertThat(r.plan().output("module").orElseThrow().after()).isEqualTo(dir.toString());
  }

  private static ActionResolution resolve(PlanResult result) {
    return AppResolution.resolveApp(result);
  }
}
