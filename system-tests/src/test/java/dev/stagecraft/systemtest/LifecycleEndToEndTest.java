package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.systemtest.SharedStack.CliResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The lifecycle rules of design §4 (seeds 001/002) through the real services: the planner plans,
 * the executor runs local-exec commands that append to a file (so the test sees exactly what ran),
 * the state service records the result and renders it back as v4 — including {@code
 * create_before_destroy} and {@code skip_destroy}, which the next plan reads. Every case has its
 * own workspace and log file.
 */
class LifecycleEndToEndTest {
  static SharedStack stack;
  static final ObjectMapper JSON = new ObjectMapper();

  @BeforeAll
  static void start() throws Exception {
    stack = SharedStack.get();
  }

  // --- create_before_destroy ------------------------------------------------------------------

  static String cbdConfig(Path log) {
    return """
        variable "rev" {
        }

        resource "stateful_provisioning" "db" {
          state_key = "db-${var.rev}"

          provisioner "local-exec" {
            command = "echo create db ${var.rev} >> %1$s"
          }
          provisioner "local-exec" {
            when    = destroy
            command = "echo destroy db ${self.state_key} >> %1$s"
          }
        }

        resource "stateful_provisioning" "app" {
          state_key  = var.rev
          depends_on = [stateful_provisioning.db]

          lifecycle {
            create_before_destroy = true
          }

          provisioner "local-exec" {
            command = "echo create app ${var.rev} >> %1$s"
          }
          provisioner "local-exec" {
            when    = destroy
            command = "echo destroy app ${self.state_key} >> %1$s"
          }
        }
        """
        .formatted(log);
  }

  @Test
  void createBeforeDestroyReplacesWithoutDestroyTimeStepsAndIsRecordedOnTheDependencyToo()
      throws Exception {
    Path log = stack.shared.resolve("lc-cbd.log");
    Path dir = stack.configDir("lc-cbd", cbdConfig(log));
    String ws = "-workspace=lc-cbd";

    applyOk(dir, ws, "-var", "rev=r1");
    assertThat(lines(log)).containsExactly("create db r1", "create app r1");
    JsonNode created = pull(ws);
    assertThat(instance(created, "stateful_provisioning.app").path("create_before_destroy"))
        .as("configured create_before_destroy recorded in state")
        .isEqualTo(JSON.getNodeFactory().booleanNode(true));
    assertThat(instance(created, "stateful_provisioning.db").path("create_before_destroy"))
        .as("create_before_destroy propagated to the dependency and recorded in state")
        .isEqualTo(JSON.getNodeFactory().booleanNode(true));

    JsonNode plan = planJson(dir, ws, "-var", "rev=r2");
    assertThat(actions(plan, "stateful_provisioning.app")).containsExactly("create", "delete");
    assertThat(actions(plan, "stateful_provisioning.db")).containsExactly("create", "delete");
    assertThat(change(plan, "stateful_provisioning.app").path("action_reason").asText())
        .isEqualTo("replace_because_cannot_update");

    applyOk(dir, ws, "-var", "rev=r2");
    assertThat(lines(log))
        .as("create-time steps ran again; no destroy-time step ran in a create-before-destroy")
        .containsExactly("create db r1", "create app r1", "create db r2", "create app r2");
    JsonNode replaced = pull(ws);
    JsonNode app = instance(replaced, "stateful_provisioning.app");
    JsonNode db = instance(replaced, "stateful_provisioning.db");
    assertThat(app.path("attributes").path("state_key").asText()).isEqualTo("r2");
    assertThat(db.path("attributes").path("state_key").asText()).isEqualTo("db-r2");
    assertThat(app.path("create_before_destroy").asBoolean()).isTrue();
    assertThat(db.path("create_before_destroy").asBoolean()).isTrue();
    assertThat(app.has("skip_destroy")).isFalse();

    // the destroy-time steps are real: a plain destroy runs them (dependents first)
    CliResult destroyed = stack.cli(dir, "destroy", ws, "-auto-approve", "-var", "rev=r2");
    assertThat(destroyed.exitCode()).as(destroyed.all()).isZero();
    assertThat(lines(log)).endsWith("destroy app r2", "destroy db db-r2");
    assertThat(addresses(pull(ws))).isEmpty();
  }

  // --- prevent_destroy ------------------------------------------------------------------------

  static String preventConfig(Path log) {
    return """
        variable "rev" {
        }
        variable "n" {
          type = number
        }

        resource "stateful_provisioning" "p" {
          count     = var.n
          state_key = var.rev

          lifecycle {
            prevent_destroy = true
          }

          provisioner "local-exec" {
            command = "echo create ${count.index} ${var.rev} >> %1$s"
          }
          provisioner "local-exec" {
            when    = destroy
            command = "echo destroy ${count.index} >> %1$s"
          }
        }
        """
        .formatted(log);
  }

