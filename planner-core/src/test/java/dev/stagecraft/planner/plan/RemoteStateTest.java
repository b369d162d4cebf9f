package dev.stagecraft.planner.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.diag.Diagnostic;
import dev.stagecraft.language.diag.Diagnostics;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code data "terraform_remote_state"} (docs/planning.md "Remote state"): what must be read is
 * known before planning; what was read becomes {@code data.terraform_remote_state.NAME.outputs},
 * with its types, defaults and sensitive marks; every configuration mistake is an error at its
 * position.
 */
class RemoteStateTest {
  static final String NET = "data.terraform_remote_state.net";
  static final String SECRET = "remote-secret-Qz81";

  static PlanRequest request(String config, Map<String, String> vars) {
    return new PlanRequest("app", Map.of("main.tf", config), vars, List.of(), false, null, true);
  }

  static PlanResult plan(String config, Map<String, RemoteStateRead> reads) {
    return plan(config, Map.of(), reads);
  }

  static PlanResult plan(
      String config, Map<String, String> vars, Map<String, RemoteStateRead> reads) {
    return Planner.plan(request(config, vars).withRemoteStates(reads), PriorState.empty());
  }

  static RemoteStateRead.Found found(Object... nameValueSensitive) {
    Map<String, Map<String, Object>> outputs = new LinkedHashMap<>();
    for (int i = 0; i < nameValueSensitive.length; i += 3) {
      Map<String, Object> output = new LinkedHashMap<>();
      output.put("value", nameValueSensitive[i + 1]);
      output.put("type", "string");
      output.put("sensitive", nameValueSensitive[i + 2]);
      outputs.put((String) nameValueSensitive[i], output);
    }
    return new RemoteStateRead.Found(outputs);
  }

  static List<String> errors(PlanResult result) {
    return result.diagnostics().errors().stream()
        .map(d -> d.summary() + " @" + d.range().start().line() + ":" + d.range().start().column())
        .toList();
  }

  static final String READS_NET =
      """
      data "terraform_remote_state" "net" {
        backend = "stagecraft"
        config  = { workspace = "network" }
      }
      """;

  @Test
  void outputsKeepTheirTypesAndDecideThePlan() {
    PlanResult result =
        plan(
            READS_NET
                + """
                resource "stateful_provisioning" "app" {
                  count     = data.terraform_remote_state.net.outputs.replicas
                  state_key = "${data.terraform_remote_state.net.outputs.vpc}-${count.index}"
                  tags      = data.terraform_remote_state.net.outputs.tags
                }
                output "first_zone" { value = data.terraform_remote_state.net.outputs.zones[0] }
                """,
            Map.of(
                NET,
                found(
                    "vpc",
                    "vpc-7",
                    false,
                    "replicas",
                    2,
                    false,
                    "tags",
                    Map.of("team", "net"),
                    false,
                    "zones",
                    List.of("eu-1a", "eu-1b"),
                    false)));
    assertThat(result.diagnostics().errors()).isEmpty();
    assertThat(result.plan().changes())
        .extracting(PlannedAction::address)
        .containsExactly("stateful_provisioning.app[0]", "stateful_provisioning.app[1]");
    assertThat(result.plan().action("stateful_provisioning.app[1]").orElseThrow().after())
        .containsEntry("state_key", "vpc-7-1")
        .containsEntry("tags", Map.of("team", "net"));
    assertThat(result.plan().output("first_zone").orElseThrow().after()).isEqualTo("eu-1a");
  }

  @Test
  void defaultsFillTheOutputsTheStateLacksAndTheStateWins() {
    String config =
        """
        data "terraform_remote_state" "net" {
          backend  = "stagecraft"
          config   = { workspace = "network" }
          defaults = { vpc = "vpc-default", region = "eu" }
        }
        output "vpc" { value = data.terraform_remote_state.net.outputs.vpc }
        output "region" { value = data.terraform_remote_state.net.outputs.region }
        """;
    PlanResult read = plan(config, Map.of(NET, found("vpc", "vpc-7", false)));
    assertThat(read.plan().output("vpc").orElseThrow().after()).isEqualTo("vpc-7");
    assertThat(read.plan().output("region").orElseThrow().after()).isEqualTo("eu");
    PlanResult none = plan(config, Map.of(NET, new RemoteStateRead.NotFound()));
    assertThat(none.diagnostics().errors()).isEmpty();
    assertThat(none.plan().output("vpc").orElseThrow().after()).isEqualTo("vpc-default");
  }

