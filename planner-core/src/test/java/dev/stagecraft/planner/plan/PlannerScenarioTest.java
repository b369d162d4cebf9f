package dev.stagecraft.planner.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.diag.Diagnostic;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The planning rules of the foundation slice, each as configuration + prior state → actions. */
class PlannerScenarioTest {

  static final String SEED_EXAMPLE =
      """
      variable "revision_to_deploy" {
      }

      resource "stateful_provisioning" "app" {
          # Run deployment steps whenever the revision_to_deploy changes.
          state_key = "${var.revision_to_deploy}"

          provisioner "local-exec" {
              command = "echo ${var.revision_to_deploy} >> deployed.txt"
          }
      }
      """;

  static PlanResult plan(String config, Map<String, String> vars, PriorState prior) {
    return Planner.plan(
        new PlanRequest("default", Map.of("main.tf", config), vars, List.of(), false, null), prior);
  }

  static PriorState stateWith(PriorInstance... instances) {
    Map<String, PriorInstance> map = new LinkedHashMap<>();
    for (PriorInstance i : instances) {
      map.put(i.address(), i);
    }
    return new PriorState(3, "lineage-1", map);
  }

  static PriorInstance app(String stateKey, boolean tainted) {
    return new PriorInstance(
        "stateful_provisioning.app",
        "stateful_provisioning",
        "app",
        Map.of("id", "111", "state_key", stateKey),
        List.of(),
        tainted);
  }

  @Test
  void createsAnInstanceThatIsInConfigurationButNotInState() {
    PlanResult result = plan(SEED_EXAMPLE, Map.of("revision_to_deploy", "r1"), PriorState.empty());
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    PlannedAction action = result.plan().action("stateful_provisioning.app").orElseThrow();
    assertThat(action.action()).isEqualTo(ActionType.CREATE);
    assertThat(action.after()).containsEntry("state_key", "r1");
    assertThat(action.afterUnknown()).contains("id");
    assertThat(PlanRenderer.render(result.plan()))
        .contains("# stateful_provisioning.app will be created")
        .contains("+ id        = (known after apply)")
        .contains("Plan: 1 to add, 0 to change, 0 to destroy.");
  }

  @Test
  void doesNothingWhenTheStateKeyIsUnchanged() {
    PlanResult result =
        plan(SEED_EXAMPLE, Map.of("revision_to_deploy", "r1"), stateWith(app("r1", false)));
    assertThat(result.plan().hasChanges()).isFalse();
    assertThat(result.plan().action("stateful_provisioning.app").orElseThrow().action())
        .isEqualTo(ActionType.NO_OP);
    assertThat(PlanRenderer.render(result.plan())).startsWith("No changes.");
  }

  @Test
  void replacesTheInstanceWhenTheStateKeyChanged() {
    PlanResult result =
        plan(SEED_EXAMPLE, Map.of("revision_to_deploy", "r2"), stateWith(app("r1", false)));
    PlannedAction action = result.plan().action("stateful_provisioning.app").orElseThrow();
    assertThat(action.action()).isEqualTo(ActionType.DELETE_THEN_CREATE);
    assertThat(action.action().terraformActions()).containsExactly("delete", "create");
    assertThat(action.reason()).isEqualTo(ActionReason.REPLACE_BECAUSE_CANNOT_UPDATE);
    assertThat(action.replacePaths()).containsExactly("state_key");
    assertThat(PlanRenderer.render(result.plan()))
        .contains("-/+ resource \"stateful_provisioning\" \"app\"")
        .contains("~ state_key = \"r1\" -> \"r2\" # forces replacement")
        .contains("Plan: 1 to add, 0 to change, 1 to destroy.");
  }

  @Test
  void replacesATaintedInstanceEvenWhenNothingChanged() {
    PlanResult result =
        plan(SEED_EXAMPLE, Map.of("revision_to_deploy", "r1"), stateWith(app("r1", true)));
    PlannedAction action = result.plan().action("stateful_provisioning.app").orElseThrow();
    assertThat(action.action()).isEqualTo(ActionType.DELETE_THEN_CREATE);
    assertThat(action.reason()).isEqualTo(ActionReason.REPLACE_BECAUSE_TAINTED);
    assertThat(PlanRenderer.render(result.plan())).contains("is tainted, so must be replaced");
  }

  @Test
  void destroysAnInstanceWhoseResourceLeftTheConfiguration() {
    PlanResult result =
        plan("variable \"x\" {\n  default = 1\n}\n", Map.of(), stateWith(app("r1", false)));
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    PlannedAction action = result.plan().action("stateful_provisioning.app").orElseThrow();
    assertThat(action.action()).isEqualTo(ActionType.DELETE);
    assertThat(action.reason()).isEqualTo(ActionReason.DELETE_BECAUSE_NO_RESOURCE_CONFIG);
    assertThat(PlanRenderer.summary(result.plan()))
        .isEqualTo("Plan: 0 to add, 0 to change, 1 to destroy.");
  }