  @Test
  void preventDestroyRejectsReplaceShrinkAndDestroyWithoutRunningOrWritingAnything()
      throws Exception {
    Path log = stack.shared.resolve("lc-prevent.log");
    Path dir = stack.configDir("lc-prevent", preventConfig(log));
    String ws = "-workspace=lc-prevent";
    applyOk(dir, ws, "-var", "rev=r1", "-var", "n=2");
    assertThat(lines(log)).containsExactlyInAnyOrder("create 0 r1", "create 1 r1");
    List<String> ranBefore = lines(log);
    JsonNode before = pull(ws);

    // replace (state_key changed)
    assertRejected(dir, ws, "stateful_provisioning.p[0]", "-var", "rev=r2", "-var", "n=2");
    // an instance removed by shrinking count
    assertRejected(dir, ws, "stateful_provisioning.p[1]", "-var", "rev=r1", "-var", "n=1");
    // destroy mode
    CliResult destroy =
        stack.cli(dir, "destroy", ws, "-auto-approve", "-var", "rev=r1", "-var", "n=2");
    assertThat(destroy.exitCode()).as(destroy.all()).isEqualTo(1);
    assertThat(destroy.all())
        .contains("Instance cannot be destroyed")
        .contains("stateful_provisioning.p[0]");

    assertThat(pull(ws)).as("state unchanged").isEqualTo(before);
    assertThat(lines(log)).as("nothing ran").isEqualTo(ranBefore);

    // design §4: the protection lasts as long as the argument is in configuration — without the
    // resource block the instances are deleted (no destroy-time step: its configuration is gone)
    Files.writeString(dir.resolve("main.tf"), "variable \"rev\" {\n}\nvariable \"n\" {\n}\n");
    applyOk(dir, ws, "-var", "rev=r1", "-var", "n=1");
    assertThat(addresses(pull(ws))).isEmpty();
    assertThat(lines(log)).isEqualTo(ranBefore);
  }

  private void assertRejected(Path dir, String ws, String address, String... vars)
      throws Exception {
    CliResult plan = stack.cli(dir, args(List.of("plan", ws), vars));
    assertThat(plan.exitCode()).as(plan.all()).isEqualTo(1);
    assertThat(plan.all()).contains("Instance cannot be destroyed").contains(address);
    CliResult apply = stack.cli(dir, args(List.of("apply", ws, "-auto-approve"), vars));
    assertThat(apply.exitCode()).as(apply.all()).isEqualTo(1);
    assertThat(apply.all()).contains("Instance cannot be destroyed").contains(address);
  }

  // --- removed blocks: forget and destroy -----------------------------------------------------

  static String removedBefore(Path log) {
    return """
        resource "stateful_provisioning" "kept" {
          state_key = "k1"

          provisioner "local-exec" {
            command = "echo create kept ${self.id} >> %1$s"
          }
          provisioner "local-exec" {
            when    = destroy
            command = "echo destroy kept ${self.id} >> %1$s"
          }
        }

        resource "stateful_provisioning" "gone" {
          state_key = "g1"

          provisioner "local-exec" {
            command = "echo create gone ${self.id} >> %1$s"
          }
        }
        """
        .formatted(log);
  }

  static String removedAfter(Path log) {
    return """
        removed {
          from = stateful_provisioning.kept

          lifecycle {
            destroy = false
          }

          provisioner "local-exec" {
            when    = destroy
            command = "echo removed kept ${self.id} >> %1$s"
          }
        }

        removed {
          from = stateful_provisioning.gone

          lifecycle {
            destroy = true
          }

          provisioner "local-exec" {
            when    = destroy
            command = "echo bye ${self.id} >> %1$s"
          }
        }
        """
        .formatted(log);
  }