  @Test
  void aWorkspaceWithoutStateAndNoDefaultsIsAnErrorAtTheBlock() {
    PlanResult result =
        plan("# the network stack\n" + READS_NET, Map.of(NET, new RemoteStateRead.NotFound()));
    assertThat(errors(result)).containsExactly("Unable to find remote state @2:1");
    assertThat(result.diagnostics().errors().get(0).detail())
        .contains("workspace \"network\" of this tenant")
        .contains("defaults");
  }

  @Test
  void aRefusedReadIsAnErrorAtTheBlockWithTheReason() {
    PlanResult result =
        plan(
            "\n\n" + READS_NET,
            Map.of(NET, new RemoteStateRead.Refused("the address is not this Stagecraft's.")));
    assertThat(errors(result)).containsExactly("Remote state cannot be read @3:1");
    assertThat(result.renderDiagnostics())
        .contains("main.tf:3:1")
        .contains("cannot be read: the address is not this Stagecraft's.");
  }

  @Test
  void aSensitiveOutputStaysSensitiveEverywhere() {
    String config =
        READS_NET
            + """
            resource "stateful_provisioning" "db" {
              state_key = "v1"
              triggers  = { pw = data.terraform_remote_state.net.outputs.password }
            }
            output "pw" {
              value     = data.terraform_remote_state.net.outputs.password
              sensitive = true
            }
            """;
    PlanResult result = plan(config, Map.of(NET, found("password", SECRET, true)));
    assertThat(result.diagnostics().errors()).isEmpty();
    assertThat(PlanRenderer.render(result.plan())).doesNotContain(SECRET);
    assertThat(PlanJson.render(result.plan())).doesNotContain(SECRET);
    assertThat(result.plan().output("pw").orElseThrow().sensitive()).isTrue();
    assertThat(result.plan().action("stateful_provisioning.db").orElseThrow().sensitivePaths())
        .contains("triggers");

    PlanResult unmarked =
        plan(
            READS_NET
                + "output \"pw\" { value = data.terraform_remote_state.net.outputs.password }\n",
            Map.of(NET, found("password", SECRET, true)));
    assertThat(errors(unmarked)).containsExactly("Output refers to sensitive values @5:1");

    PlanResult unwrapped =
        plan(
            READS_NET
                + "output \"pw\" {\n"
                + "  value = nonsensitive(data.terraform_remote_state.net.outputs.password)\n"
                + "}\n",
            Map.of(NET, found("password", SECRET, true)));
    assertThat(unwrapped.hasErrors()).isTrue();
    assertThat(unwrapped.renderDiagnostics()).doesNotContain(SECRET);
  }