  @Test
  void updatesTagsInPlaceWithoutReplacing() {
    String config =
        """
        resource "stateful_provisioning" "app" {
          state_key = "r1"
          tags = { team = "blue" }
        }
        """;
    PlanResult result = plan(config, Map.of(), stateWith(app("r1", false)));
    PlannedAction action = result.plan().action("stateful_provisioning.app").orElseThrow();
    assertThat(action.action()).isEqualTo(ActionType.UPDATE);
    assertThat(action.after()).containsEntry("id", "111");
  }

  @Test
  void ordersADependentAfterItsDependencyThroughDependsOnAndReferences() {
    String config =
        """
        resource "stateful_provisioning" "db" {
          state_key = "v1"
        }
        resource "stateful_provisioning" "app" {
          state_key = "v1"
          depends_on = [stateful_provisioning.db]
        }
        resource "stateful_provisioning" "smoke" {
          state_key = "${stateful_provisioning.app.id}"
        }
        """;
    PlanResult result = plan(config, Map.of(), PriorState.empty());
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    Plan plan = result.plan();
    assertThat(plan.action("stateful_provisioning.app").orElseThrow().waitFor())
        .containsExactly("stateful_provisioning.db");
    // the nearest changing dependency only: app itself waits for db, so the order holds
    assertThat(plan.action("stateful_provisioning.smoke").orElseThrow().waitFor())
        .containsExactly("stateful_provisioning.app");
    assertThat(plan.action("stateful_provisioning.smoke").orElseThrow().afterUnknown())
        .contains("state_key");
    assertThat(plan.action("stateful_provisioning.smoke").orElseThrow().dependencies())
        .containsExactly("stateful_provisioning.app");
  }

  @Test
  void destroysDependentsBeforeTheirDependencies() {
    PriorInstance db =
        new PriorInstance(
            "stateful_provisioning.db",
            "stateful_provisioning",
            "db",
            Map.of("id", "1"),
            List.of(),
            false);
    PriorInstance app =
        new PriorInstance(
            "stateful_provisioning.app",
            "stateful_provisioning",
            "app",
            Map.of("id", "2"),
            List.of("stateful_provisioning.db"),
            false);
    PlanResult result = plan("", Map.of(), stateWith(db, app));
    assertThat(result.plan().action("stateful_provisioning.db").orElseThrow().waitFor())
        .containsExactly("stateful_provisioning.app");
    assertThat(result.plan().action("stateful_provisioning.app").orElseThrow().waitFor()).isEmpty();
  }

  @Test
  void reportsAnUndefinedVariableWithItsPosition() {
    PlanResult result =
        plan(
            "resource \"stateful_provisioning\" \"app\" {\n  state_key = var.nope\n}\n",
            Map.of(),
            PriorState.empty());
    assertThat(result.hasErrors()).isTrue();
    Diagnostic d = result.diagnostics().errors().get(0);
    assertThat(d.summary()).isEqualTo("Reference to undeclared input variable");
    assertThat(d.range().toString()).isEqualTo("main.tf:2:15");
  }

  @Test
  void reportsAReferenceToAnUndeclaredResourceWithItsPosition() {
    PlanResult result =
        plan(
            "resource \"stateful_provisioning\" \"app\" {\n  state_key = stateful_provisioning.ghost.id\n}\n",
            Map.of(),
            PriorState.empty());
    Diagnostic d = result.diagnostics().errors().get(0);
    assertThat(d.summary()).isEqualTo("Reference to undeclared resource");
    assertThat(d.range().toString()).isEqualTo("main.tf:2:15");
  }

  @Test
  void reportsADependencyCycleNamingEveryResourceInIt() {
    String config =
        """
        resource "stateful_provisioning" "a" {
          state_key = stateful_provisioning.b.id
        }
        resource "stateful_provisioning" "b" {
          state_key = "x"
          depends_on = [stateful_provisioning.a]
        }
        """;
    PlanResult result = plan(config, Map.of(), PriorState.empty());
    Diagnostic d = result.diagnostics().errors().get(0);
    assertThat(d.summary())
        .startsWith("Cycle:")
        .contains("stateful_provisioning.a")
        .contains("stateful_provisioning.b");
    assertThat(d.range().toString()).startsWith("main.tf:1:");
  }