  @Test
  void removedBlockForgetsWithDestroyFalseAndRunsItsDestroyStepsWithDestroyTrue() throws Exception {
    Path log = stack.shared.resolve("lc-removed.log");
    Path dir = stack.configDir("lc-removed", removedBefore(log));
    String ws = "-workspace=lc-removed";
    applyOk(dir, ws);
    JsonNode created = pull(ws);
    String keptId =
        instance(created, "stateful_provisioning.kept").path("attributes").path("id").asText();
    String goneId =
        instance(created, "stateful_provisioning.gone").path("attributes").path("id").asText();
    assertThat(keptId).isNotBlank().isNotEqualTo(goneId);
    assertThat(lines(log))
        .containsExactlyInAnyOrder("create kept " + keptId, "create gone " + goneId);

    Files.writeString(dir.resolve("main.tf"), removedAfter(log));
    JsonNode plan = planJson(dir, ws);
    assertThat(actions(plan, "stateful_provisioning.kept")).containsExactly("forget");
    assertThat(actions(plan, "stateful_provisioning.gone")).containsExactly("delete");
    assertThat(change(plan, "stateful_provisioning.kept").path("action_reason").asText())
        .isEqualTo("delete_because_no_resource_config");

    applyOk(dir, ws);
    assertThat(addresses(pull(ws))).isEmpty();
    assertThat(lines(log))
        .as("the forgotten instance ran nothing; the destroyed one ran the removed block's step")
        .containsExactlyInAnyOrder(
            "create kept " + keptId, "create gone " + goneId, "bye " + goneId);
  }

  // --- lifecycle { destroy = false } ----------------------------------------------------------

  static String skipConfig(Path log) {
    return """
        variable "rev" {
        }

        resource "stateful_provisioning" "keep" {
          state_key = var.rev

          lifecycle {
            destroy = false
          }

          provisioner "local-exec" {
            command = "echo create keep ${var.rev} >> %1$s"
          }
          provisioner "local-exec" {
            when    = destroy
            command = "echo destroy keep ${self.state_key} >> %1$s"
          }
        }

        resource "stateful_provisioning" "other" {
          state_key = "o1"

          lifecycle {
            destroy = false
          }

          provisioner "local-exec" {
            command = "echo create other >> %1$s"
          }
        }
        """
        .formatted(log);
  }

  /** Both blocks gone; {@code other} gets a removed block that does not say {@code destroy}. */
  static String skipRemoved(Path log) {
    return """
        variable "rev" {
        }

        removed {
          from = stateful_provisioning.other

          provisioner "local-exec" {
            when    = destroy
            command = "echo removed other ${self.id} >> %1$s"
          }
        }
        """
        .formatted(log);
  }

  @Test
  void destroyFalseIsRecordedInStateSoReplacementAndLaterRemovalOnlyForget() throws Exception {
    Path log = stack.shared.resolve("lc-skip.log");
    Path dir = stack.configDir("lc-skip", skipConfig(log));
    String ws = "-workspace=lc-skip";
    applyOk(dir, ws, "-var", "rev=r1");
    JsonNode created = pull(ws);
    assertThat(instance(created, "stateful_provisioning.keep").path("skip_destroy").asBoolean())
        .as("skip_destroy recorded in state")
        .isTrue();
    assertThat(instance(created, "stateful_provisioning.keep").has("create_before_destroy"))
        .isFalse();
    assertThat(instance(created, "stateful_provisioning.other").path("skip_destroy").asBoolean())
        .isTrue();

    // a replacement with destroy = false forgets the old object: no destroy-time step
    JsonNode replacePlan = planJson(dir, ws, "-var", "rev=r2");
    assertThat(actions(replacePlan, "stateful_provisioning.keep"))
        .containsExactly("forget", "create");
    applyOk(dir, ws, "-var", "rev=r2");
    assertThat(lines(log))
        .containsExactlyInAnyOrder("create keep r1", "create other", "create keep r2");
    JsonNode replaced = pull(ws);
    JsonNode keep = instance(replaced, "stateful_provisioning.keep");
    assertThat(keep.path("attributes").path("state_key").asText()).isEqualTo("r2");
    assertThat(keep.path("skip_destroy").asBoolean()).isTrue();

    // the configuration is gone: only the state's skip_destroy says "forget"
    Files.writeString(dir.resolve("main.tf"), skipRemoved(log));
    JsonNode removal = planJson(dir, ws, "-var", "rev=r2");
    assertThat(actions(removal, "stateful_provisioning.keep")).containsExactly("forget");
    assertThat(actions(removal, "stateful_provisioning.other")).containsExactly("forget");
    applyOk(dir, ws, "-var", "rev=r2");
    assertThat(addresses(pull(ws))).isEmpty();
    assertThat(lines(log))
        .as("forgetting runs nothing")
        .containsExactlyInAnyOrder("create keep r1", "create other", "create keep r2");
  }

  // --- replace_triggered_by -------------------------------------------------------------------

  static String triggeredConfig(Path log) {
    return """
        variable "a_rev" {
        }

        resource "stateful_provisioning" "a" {
          state_key = var.a_rev

          provisioner "local-exec" {
            command = "echo create a ${var.a_rev} >> %1$s"
          }
        }

        resource "stateful_provisioning" "b" {
          state_key = "b1"

          lifecycle {
            replace_triggered_by = [stateful_provisioning.a]
          }

          provisioner "local-exec" {
            command = "echo create b ${self.id} >> %1$s"
          }
        }
        """
        .formatted(log);
  }