  @Test
  void theSourcesToReadAreKnownBeforePlanningFromVariablesAndLocals() {
    String config =
        """
        variable "env" {}
        locals { prefix = "net-${var.env}" }
        data "terraform_remote_state" "net" {
          backend = "stagecraft"
          config  = { workspace = local.prefix }
        }
        data "terraform_remote_state" "db" {
          backend   = "stagecraft"
          workspace = "db-${var.env}"
        }
        data "terraform_remote_state" "old" {
          backend = "http"
          config  = { address = "https://state.example/tf/v1/workspaces/old/state", username = "x" }
        }
        """;
    PlanRequest request = request(config, Map.of("env", "prod"));
    assertThat(Planner.remoteStateSources(request, Planner.parse(request.files())))
        .extracting(
            RemoteStateSource::address,
            RemoteStateSource::backend,
            RemoteStateSource::workspace,
            RemoteStateSource::httpAddress)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(NET, "stagecraft", "net-prod", null),
            org.assertj.core.groups.Tuple.tuple(
                "data.terraform_remote_state.db", "stagecraft", "db-prod", null),
            org.assertj.core.groups.Tuple.tuple(
                "data.terraform_remote_state.old",
                "http",
                null,
                "https://state.example/tf/v1/workspaces/old/state"));
    assertThat(Planner.remoteStateSources(request, Planner.parse(request.files())).get(0).range())
        .hasToString("main.tf:3:1");
  }

  @Test
  void argumentsThatDependOnResourcesOrOtherRemoteStatesAreErrors() {
    PlanResult result =
        plan(
            """
            resource "terraform_data" "name" { input = "network" }
            locals { ws = terraform_data.name.output }
            data "terraform_remote_state" "a" {
              backend = "stagecraft"
              config  = { workspace = terraform_data.name.output }
            }
            data "terraform_remote_state" "b" {
              backend = "stagecraft"
              config  = { workspace = local.ws }
            }
            data "terraform_remote_state" "c" {
              backend = "stagecraft"
              config  = { workspace = data.terraform_remote_state.a.outputs.next }
            }
            """,
            Map.of());
    assertThat(errors(result))
        .containsExactly(
            "Invalid reference in a remote state @3:1",
            "Invalid reference in a remote state @7:1",
            "Invalid reference in a remote state @11:1");
    List<Diagnostic> errs = result.diagnostics().errors();
    assertThat(errs.get(0).detail()).contains("refers to terraform_data.name.");
    assertThat(errs.get(1).detail()).contains("terraform_data.name (through local values)");
    assertThat(errs.get(2).detail()).contains("refers to data.terraform_remote_state.a.");
  }

  @Test
  void badSettingsAreErrorsAtTheirArgument() {
    PlanResult result =
        plan(
            """
            data "terraform_remote_state" "a" {
              backend = "stagecraft"
              config  = { workspace = "x", tenant = "other" }
            }
            data "terraform_remote_state" "b" {
              backend   = "http"
              config    = { address = "http://s/tf/v1/workspaces/b/state" }
              workspace = "staging"
            }
            data "terraform_remote_state" "c" {
              backend = "http"
              config  = {}
            }
            data "terraform_remote_state" "d" { backend = "stagecraft" }
            data "terraform_remote_state" "e" {
              backend   = "stagecraft"
              config    = { workspace = "x" }
              workspace = "y"
            }
            data "terraform_remote_state" "f" {
              backend = "stagecraft"
              config  = "x"
            }
            """,
            Map.of());
    assertThat(errors(result))
        .containsExactly(
            "Unsupported remote state setting @3:13",
            "Workspaces not supported @8:15",
            "Missing remote state address @12:13",
            "Missing remote state workspace @14:1",
            "Conflicting remote state workspace @18:15",
            "Invalid remote state argument @22:13");
    assertThat(result.diagnostics().errors().get(0).detail())
        .contains("\"tenant\" is not a setting")
        .contains("its own tenant only");
    assertThat(
            errors(
                plan(
                    "output \"o\" { value = data.terraform_remote_state.nope.outputs }\n",
                    Map.of())))
        .containsExactly("Reference to undeclared data source @1:22");
  }

  @Test
  void aPasswordInTheHttpConfigIsIgnoredWithAWarning() {
    PlanResult result =
        plan(
            """
            variable "token" { sensitive = true }
            data "terraform_remote_state" "a" {
              backend = "http"
              config  = { address = "http://s/tf/v1/workspaces/a/state", password = var.token }
            }
            """,
            Map.of("token", "sc_secret"),
            Map.of("data.terraform_remote_state.a", found()));
    assertThat(result.diagnostics().errors()).isEmpty();
    assertThat(result.diagnostics().list())
        .filteredOn(d -> d.summary().equals("Ignored remote state setting"))
        .singleElement()
        .satisfies(d -> assertThat(d.detail()).contains("remove the token"));
  }

  @Test
  void validateAndTheChecksReadNothingAndAcceptWhatDependsOnTheOutputs() {
    String config =
        """
        variable "ws" {}
        data "terraform_remote_state" "net" {
          backend = "stagecraft"
          config  = { workspace = var.ws }
        }
        resource "stateful_provisioning" "app" {
          count     = data.terraform_remote_state.net.outputs.replicas
          state_key = data.terraform_remote_state.net.outputs.vpc
        }
        """;
    Diagnostics validated = Planner.validate(Map.of("main.tf", config), Path.of("."));
    assertThat(validated.errors()).isEmpty();
    // the CLI's and the server's checks plan without reading: the outputs are unknown there
    PlanResult check = Planner.plan(request(config, Map.of("ws", "network")), PriorState.empty());
    assertThat(check.diagnostics().errors()).isEmpty();
    // the run reads them and plans with them
    PlanResult run =
        plan(
            config,
            Map.of("ws", "network"),
            Map.of(NET, found("replicas", 1, false, "vpc", "v", false)));
    assertThat(run.plan().changes())
        .extracting(PlannedAction::address)
        .containsExactly("stateful_provisioning.app[0]");
  }

  @Test
  void theDataObjectHasTerraformsAttributes() {
    PlanResult result =
        plan(
            READS_NET
                + """
                output "b" { value = data.terraform_remote_state.net.backend }
                output "w" { value = data.terraform_remote_state.net.workspace }
                output "c" { value = data.terraform_remote_state.net.config.workspace }
                """,
            Map.of(NET, found()));
    assertThat(result.plan().output("b").orElseThrow().after()).isEqualTo("stagecraft");
    assertThat(result.plan().output("w").orElseThrow().after()).isEqualTo("default");
    assertThat(result.plan().output("c").orElseThrow().after()).isEqualTo("network");
  }
}