  @Test
  void reportsARequiredVariableWithoutValue() {
    PlanResult result = plan(SEED_EXAMPLE, Map.of(), PriorState.empty());
    assertThat(result.diagnostics().errors())
        .extracting(Diagnostic::summary)
        .contains("No value for required variable");
  }

  @Test
  void validateAcceptsTheSeedExampleWithoutVariableValues() {
    assertThat(Planner.validate(Map.of("main.tf", SEED_EXAMPLE), null).hasErrors()).isFalse();
  }

  @Test
  void theDigestOfAPlanAgainstAnEmptyWorkspaceDoesNotDependOnItsNotYetPersistedLineage() {
    String emptyA = "{\"version\":4,\"serial\":0,\"lineage\":\"aaa\",\"resources\":[]}";
    String emptyB = "{\"version\":4,\"serial\":0,\"lineage\":\"bbb\",\"resources\":[]}";
    PlanResult a =
        plan(SEED_EXAMPLE, Map.of("revision_to_deploy", "r1"), PriorState.fromV4Json(emptyA));
    PlanResult b =
        plan(SEED_EXAMPLE, Map.of("revision_to_deploy", "r1"), PriorState.fromV4Json(emptyB));
    assertThat(a.plan().digest()).isEqualTo(b.plan().digest());
    PriorState withLineage = new PriorState(3, "one", stateWith(app("r1", false)).instances());
    PriorState otherLineage = new PriorState(3, "two", stateWith(app("r1", false)).instances());
    assertThat(plan(SEED_EXAMPLE, Map.of("revision_to_deploy", "r2"), withLineage).plan().digest())
        .isNotEqualTo(
            plan(SEED_EXAMPLE, Map.of("revision_to_deploy", "r2"), otherLineage).plan().digest());
  }

  @Test
  void anInstanceOfAModuleNoLongerCalledIsDestroyedAndNeverStandsForARootResource() {
    // a Terraform state pushed from a configuration with module "net": its module.net instance
    // is not the root's null_resource.a, and goes with its module
    String state =
        """
        {"version":4,"serial":2,"lineage":"l","resources":[
          {"module":"module.net","mode":"managed","type":"null_resource","name":"a",
           "provider":"provider[\\"registry.terraform.io/hashicorp/null\\"]",
           "instances":[{"schema_version":0,"attributes":{"id":"7","triggers":null}}]}]}
        """;
    PriorState prior = PriorState.fromV4Json(state);
    assertThat(prior.instances()).containsOnlyKeys("module.net.null_resource.a");
    PlanResult result = plan("resource \"null_resource\" \"a\" {}\n", Map.of(), prior);

    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    assertThat(result.plan().action("null_resource.a").orElseThrow().action())
        .isEqualTo(ActionType.CREATE);
    PlannedAction gone = result.plan().action("module.net.null_resource.a").orElseThrow();
    assertThat(gone.action()).isEqualTo(ActionType.DELETE);
    assertThat(gone.reason()).isEqualTo(ActionReason.DELETE_BECAUSE_NO_MODULE);
    assertThat(PlanRenderer.render(result.plan()))
        .contains(
            "  # module.net.null_resource.a will be destroyed\n"
                + "  # (because module.net is not in configuration)");
    assertThat(PlanJson.render(result.plan()))
        .contains("\"action_reason\":\"delete_because_no_module\"");
  }

  @Test
  void onAServerFileFunctionsCannotReadTheServicesOwnFiles() {
    PlanResult result =
        plan(
            "resource \"null_resource\" \"leak\" {\n"
                + "  triggers = { passwd = file(\"/etc/passwd\") }\n}\n",
            Map.of(),
            PriorState.empty());
    assertThat(result.hasErrors()).isTrue();
    assertThat(result.renderDiagnostics())
        .contains(
            "\"/etc/passwd\": absolute paths cannot be read on the server; put the file in the"
                + " configuration directory or pass its content in a variable")
        .doesNotContain("Error: Error:");
  }

  @Test
  void samePlanHasTheSameDigest() {
    PlanResult a =
        plan(SEED_EXAMPLE, Map.of("revision_to_deploy", "r2"), stateWith(app("r1", false)));
    PlanResult b =
        plan(SEED_EXAMPLE, Map.of("revision_to_deploy", "r2"), stateWith(app("r1", false)));
    PlanResult c =
        plan(SEED_EXAMPLE, Map.of("revision_to_deploy", "r3"), stateWith(app("r1", false)));
    assertThat(a.plan().digest()).isEqualTo(b.plan().digest()).isNotEqualTo(c.plan().digest());
    assertThat(PlanJson.render(a.plan()))
        .contains("\"actions\":[\"delete\",\"create\"]")
        .contains("\"action_reason\":\"replace_because_cannot_update\"");
  }