  @Test
  void replaceTriggeredByReplacesTheDependentWhenOnlyTheTriggerChanges() throws Exception {
    Path log = stack.shared.resolve("lc-rtb.log");
    Path dir = stack.configDir("lc-rtb", triggeredConfig(log));
    String ws = "-workspace=lc-rtb";
    applyOk(dir, ws, "-var", "a_rev=r1");
    String firstB =
        instance(pull(ws), "stateful_provisioning.b").path("attributes").path("id").asText();
    assertThat(lines(log)).containsExactly("create a r1", "create b " + firstB);

    CliResult unchanged = stack.cli(dir, "plan", ws, "-detailed-exitcode", "-var", "a_rev=r1");
    assertThat(unchanged.exitCode()).as(unchanged.all()).isZero();

    JsonNode plan = planJson(dir, ws, "-var", "a_rev=r2");
    assertThat(actions(plan, "stateful_provisioning.a")).containsExactly("delete", "create");
    assertThat(change(plan, "stateful_provisioning.a").path("action_reason").asText())
        .isEqualTo("replace_because_cannot_update");
    assertThat(actions(plan, "stateful_provisioning.b")).containsExactly("delete", "create");
    assertThat(change(plan, "stateful_provisioning.b").path("action_reason").asText())
        .isEqualTo("replace_by_triggers");

    applyOk(dir, ws, "-var", "a_rev=r2");
    JsonNode state = pull(ws);
    String secondB =
        instance(state, "stateful_provisioning.b").path("attributes").path("id").asText();
    assertThat(secondB).isNotEqualTo(firstB);
    assertThat(
            instance(state, "stateful_provisioning.b")
                .path("attributes")
                .path("state_key")
                .asText())
        .isEqualTo("b1");
    assertThat(lines(log))
        .as("b's create-time step ran again, after a's")
        .containsExactly("create a r1", "create b " + firstB, "create a r2", "create b " + secondB);
  }

  // --- helpers --------------------------------------------------------------------------------

  private static void applyOk(Path dir, String ws, String... vars) {
    CliResult apply = stack.cli(dir, args(List.of("apply", ws, "-auto-approve"), vars));
    assertThat(apply.exitCode()).as(apply.all()).isZero();
    assertThat(apply.out()).as(apply.all()).contains("Apply complete!");
  }

  private static JsonNode planJson(Path dir, String ws, String... vars) throws Exception {
    CliResult plan = stack.cli(dir, args(List.of("plan", ws, "-json"), vars));
    assertThat(plan.exitCode()).as(plan.all()).isZero();
    return JSON.readTree(plan.out());
  }

  /** {@code head} followed by {@code vars}. */
  private static String[] args(List<String> head, String... vars) {
    List<String> all = new ArrayList<>(head);
    all.addAll(List.of(vars));
    return all.toArray(String[]::new);
  }

  private static JsonNode change(JsonNode plan, String address) {
    for (JsonNode rc : plan.path("resource_changes")) {
      if (rc.path("address").asText().equals(address)) {
        return rc;
      }
    }
    throw new AssertionError("no resource change for " + address + " in " + plan);
  }

  private static List<String> actions(JsonNode plan, String address) {
    List<String> actions = new ArrayList<>();
    change(plan, address).path("change").path("actions").forEach(a -> actions.add(a.asText()));
    return actions;
  }

  private static JsonNode pull(String ws) throws Exception {
    CliResult pulled = stack.cli(stack.root, "state", "pull", ws);
    assertThat(pulled.exitCode()).as(pulled.all()).isZero();
    return JSON.readTree(pulled.out());
  }

  /** The v4 instance at {@code address} (resources without count/for_each only). */
  private static JsonNode instance(JsonNode state, String address) {
    for (JsonNode resource : state.path("resources")) {
      String name = resource.path("type").asText() + "." + resource.path("name").asText();
      if (name.equals(address)) {
        return resource.path("instances").get(0);
      }
    }
    throw new AssertionError("no instance " + address + " in " + state);
  }

  private static List<String> addresses(JsonNode state) {
    List<String> addresses = new ArrayList<>();
    for (JsonNode resource : state.path("resources")) {
      for (JsonNode ignored : resource.path("instances")) {
        addresses.add(resource.path("type").asText() + "." + resource.path("name").asText());
      }
    }
    return addresses;
  }

  private static List<String> lines(Path file) throws Exception {
    return Files.exists(file) ? Files.readAllLines(file) : List.of();
  }
}
