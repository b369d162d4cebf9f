package dev.stagecraft.planner.plan;

import static dev.stagecraft.planner.plan.Scenario.instance;
import static dev.stagecraft.planner.plan.Scenario.resource;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Plans the planner makes, written with {@link PlanCodec#encode(Plan)} and read back with {@link
 * PlanCodec#decode(String)}: the document re-encodes to the same bytes and holds every field of the
 * plan that its JSON holds — over the real-world corpus (creates, unknown values, count/for_each,
 * modules, outputs) and over scenarios for what a first plan does not have (no-ops, every replace
 * reason, deletes of orphans, destroy, moves, forgets, sensitive values, checks, output updates and
 * deletes, lifecycle flags).
 */
class PlanCodecRoundTripTest {
  private static final String SECRET = "hunter2-Qz81";

  @TempDir Path dir;

  static Stream<Named<String>> corpus() {
    return RealWorldConfigurationsTest.configurations();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("corpus")
  void aRealWorldPlanReadBackReEncodesToTheSameBytesAndKeepsEveryField(String directory)
      throws IOException {
    Path d = RealWorldConfigurationsTest.root().resolve(directory);
    PlanResult result =
        Planner.plan(
            new PlanRequest(
                "default",
                RealWorldConfigurationsTest.configurationFiles(d),
                RealWorldConfigurationsTest.tfvars(d),
                List.of(),
                false,
                d),
            PriorState.empty());
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();

    assertRoundTrip(result.plan());
  }

  @Test
  void everyReplaceReasonNoOpsAndOrphanDeletesRoundTrip() {
    Plan plan =
        planned(
            Scenario.config(
                    """
                resource "stateful_provisioning" "same" {
                  state_key = "v1"
                }
                resource "stateful_provisioning" "changed" {
                  state_key = "v2"
                }
                resource "stateful_provisioning" "web" {
                  count     = 2
                  state_key = "v1"
                }
                resource "null_resource" "each" {
                  for_each = toset(["a"])
                  triggers = { key = each.key }
                }
                resource "stateful_provisioning" "follower" {
                  state_key = "v1"
                  lifecycle {
                    replace_triggered_by = [stateful_provisioning.changed]
                    create_before_destroy = true
                  }
                }
                """)
                .state(
                    resource("stateful_provisioning", "same", instance(null, sp("1", "v1"))),
                    resource("stateful_provisioning", "changed", instance(null, sp("2", "v1"))),
                    resource(
                        "stateful_provisioning",
                        "web",
                        instance(0, sp("3", "v1"), "\"status\":\"tainted\""),
                        instance(1, sp("4", "v1")),
                        instance(2, sp("5", "v1"))),
                    resource(
                        "null_resource",
                        "each",
                        instance("a", "{\"id\":\"6\",\"triggers\":{\"key\":\"a\"}}"),
                        instance("b", "{\"id\":\"7\",\"triggers\":{\"key\":\"b\"}}")),
                    resource("stateful_provisioning", "follower", instance(null, sp("8", "v1"))),
                    resource("stateful_provisioning", "gone", instance(null, sp("9", "v1"))))
                .replace("stateful_provisioning.web[1]"));
    assertThat(plan.actions())
        .extracting(PlannedAction::reason)
        .contains(
            ActionReason.REPLACE_BECAUSE_CANNOT_UPDATE,
            ActionReason.REPLACE_BECAUSE_TAINTED,
            ActionReason.REPLACE_BY_REQUEST,
            ActionReason.REPLACE_BY_TRIGGERS,
            ActionReason.DELETE_BECAUSE_COUNT_INDEX,
            ActionReason.DELETE_BECAUSE_EACH_KEY,
            ActionReason.DELETE_BECAUSE_NO_RESOURCE_CONFIG);
    assertThat(plan.actions()).extracting(PlannedAction::action).contains(ActionType.NO_OP);

    PlanDocument doc = assertRoundTrip(plan);
    assertThat(doc.stagecraft().lifecycle())
        .containsEntry(
            "stateful_provisioning.follower", new PlanDocument.LifecycleFlags(true, false));
    assertThat(doc.priorSerial()).isEqualTo(7);
    assertThat(doc.priorLineage()).isEqualTo("l-1");
    assertThat(doc.priorState()).containsEntry("lineage", "l-1");
  }

  @Test
  void aDestroyPlanRoundTrips() {
    Plan plan =
        Scenario.config(
                """
                resource "stateful_provisioning" "app" {
                  state_key = "v1"
                }
                """)
            .state(resource("stateful_provisioning", "app", instance(null, sp("1", "v1"))))
            .destroy()
            .expect(Scenario.row("stateful_provisioning.app", ActionType.DELETE));

    PlanDocument doc = assertRoundTrip(plan);
    assertThat(doc.stagecraft().destroy()).isTrue();
    assertThat(doc.resourceChanges().get(0).change().after()).isNull();
    assertThat(doc.resourceChanges().get(0).change().afterSensitive()).isNull();
  }

  @Test
  void movesForgetsAndSkipDestroyRoundTrip() {
    Plan plan =
        Scenario.config(
                """
                resource "stateful_provisioning" "renamed" {
                  state_key = "v1"
                }
                moved {
                  from = stateful_provisioning.old
                  to   = stateful_provisioning.renamed
                }
                resource "stateful_provisioning" "kept" {
                  state_key = "v1"
                  lifecycle {
                    destroy = false
                  }
                }
                removed {
                  from = stateful_provisioning.left
                  lifecycle {
                    destroy = false
                  }
                }
                """)
            .state(
                resource("stateful_provisioning", "old", instance(null, sp("1", "v1"))),
                resource("stateful_provisioning", "kept", instance(null, sp("2", "v1"))),
                resource("stateful_provisioning", "left", instance(null, sp("3", "v1"))))
            .expect(
                Scenario.row(
                    "stateful_provisioning.left",
                    ActionType.FORGET,
                    ActionReason.DELETE_BECAUSE_NO_RESOURCE_CONFIG));

    PlanDocument doc = assertRoundTrip(plan);
    assertThat(doc.resourceChange("stateful_provisioning.renamed").orElseThrow().previousAddress())
        .isEqualTo("stateful_provisioning.old");
    assertThat(doc.stagecraft().lifecycle())
        .containsEntry("stateful_provisioning.kept", new PlanDocument.LifecycleFlags(false, true));
  }

  @Test
  void sensitiveValuesOutputsAndChecksRoundTripWithoutTheSecret() {
    String config =
        """
        variable "password" {
          default   = "%s"
          sensitive = true
        }
        resource "terraform_data" "db" {
          input = var.password
        }
        resource "stateful_provisioning" "app" {
          state_key = "v2"
        }
        output "key" { value = stateful_provisioning.app.state_key }
        output "id" { value = stateful_provisioning.app.id }
        output "secret" {
          value     = "pw=${var.password}"
          sensitive = true
        }
        check "version" {
          assert {
            condition     = stateful_provisioning.app.state_key == "v3"
            error_message = "The app is not at v3."
          }
        }
        """
            .formatted(SECRET);
    Plan plan =
        planned(
            Scenario.config(config)
                .rawState(
                    "{\"version\":4,\"serial\":3,\"lineage\":\"l\",\"outputs\":{"
                        + "\"gone\":{\"value\":\"x\",\"type\":\"string\"},"
                        + "\"key\":{\"value\":\"v1\",\"type\":\"string\"}},\"resources\":["
                        + resource("stateful_provisioning", "app", instance(null, sp("1", "v1")))
                        + "]}"));
    assertThat(plan.checks()).isNotEmpty();
    assertThat(plan.action("terraform_data.db").orElseThrow().sensitivePaths()).contains("input");

    String json = PlanCodec.encode(plan);
    assertThat(json).doesNotContain(SECRET);
    PlanDocument doc = assertRoundTrip(plan);
    assertThat(doc.resourceChange("terraform_data.db").orElseThrow().change().afterSensitive())
        .containsEntry("input", true);
    assertThat(doc.outputChanges().get("secret").sensitive()).isTrue();
    assertThat(doc.outputChanges().get("gone").actions()).isEqualTo(ActionType.DELETE);
    assertThat(doc.outputChanges().get("key").actions()).isEqualTo(ActionType.UPDATE);
    assertThat(doc.outputChanges().get("id").afterUnknown()).isTrue();
    assertThat(doc.checks())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.address()).isEqualTo("check.version");
              assertThat(c.status()).isEqualTo(CheckResult.Status.FAIL);
              assertThat(c.problems()).containsExactly("The app is not at v3.");
            });
    assertThat(doc.toString()).doesNotContain(SECRET);
  }

  @Test
  void modulesAndPartlyUnknownValuesRoundTrip() throws IOException {
    Files.createDirectories(dir.resolve("modules/app"));
    Files.writeString(
        dir.resolve("modules/app/main.tf"),
        """
        variable "nodes" { type = list(string) }
        resource "null_resource" "node" {
          count    = length(var.nodes)
          triggers = { node = var.nodes[count.index], at = timestamp() }
        }
        output "first" { value = null_resource.node[0].id }
        """);
    PlanResult result =
        Planner.plan(
            new PlanRequest(
                "default",
                Map.of(
                    "main.tf",
                    """
                    module "app" {
                      for_each = toset(["eu", "us"])
                      source   = "./modules/app"
                      nodes    = ["a", "b"]
                    }
                    output "first" { value = module.app["eu"].first }
                    """),
                Map.of(),
                List.of(),
                false,
                dir),
            PriorState.empty());
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();

    PlanDocument doc = assertRoundTrip(result.plan());
    PlanDocument.ResourceChange node =
        doc.resourceChange("module.app[\"eu\"].null_resource.node[1]").orElseThrow();
    assertThat(node.moduleAddress()).isEqualTo("module.app[\"eu\"]");
    assertThat(node.index()).isEqualTo(1L);
    assertThat(node.change().afterUnknown()).containsKey("triggers");
  }

  /**
   * Encodes, decodes and re-encodes {@code plan}: the same bytes, and the document holds what the
   * plan's JSON holds, field by field.
   */
  private static PlanDocument assertRoundTrip(Plan plan) {
    String json = PlanCodec.encode(plan);
    assertThat(json).isEqualTo(PlanJson.render(plan));
    PlanDocument doc = PlanCodec.decode(json);
    assertThat(PlanCodec.encode(doc)).isEqualTo(json);

    assertThat(doc.formatVersion()).isEqualTo(PlanJson.FORMAT_VERSION);
    assertThat(doc.stagecraft().workspace()).isEqualTo(plan.workspace());
    assertThat(doc.priorSerial()).isEqualTo(plan.priorSerial());
    assertThat(doc.priorLineage()).isEqualTo(plan.priorLineage());
    assertThat(doc.stagecraft().destroy()).isEqualTo(plan.destroy());
    assertThat(doc.resourceChanges()).hasSameSizeAs(plan.actions());
    for (int i = 0; i < plan.actions().size(); i++) {
      PlannedAction a = plan.actions().get(i);
      PlanDocument.ResourceChange rc = doc.resourceChanges().get(i);
      assertThat(rc.address()).isEqualTo(a.address());
      assertThat(rc.type()).isEqualTo(a.type());
      assertThat(rc.name()).isEqualTo(a.name());
      Object key = a.index();
      assertThat(rc.index()).isEqualTo(key instanceof Integer n ? Long.valueOf(n) : key);
      assertThat(rc.change().actions()).isEqualTo(a.action());
      assertThat(rc.reason()).isEqualTo(a.reason());
      assertThat(rc.previousAddress()).isEqualTo(a.previousAddress());
      assertThat(rc.change().afterUnknown().keySet()).isEqualTo(a.afterUnknown());
      assertThat(rc.change().sensitiveAttributes()).isEqualTo(a.sensitivePaths());
      if (a.after() != null) {
        Set<String> shown = new HashSet<>(a.after().keySet());
        shown.removeAll(a.sensitivePaths());
        assertThat(rc.change().after().keySet()).isEqualTo(shown);
      }
      assertThat(rc.change().replacePaths().stream().map(p -> p.get(0)).toList())
          .containsExactlyInAnyOrderElementsOf(a.replacePaths());
      assertThat(doc.stagecraft().waitFor().get(a.address())).isEqualTo(a.waitFor());
    }
    assertThat(doc.outputChanges().keySet())
        .containsExactlyInAnyOrderElementsOf(
            plan.outputChanges().stream().map(OutputChange::name).toList());
    for (OutputChange o : plan.outputChanges()) {
      PlanDocument.Output out = doc.outputChanges().get(o.name());
      assertThat(out.actions().terraformActions()).isEqualTo(o.actions());
      assertThat(out.afterUnknown()).isEqualTo(o.afterUnknown());
      assertThat(out.sensitive()).isEqualTo(o.sensitive());
    }
    assertThat(doc.checks())
        .extracting(PlanDocument.Check::name)
        .containsExactlyInAnyOrderElementsOf(
            plan.checks().stream().map(CheckResult::name).toList());
    return doc;
  }

  private static Plan planned(Scenario scenario) {
    PlanResult result = scenario.plan();
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    return result.plan();
  }

  private static String sp(String id, String stateKey) {
    return "{\"id\":\"" + id + "\",\"state_key\":\"" + stateKey + "\"}";
  }
}