  static final String CHAIN =
      """
      variable "rev" {}
      resource "stateful_provisioning" "db" {
        state_key = var.rev
        provisioner "local-exec" {
          command = "migrate"
        }
      }
      resource "stateful_provisioning" "app" {
        state_key  = var.rev
        depends_on = [stateful_provisioning.db]
        provisioner "local-exec" {
          command = "deploy"
        }
      }
      """;

  static PriorInstance instance(String name, String stateKey, List<String> dependencies) {
    return new PriorInstance(
        "stateful_provisioning." + name,
        "stateful_provisioning",
        name,
        Map.of("id", name + "-1", "state_key", stateKey),
        dependencies,
        false);
  }

  @Test
  void aChangePlannedAgainAfterTheChangesBeforeItWereAppliedIsCoveredByTheApprovedOne() {
    PriorState before =
        stateWith(
            instance("db", "r1", List.of()),
            instance("app", "r1", List.of("stateful_provisioning.db")));
    Plan approved = plan(CHAIN, Map.of("rev", "r2"), before).plan();
    // db was applied: the state moved, app is what remains
    PriorState afterDb =
        new PriorState(
            4,
            "lineage-1",
            stateWith(
                    instance("db", "r2", List.of()),
                    instance("app", "r1", List.of("stateful_provisioning.db")))
                .instances());
    Plan rest = plan(CHAIN, Map.of("rev", "r2"), afterDb).plan();

    assertThat(approved.changeDocuments())
        .containsOnlyKeys("stateful_provisioning.db", "stateful_provisioning.app");
    assertThat(rest.changeDocuments()).containsOnlyKeys("stateful_provisioning.app");
    String app = approved.changeDocuments().get("stateful_provisioning.app");
    assertThat(rest.changeDocuments().get("stateful_provisioning.app")).isEqualTo(app);
    assertThat(PlanJson.covers(app, rest.changeDocuments().get("stateful_provisioning.app")))
        .isTrue();
    assertThat(rest.digest()).as("the whole plan differs").isNotEqualTo(approved.digest());

    // app planned to a different revision is a different change
    Plan other = plan(CHAIN, Map.of("rev", "r3"), afterDb).plan();
    assertThat(PlanJson.covers(app, other.changeDocuments().get("stateful_provisioning.app")))
        .isFalse();
    assertThat(PlanJson.covers(app, approved.changeDocuments().get("stateful_provisioning.db")))
        .as("another instance's change")
        .isFalse();
  }

  static final String REFERENCE_CHAIN =
      """
      variable "rev" {}
      resource "stateful_provisioning" "db" {
        state_key = var.rev
      }
      resource "stateful_provisioning" "app" {
        state_key = "v1"
        triggers  = { db = stateful_provisioning.db.id }
      }
      """;

  static PriorInstance instance(String name, Map<String, Object> attributes, List<String> deps) {
    return new PriorInstance(
        "stateful_provisioning." + name, "stateful_provisioning", name, attributes, deps, false);
  }

  @Test
  void aValueUnknownWhenApprovedMayBeKnownWhenPlannedAgainButNotTheOtherWayRound() {
    // db is replaced, so its id, and with it app's trigger, is known only once db is applied
    PriorState before =
        stateWith(
            instance("db", Map.of("id", "db-1", "state_key", "r1"), List.of()),
            instance(
                "app",
                Map.of("id", "app-1", "state_key", "v1", "triggers", Map.of("db", "db-1")),
                List.of("stateful_provisioning.db")));
    Plan approved = plan(REFERENCE_CHAIN, Map.of("rev", "r2"), before).plan();
    String app = approved.changeDocuments().get("stateful_provisioning.app");
    assertThat(app)
        .as("the trigger is unknown when approved")
        .contains("\"triggers\":{\"db\":true}");

    PriorState afterDb =
        new PriorState(
            4,
            "lineage-1",
            stateWith(
                    instance("db", Map.of("id", "db-2", "state_key", "r2"), List.of()),
                    instance(
                        "app",
                        Map.of("id", "app-1", "state_key", "v1", "triggers", Map.of("db", "db-1")),
                        List.of("stateful_provisioning.db")))
                .instances());
    String rest =
        plan(REFERENCE_CHAIN, Map.of("rev", "r2"), afterDb)
            .plan()
            .changeDocuments()
            .get("stateful_provisioning.app");
    assertThat(rest).as("known now").contains("db-2").isNotEqualTo(app);

    assertThat(PlanJson.covers(app, rest)).isTrue();
    assertThat(PlanJson.covers(rest, app)).as("unknown now, known when approved").isFalse();
  }
}
