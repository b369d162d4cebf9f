package dev.stagecraft.planner.plan;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.planner.apply.ActionResolution;
import dev.stagecraft.schemas.seal.SealedValues;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every value that comes from state keeps the sensitive marks state recorded (docs/planning.md
 * "Sensitive values from state"): a configuration planned against a state holding a sealed value
 * can never get that value in clear — through {@code ignore_changes}, {@code replace_triggered_by},
 * a condition's {@code error_message}, an output, the rendered plan or the JSON plan.
 */
class SensitiveStateValuesTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String SECRET = "state-secret-Vx93q";
  static final String KEY = SecretsKeyring.generateEntry("k0");

  /** The sealing of the planner that wrote the state, and of the one that plans against it. */
  static AttributeSealing sealing() {
    return AttributeSealing.of(SecretsKeyring.parse(KEY), "t1", "default");
  }

  /**
   * A v4 state as Stagecraft writes it: {@code terraform_data.a} whose {@code input} and {@code
   * output} hold {@link #SECRET} sealed, {@code null_resource.b} and {@code
   * stateful_provisioning.s} whose {@code triggers.pw} does, each listed in {@code
   * sensitive_attributes} as the state service lists sealed paths; and a plain {@code
   * terraform_data.c}.
   */
  static String sealedState() throws Exception {
    List<Object> resources = new ArrayList<>();
    resources.add(
        resource(
            "terraform_data",
            "a",
            Map.of("id", "a-1", "input", SECRET, "output", SECRET),
            List.of(List.of("input"), List.of("output"))));
    resources.add(
        resource(
            "null_resource",
            "b",
            Map.of("id", "b-1", "triggers", Map.of("pw", SECRET, "plain", "visible")),
            List.of(List.of("triggers", "pw"))));
    resources.add(
        resource(
            "stateful_provisioning",
            "s",
            Map.of(
                "id",
                "s-1",
                "state_key",
                "k",
                "triggers",
                Map.of("pw", SECRET),
                "tags",
                Map.of("v", "1")),
            List.of(List.of("triggers", "pw"))));
    resources.add(
        resource(
            "terraform_data", "c", Map.of("id", "c-1", "input", "x", "output", "x"), List.of()));
    return JSON.writeValueAsString(
        Map.of("version", 4, "serial", 3, "lineage", "l-1", "resources", resources));
  }

  private static Map<String, Object> resource(
      String type, String name, Map<String, Object> attributes, List<List<Object>> paths) {
    String address = type + "." + name;
    Map<String, Object> instance = new LinkedHashMap<>();
    instance.put("schema_version", 0);
    instance.put("attributes", sealing().seal(address, attributes, paths));
    instance.put(
        "sensitive_attributes", paths.stream().map(SensitiveStateValuesTest::steps).toList());
    return Map.of("mode", "managed", "type", type, "name", name, "instances", List.of(instance));
  }

  private static List<Object> steps(List<Object> path) {
    List<Object> steps = new ArrayList<>();
    for (int i = 0; i < path.size(); i++) {
      Object step = path.get(i);
      steps.add(
          i == 0
              ? Map.of("type", "get_attr", "value", step)
              : Map.of("type", "index", "value", Map.of("value", step, "type", "string")));
    }
    return steps;
  }

  static PlanResult plan(String config, Map<String, String> variables) throws Exception {
    return Planner.plan(
        new PlanRequest("default", Map.of("main.tf", config), variables, null, false, null),
        PriorState.fromV4Json(sealedState(), sealing()));
  }

  static PlanResult plan(String config) throws Exception {
    return plan(config, Map.of());
  }

  /** Everything a caller of the plan can see: diagnostics, the text and the JSON plan. */
  static String everything(PlanResult result) throws Exception {
    StringBuilder all = new StringBuilder(result.renderDiagnostics());
    if (result.plan() != null) {
      all.append(PlanRenderer.render(result.plan()));
      all.append(JSON.writeValueAsString(PlanJson.toMap(result.plan())));
      result.plan().changeDocuments().values().forEach(all::append);
    }
    return all.toString();
  }

  /**
   * Resolves every change in plan order as the run coordinator does, checking each instance's
   * postconditions once it is applied; returns the attributes sent (sealed), by address, and adds
   * every problem to {@code problems}.
   */
  static Map<String, Map<String, Object>> dispatch(PlanResult result, Diagnostics problems) {
    Map<String, Map<String, Object>> applied = new LinkedHashMap<>();
    Map<String, Map<String, Object>> sent = new LinkedHashMap<>();
    int[] ids = {0};
    for (PlannedAction action : result.plan().changes()) {
      ActionResolution resolution =
          result.applyContext().resolve(action, applied, () -> "id-" + ++ids[0]);
      problems.addAll(resolution.diagnostics());
      applied.put(action.address(), resolution.attributes());
      sent.put(
          action.address(),
          sealing().seal(action.address(), resolution.attributes(), resolution.sensitivePaths()));
      problems.addAll(
          result
              .applyContext()
              .checkPostconditions(action.address(), resolution.attributes(), applied));
    }
    return sent;
  }

  /** Whether the value at {@code path} of what was sent for {@code address} is sealed. */
  static boolean sealedAt(Map<String, Map<String, Object>> sent, String address, Object... path) {
    Object node = sent.get(address);
    for (Object step : path) {
      node = node instanceof Map<?, ?> m ? m.get(String.valueOf(step)) : null;
    }
    return SealedValues.isSealed(node);
  }

  @Test
  void anOutputOfAnAttributeIgnoredWithIgnoreChangesAllIsRefusedAsSensitive() throws Exception {
    PlanResult result =
        plan(
            """
            resource "terraform_data" "a" {
              input = "whatever"
              lifecycle {
                ignore_changes = all
              }
            }
            output "leak" {
              value = terraform_data.a.input
            }
            """);

    assertThat(result.hasErrors()).as(everything(result)).isTrue();
    assertThat(result.renderDiagnostics())
        .contains("Output refers to sensitive values")
        .contains("output \"leak\"");
    assertThat(everything(result)).doesNotContain(SECRET);
  }

  @Test
  void outputsOfAttributesNamedInIgnoreChangesAreRefusedAsSensitive() throws Exception {
    PlanResult result =
        plan(
            """
            resource "terraform_data" "a" {
              input = "whatever"
              lifecycle {
                ignore_changes = [input]
              }
            }
            output "input" {
              value = terraform_data.a.input
            }
            output "output" {
              value = "mirrored: ${terraform_data.a.output}"
            }
            """);

    assertThat(result.diagnostics().errors())
        .extracting(d -> d.summary())
        .containsExactly("Output refers to sensitive values", "Output refers to sensitive values");
    assertThat(everything(result)).doesNotContain(SECRET);
  }

  @Test
  void anIgnoredMapKeyKeepsItsMarkWhileItsPlainNeighbourStaysPlain() throws Exception {
    String resource =
        """
        resource "null_resource" "b" {
          triggers = { pw = "configured", plain = "visible" }
          lifecycle {
            ignore_changes = [triggers["pw"]]
          }
        }
        """;

    PlanResult secret =
        plan(resource + "output \"pw\" {\n  value = null_resource.b.triggers[\"pw\"]\n}\n");
    PlanResult plain =
        plan(resource + "output \"plain\" {\n  value = null_resource.b.triggers.plain\n}\n");

    assertThat(secret.renderDiagnostics()).contains("Output refers to sensitive values");
    assertThat(everything(secret)).doesNotContain(SECRET);
    assertThat(plain.hasErrors()).as(plain.renderDiagnostics()).isFalse();
    assertThat(plain.plan().output("plain").orElseThrow().after()).isEqualTo("visible");
    assertThat(plain.plan().action("null_resource.b").orElseThrow().action())
        .isEqualTo(ActionType.NO_OP);
    assertThat(everything(plain)).doesNotContain(SECRET);
  }

  @Test
  void aSensitiveOutputOfAValueFromStateShowsNoValueAnywhere() throws Exception {
    PlanResult result =
        plan(
            """
            resource "terraform_data" "a" {
              input = "whatever"
              lifecycle {
                ignore_changes = all
              }
            }
            output "kept" {
              value     = terraform_data.a.output
              sensitive = true
            }
            """);

    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    OutputChange kept = result.plan().output("kept").orElseThrow();
    assertThat(kept.sensitive()).isTrue();
    assertThat(kept.after()).isNull();
    assertThat(PlanRenderer.render(result.plan())).contains("+ kept = (sensitive value)");
    var json = JSON.valueToTree(PlanJson.toMap(result.plan()));
    assertThat(json.at("/output_changes/kept/after_sensitive").asBoolean()).isTrue();
    assertThat(json.at("/output_changes/kept/after").isNull()).isTrue();
    assertThat(everything(result)).doesNotContain(SECRET);
  }

  @Test
  void anUpdateKeepingAnIgnoredSecretShowsItOnlyAsSensitiveAndDispatchesItSealed()
      throws Exception {
    PlanResult result =
        plan(
            """
            resource "stateful_provisioning" "s" {
              state_key = "k"
              triggers  = { pw = "configured" }
              tags      = { v = "2" }
              lifecycle {
                ignore_changes = [triggers]
              }
            }
            resource "terraform_data" "r" {
              input = stateful_provisioning.s.triggers["pw"]
            }
            """);

    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    PlannedAction update = result.plan().action("stateful_provisioning.s").orElseThrow();
    assertThat(update.action()).isEqualTo(ActionType.UPDATE);
    assertThat(PlanRenderer.render(result.plan()))
        .contains("triggers  = (sensitive value)")
        .contains("~ tags");
    var change = JSON.valueToTree(PlanJson.toMap(result.plan())).at("/resource_changes/0/change");
    assertThat(change.at("/before").has("triggers")).isFalse();
    assertThat(change.at("/after").has("triggers")).isFalse();
    assertThat(change.at("/before_sensitive/triggers").asBoolean()).isTrue();
    assertThat(change.at("/after_sensitive/triggers").asBoolean()).isTrue();
    // another resource reading the kept secret gets it marked, at plan and at apply
    assertThat(result.plan().action("terraform_data.r").orElseThrow().sensitivePaths())
        .contains("input");
    Diagnostics problems = new Diagnostics();
    Map<String, Map<String, Object>> sent = dispatch(result, problems);
    assertThat(problems.hasErrors()).as(problems.render(Map.of())).isFalse();
    assertThat(sealedAt(sent, "terraform_data.r", "input")).isTrue();
    assertThat(sealedAt(sent, "terraform_data.r", "output")).isTrue();
    assertThat(sealedAt(sent, "stateful_provisioning.s", "triggers", "pw")).isTrue();
    assertThat(everything(result) + JSON.writeValueAsString(sent)).doesNotContain(SECRET);
  }

  @Test
  void replaceTriggeredByASecretInStateFiresOnlyWhenItChangedAndShowsNeitherValue()
      throws Exception {
    String config =
        """
        variable "secret" {
          sensitive = true
        }
        resource "terraform_data" "a" {
          input = var.secret
        }
        resource "terraform_data" "c" {
          input = "x"
          lifecycle {
            replace_triggered_by = [terraform_data.a.input]
          }
        }
        """;
    String rotated = "rotated-Kd02p";

    PlanResult same = plan(config, Map.of("secret", SECRET));
    PlanResult changed = plan(config, Map.of("secret", rotated));

    assertThat(same.hasErrors()).as(same.renderDiagnostics()).isFalse();
    assertThat(same.plan().action("terraform_data.a").orElseThrow().action())
        .isEqualTo(ActionType.NO_OP);
    assertThat(same.plan().action("terraform_data.c").orElseThrow().action())
        .isEqualTo(ActionType.NO_OP);
    assertThat(changed.hasErrors()).as(changed.renderDiagnostics()).isFalse();
    assertThat(changed.plan().action("terraform_data.a").orElseThrow().action())
        .isEqualTo(ActionType.UPDATE);
    PlannedAction c = changed.plan().action("terraform_data.c").orElseThrow();
    assertThat(c.action()).isEqualTo(ActionType.DELETE_THEN_CREATE);
    assertThat(c.reason()).isEqualTo(ActionReason.REPLACE_BY_TRIGGERS);
    assertThat(PlanRenderer.render(changed.plan()))
        .contains("~ input  = (sensitive value) -> (sensitive value)");
    for (PlanResult result : List.of(same, changed)) {
      assertThat(everything(result)).doesNotContain(SECRET).doesNotContain(rotated);
    }
  }

  @Test
  void conditionMessagesThatReferToAValueFromStateAreNotShownAsInTerraform() throws Exception {
    PlanResult result =
        plan(
            """
            resource "terraform_data" "a" {
              input = "whatever"
              lifecycle {
                ignore_changes = all
                postcondition {
                  condition     = self.input == "expected"
                  error_message = "a holds ${self.input}"
                }
              }
            }
            resource "terraform_data" "c" {
              input = "x"
              lifecycle {
                precondition {
                  condition     = terraform_data.a.output == "expected"
                  error_message = "a's output is ${terraform_data.a.output}"
                }
                precondition {
                  condition     = length(terraform_data.a.output) == 0
                  error_message = "a's output is not empty"
                }
              }
            }
            """);

    assertThat(result.diagnostics().errors())
        .extracting(d -> d.summary() + ": " + d.detail().lines().findFirst().orElse(""))
        .containsExactlyInAnyOrder(
            "Resource postcondition failed: " + Conditions.SENSITIVE_MESSAGE,
            "Error message refers to sensitive values: The error expression used to explain this"
                + " condition refers to sensitive values, so Stagecraft will not display the"
                + " resulting message. Remove the references to sensitive values from"
                + " error_message, or, for a sensitive variable, use nonsensitive() carefully"
                + " where the result does not reveal the secret.",
            "Resource precondition failed: " + Conditions.SENSITIVE_MESSAGE,
            "Error message refers to sensitive values: The error expression used to explain this"
                + " condition refers to sensitive values, so Stagecraft will not display the"
                + " resulting message. Remove the references to sensitive values from"
                + " error_message, or, for a sensitive variable, use nonsensitive() carefully"
                + " where the result does not reveal the secret.",
            // a message without a sensitive value is shown as written
            "Resource precondition failed: a's output is not empty");
    assertThat(result.renderDiagnostics()).contains("main.tf:7:23").contains("main.tf:16:23");
    assertThat(everything(result)).doesNotContain(SECRET);
  }

  @Test
  void aPostconditionCheckedAtApplyDoesNotShowAValueKeptFromState() throws Exception {
    PlanResult result =
        plan(
            """
            resource "terraform_data" "n" {
              input = "new"
            }
            resource "stateful_provisioning" "s" {
              state_key = "k"
              triggers  = { pw = "configured" }
              tags      = { v = "2" }
              lifecycle {
                ignore_changes = [triggers]
                postcondition {
                  condition     = self.triggers["pw"] == terraform_data.n.id
                  error_message = "pw is ${self.triggers["pw"]}"
                }
              }
            }
            """);
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();

    Diagnostics problems = new Diagnostics();
    Map<String, Map<String, Object>> sent = dispatch(result, problems);

    assertThat(problems.errors())
        .extracting(d -> d.summary())
        .containsExactlyInAnyOrder(
            "Resource postcondition failed", "Error message refers to sensitive values");
    assertThat(problems.render(Map.of()))
        .contains(Conditions.SENSITIVE_MESSAGE)
        .contains("stateful_provisioning.s")
        .doesNotContain(SECRET);
    assertThat(sealedAt(sent, "stateful_provisioning.s", "triggers", "pw")).isTrue();
    assertThat(JSON.writeValueAsString(sent)).doesNotContain(SECRET);
  }

  @Test
  void aPushedStateListingSensitiveValuesInClearShowsThemNowhereInThePlan() throws Exception {
    String pushed =
        """
        {"version":4,"serial":2,"lineage":"l","outputs":{
           "token":{"value":"%1$s","type":"string","sensitive":true},
           "gone":{"value":"%1$s","type":"string","sensitive":true}},
         "resources":[{"mode":"managed","type":"terraform_data","name":"a","instances":[{
           "schema_version":0,
           "attributes":{"id":"a-1","input":{"user":"u","pw":"%1$s"},"output":{"user":"u","pw":"%1$s"}},
           "sensitive_attributes":[
             [{"type":"get_attr","value":"input"},{"type":"index","value":{"value":"pw","type":"string"}}],
             [{"type":"get_attr","value":"output"},{"type":"index","value":{"value":"pw","type":"string"}}]]}]}]}
        """
            .formatted(SECRET);
    String config =
        """
        resource "terraform_data" "a" {
          input = { user = "u2", pw = "configured" }
          lifecycle {
            ignore_changes = [input["pw"]]
          }
        }
        output "token" {
          value     = terraform_data.a.output.pw
          sensitive = true
        }
        output "user" {
          value = terraform_data.a.output.user
        }
        """;

    PlanResult result =
        Planner.plan(
            new PlanRequest("default", Map.of("main.tf", config), Map.of(), null, false, null),
            PriorState.fromV4Json(pushed, AttributeSealing.off()));

    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    assertThat(result.plan().action("terraform_data.a").orElseThrow().action())
        .isEqualTo(ActionType.UPDATE);
    // the input changed, so the output is known after apply (as Terraform's terraform_data)
    assertThat(result.plan().output("user").orElseThrow().afterUnknown()).isTrue();
    var json = JSON.valueToTree(PlanJson.toMap(result.plan()));
    var attributes = json.at("/prior_state/resources/0/instances/0/attributes");
    assertThat(attributes.at("/input/pw").asText()).isEqualTo("(sensitive value)");
    assertThat(attributes.at("/input/user").asText()).isEqualTo("u");
    assertThat(json.at("/prior_state/outputs/token/value").asText()).isEqualTo("(sensitive value)");
    assertThat(json.at("/output_changes/gone/actions/0").asText()).isEqualTo("delete");
    assertThat(json.at("/output_changes/gone/before").isNull()).isTrue();
    assertThat(everything(result)).doesNotContain(SECRET);
  }

  @Test
  void anExpressionThatFailsOnAValueFromStateDoesNotQuoteIt() throws Exception {
    PlanResult result =
        plan(
            """
            resource "terraform_data" "a" {
              input = "whatever"
              lifecycle {
                ignore_changes = all
              }
            }
            resource "terraform_data" "sum" {
              input = terraform_data.a.input + 1
            }
            resource "terraform_data" "parsed" {
              input = parseint(terraform_data.a.input, 16)
            }
            resource "terraform_data" "indexed" {
              input = [1, 2][terraform_data.a.input]
            }
            resource "terraform_data" "keyed" {
              input = { k = 1 }[terraform_data.a.input]
            }
            """);

    assertThat(result.diagnostics().errors()).hasSize(4);
    assertThat(everything(result)).doesNotContain(SECRET);
  }

  @Test
  void nonsensitiveCannotRevealAValueFromStateNorAnythingComputedFromIt() throws Exception {
    PlanResult result =
        plan(
            """
            resource "terraform_data" "a" {
              input = "configured"
              lifecycle {
                ignore_changes = all
              }
            }
            resource "stateful_provisioning" "s" {
              state_key = "k"
              triggers  = { pw = "configured" }
              tags      = { v = "1" }
              lifecycle {
                ignore_changes = [triggers]
              }
            }
            resource "terraform_data" "r" {
              input = upper(stateful_provisioning.s.triggers["pw"])
            }
            output "direct" {
              value = nonsensitive(terraform_data.a.input)
            }
            output "copied" {
              value = nonsensitive(terraform_data.r.output)
            }
            """);

    assertThat(result.diagnostics().errors())
        .extracting(d -> d.summary() + ": " + d.detail())
        .hasSize(2)
        .allSatisfy(
            e ->
                assertThat(e)
                    .startsWith(
                        "Invalid function argument: Invalid value for argument 1 of"
                            + " nonsensitive(): the value is (or is computed from) a value the"
                            + " workspace's state holds sensitive"));
    assertThat(everything(result)).doesNotContain(SECRET).doesNotContain(SECRET.toUpperCase());
  }

  @Test
  void nonsensitiveOfAValueFromStateKnownOnlyAtApplyFailsTheActionThere() throws Exception {
    PlanResult result =
        plan(
            """
            resource "terraform_data" "n" {
              input = "new"
            }
            resource "stateful_provisioning" "s" {
              state_key = "k"
              triggers  = { pw = "configured" }
              tags      = { v = "2" }
              lifecycle {
                ignore_changes = [triggers]
              }
            }
            resource "terraform_data" "r" {
              input = nonsensitive(
                terraform_data.n.id == "" ? "" : stateful_provisioning.s.triggers["pw"])
            }
            """);
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();

    Diagnostics problems = new Diagnostics();
    Map<String, Map<String, Object>> sent = dispatch(result, problems);

    assertThat(problems.render(Map.of()))
        .contains("Invalid value for argument 1 of nonsensitive()")
        .doesNotContain(SECRET);
    assertThat(JSON.writeValueAsString(sent)).doesNotContain(SECRET);
  }

  @Test
  void aProvisionerUsingAKeptSecretIsASensitiveStepWhoseOutputTheExecutorRedacts()
      throws Exception {
    PlanResult result =
        plan(
            """
            resource "terraform_data" "a" {
              input = "configured"
              lifecycle {
                ignore_changes = all
              }
            }
            resource "null_resource" "p" {
              triggers = { x = "1" }
              provisioner "local-exec" {
                command = "echo ${terraform_data.a.input}"
              }
            }
            """);
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();

    PlannedAction create = result.plan().action("null_resource.p").orElseThrow();
    ActionResolution resolution = result.applyContext().resolve(create, Map.of(), () -> "p-1");

    assertThat(resolution.hasErrors()).as(resolution.renderDiagnostics()).isFalse();
    assertThat(resolution.steps())
        .singleElement()
        .satisfies(s -> assertThat(s.sensitive()).isTrue());
    // the executor replaces these values by (sensitive value) in every output line
    assertThat(resolution.sensitiveValues()).contains(SECRET);
  }
}
