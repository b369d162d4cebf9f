package dev.stagecraft.planner.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.planner.apply.ActionResolution;
import dev.stagecraft.schemas.seal.SealedValues;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Sensitive values written directly into resource attributes (docs/adr/0024): the plan shows them
 * as {@code (sensitive value)}, the dispatched attributes hold them sealed, and the next plan opens
 * the sealed prior values, so an unchanged secret is a no-op (even after a key rotation) and a
 * changed one replaces.
 */
class SealedAttributesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SECRET = "s3cr3t-attr-Hunter2";
  private static final String CONFIG =
      """
      variable "secret" {
        sensitive = true
      }
      resource "stateful_provisioning" "app" {
        state_key = "rev-${var.secret}"
        triggers  = { pw = var.secret, plain = "visible" }
      }
      resource "terraform_data" "d" {
        input = var.secret
      }
      resource "null_resource" "derived" {
        triggers = { digest = sha256(var.secret) }
      }
      """;

  private final String k0 = SecretsKeyring.generateEntry("k0");
  private final String k1 = SecretsKeyring.generateEntry("k1");

  private static PlanResult plan(String secret, PriorState prior) {
    PlanResult result =
        Planner.plan(
            new PlanRequest(
                "default", Map.of("main.tf", CONFIG), Map.of("secret", secret), null, false, null),
            prior);
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    return result;
  }

  /** Applies every change of the plan as the planner dispatches it; returns the v4 state. */
  private static String apply(PlanResult result, AttributeSealing sealing) throws Exception {
    List<Object> resources = new ArrayList<>();
    int[] ids = {0};
    for (PlannedAction action : result.plan().actions()) {
      Map<String, Object> attributes;
      if (action.isChange()) {
        ActionResolution resolution =
            result.applyContext().resolve(action, Map.of(), () -> "id-" + ++ids[0]);
        assertThat(resolution.hasErrors()).as(resolution.renderDiagnostics()).isFalse();
        attributes =
            sealing.seal(action.address(), resolution.attributes(), resolution.sensitivePaths());
      } else {
        attributes = action.before();
      }
      Map<String, Object> instance = new LinkedHashMap<>();
      instance.put("schema_version", 0);
      instance.put("attributes", attributes);
      Map<String, Object> resource = new LinkedHashMap<>();
      resource.put("mode", "managed");
      resource.put("type", action.type());
      resource.put("name", action.name());
      resource.put("instances", List.of(instance));
      resources.add(resource);
    }
    return JSON.writeValueAsString(
        Map.of("version", 4, "serial", 3, "lineage", "l", "resources", resources));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> attributesOf(String state, String type) throws Exception {
    Map<String, Object> doc = JSON.readValue(state, Map.class);
    for (Object r : (List<Object>) doc.get("resources")) {
      Map<String, Object> resource = (Map<String, Object>) r;
      if (type.equals(resource.get("type"))) {
        Map<String, Object> instance =
            (Map<String, Object>) ((List<Object>) resource.get("instances")).get(0);
        return (Map<String, Object>) instance.get("attributes");
      }
    }
    throw new AssertionError(type + " not in state");
  }

  private static PlannedAction action(PlanResult result, String address) {
    return result.plan().actions().stream()
        .filter(a -> a.address().equals(address))
        .findFirst()
        .orElseThrow();
  }

  @Test
  @SuppressWarnings("unchecked")
  void aSensitiveValueInAttributesIsShownRedactedAndDispatchedSealed() throws Exception {
    AttributeSealing sealing = AttributeSealing.of(SecretsKeyring.parse(k0), "t1", "default");
    PlanResult first = plan(SECRET, PriorState.empty());

    assertThat(PlanRenderer.render(first.plan()))
        .doesNotContain(SECRET)
        .contains("(sensitive value)");
    assertThat(JSON.writeValueAsString(PlanJson.toMap(first.plan()))).doesNotContain(SECRET);

    String state = apply(first, sealing);
    assertThat(state).doesNotContain(SECRET).doesNotContain("Hunter2");
    Map<String, Object> app = attributesOf(state, "stateful_provisioning");
    assertThat((String) app.get("state_key")).startsWith("stagecraft:sealed:v1:k0:");
    Map<String, Object> triggers = (Map<String, Object>) app.get("triggers");
    assertThat((String) triggers.get("pw")).startsWith("stagecraft:sealed:v1:k0:");
    assertThat(triggers.get("plain")).isEqualTo("visible");
    assertThat(app.get("id")).isEqualTo("id-1");
    Map<String, Object> data = attributesOf(state, "terraform_data");
    assertThat(SealedValues.isSealed(data.get("input"))).isTrue();
    assertThat(SealedValues.isSealed(data.get("output"))).isTrue();
    // a value derived from a secret by a function is sensitive too, as in Terraform
    Map<String, Object> derived =
        (Map<String, Object>) attributesOf(state, "null_resource").get("triggers");
    assertThat(SealedValues.isSealed(derived.get("digest"))).isTrue();

    // opened with the same context, the values are the clear ones
    PriorState opened = PriorState.fromV4Json(state, sealing);
    PriorInstance instance = opened.instance("stateful_provisioning.app").orElseThrow();
    assertThat(instance.attributes().get("state_key")).isEqualTo("rev-" + SECRET);
    assertThat(instance.sensitivePaths())
        .containsExactlyInAnyOrder(List.of("state_key"), List.of("triggers", "pw"));
  }

  @Test
  void anUnchangedSecretIsANoOpAndResealsToTheSameValue() throws Exception {
    AttributeSealing sealing = AttributeSealing.of(SecretsKeyring.parse(k0), "t1", "default");
    String state = apply(plan(SECRET, PriorState.empty()), sealing);

    PlanResult again = plan(SECRET, PriorState.fromV4Json(state, sealing));

    assertThat(again.plan().hasChanges()).as(PlanRenderer.render(again.plan())).isFalse();
    assertThat(PlanRenderer.render(again.plan())).doesNotContain(SECRET);
    // sealing is deterministic: the same value in the same place seals to the same string
    assertThat(apply(plan(SECRET, PriorState.empty()), sealing)).isEqualTo(state);
  }

  @Test
  void aChangedSecretReplacesWithoutShowingEitherValue() throws Exception {
    AttributeSealing sealing = AttributeSealing.of(SecretsKeyring.parse(k0), "t1", "default");
    String state = apply(plan(SECRET, PriorState.empty()), sealing);

    PlanResult changed = plan("other-" + SECRET, PriorState.fromV4Json(state, sealing));

    assertThat(action(changed, "stateful_provisioning.app").action().isReplace()).isTrue();
    assertThat(action(changed, "stateful_provisioning.app").sensitivePaths())
        .contains("state_key", "triggers");
    String text = PlanRenderer.render(changed.plan());
    assertThat(text).doesNotContain(SECRET).contains("(sensitive value)");
    String json = JSON.writeValueAsString(PlanJson.toMap(changed.plan()));
    assertThat(json).doesNotContain(SECRET).doesNotContain("stagecraft:sealed");
    // what an approved run records of each change (docs/adr/0051)
    assertThat(changed.plan().changeDocuments().values())
        .isNotEmpty()
        .allSatisfy(d -> assertThat(d).doesNotContain(SECRET).doesNotContain("other-"));
    String next = apply(changed, sealing);
    assertThat(next).doesNotContain(SECRET);
    assertThat(attributesOf(next, "stateful_provisioning").get("state_key"))
        .isNotEqualTo(attributesOf(state, "stateful_provisioning").get("state_key"));
  }

  @Test
  void afterAKeyRotationTheOldValueOpensPlansNoChangeAndTheNextWriteUsesTheNewKey()
      throws Exception {
    String state =
        apply(
            plan(SECRET, PriorState.empty()),
            AttributeSealing.of(SecretsKeyring.parse(k0), "t1", "default"));
    AttributeSealing rotated =
        AttributeSealing.of(SecretsKeyring.parse(k1 + "," + k0), "t1", "default");

    PlanResult again = plan(SECRET, PriorState.fromV4Json(state, rotated));
    assertThat(again.plan().hasChanges()).isFalse();

    // a write (here: a replace by request) seals with the new key
    PlanResult replaced =
        Planner.plan(
            new PlanRequest(
                "default",
                Map.of("main.tf", CONFIG),
                Map.of("secret", SECRET),
                List.of("stateful_provisioning.app"),
                false,
                null),
            PriorState.fromV4Json(state, rotated));
    String next = apply(replaced, rotated);
    assertThat((String) attributesOf(next, "stateful_provisioning").get("state_key"))
        .startsWith("stagecraft:sealed:v1:k1:");
  }

  @Test
  void aDeleteDispatchesTheSealedValuesSealed() throws Exception {
    AttributeSealing sealing = AttributeSealing.of(SecretsKeyring.parse(k0), "t1", "default");
    String state = apply(plan(SECRET, PriorState.empty()), sealing);
    PlanResult destroy =
        Planner.plan(
            new PlanRequest(
                "default", Map.of("main.tf", CONFIG), Map.of("secret", SECRET), null, true, null),
            PriorState.fromV4Json(state, sealing));

    PlannedAction delete = action(destroy, "stateful_provisioning.app");
    ActionResolution resolution = destroy.applyContext().resolve(delete, Map.of(), () -> "x");
    Map<String, Object> sent =
        sealing.seal(delete.address(), resolution.attributes(), resolution.sensitivePaths());

    assertThat(JSON.writeValueAsString(sent)).doesNotContain(SECRET);
    assertThat(sent.get("state_key"))
        .isEqualTo(attributesOf(state, "stateful_provisioning").get("state_key"));
    assertThat(PlanRenderer.render(destroy.plan())).doesNotContain(SECRET);
  }

  @Test
  void aMissingKeyOrKeyringFailsNamingTheKeyIdAndThePlace() throws Exception {
    String state =
        apply(
            plan(SECRET, PriorState.empty()),
            AttributeSealing.of(SecretsKeyring.parse(k0), "t1", "default"));

    assertThatThrownBy(
            () ->
                PriorState.fromV4Json(
                    state, AttributeSealing.of(SecretsKeyring.parse(k1), "t1", "default")))
        .isInstanceOf(AttributeSealing.SealedStateException.class)
        .hasMessageContaining("'k0'")
        .hasMessageContaining("Cannot open the sealed value at ")
        .hasMessageNotContaining(SECRET);
    assertThatThrownBy(() -> PriorState.fromV4Json(state, AttributeSealing.off()))
        .isInstanceOf(AttributeSealing.SealedStateException.class)
        .hasMessageContaining("'k0'")
        .hasMessageContaining(SecretsKeyring.ENV);
    // a state sealed for another workspace does not open here
    assertThatThrownBy(
            () ->
                PriorState.fromV4Json(
                    state, AttributeSealing.of(SecretsKeyring.parse(k0), "t1", "other")))
        .isInstanceOf(AttributeSealing.SealedStateException.class)
        .hasMessageContaining("does not authenticate");
  }

  @Test
  void withoutAKeyNothingIsSealed() throws Exception {
    String state = apply(plan(SECRET, PriorState.empty()), AttributeSealing.off());

    assertThat(state).contains(SECRET);
    assertThat(
            plan(SECRET, PriorState.fromV4Json(state, AttributeSealing.off())).plan().hasChanges())
        .isFalse();
  }

  @Test
  @SuppressWarnings("unchecked")
  void pathsListedInSensitiveAttributesAreRedactedAndSealedWhenWrittenAgain() throws Exception {
    String config =
        """
        resource "stateful_provisioning" "app" {
          state_key = "k1"
          triggers  = { pw = "clear-pw-Rt5", plain = "p" }
          tags      = { a = "2" }
        }
        """;
    String pushed =
        """
        {"version":4,"serial":2,"lineage":"l","resources":[{"mode":"managed",
         "type":"stateful_provisioning","name":"app","instances":[{"schema_version":0,
         "attributes":{"id":"i-1","state_key":"k1","triggers":{"pw":"clear-pw-Rt5","plain":"p"},
                       "tags":{"a":"1"}},
         "sensitive_attributes":[[{"type":"get_attr","value":"triggers"},
           {"type":"index","value":{"value":"pw","type":"string"}}]]}]}]}
        """;
    AttributeSealing sealing = AttributeSealing.of(SecretsKeyring.parse(k0), "t1", "default");
    PriorState prior = PriorState.fromV4Json(pushed, sealing);
    assertThat(prior.instance("stateful_provisioning.app").orElseThrow().sensitivePaths())
        .containsExactly(List.of("triggers", "pw"));

    PlanResult result =
        Planner.plan(
            new PlanRequest("default", Map.of("main.tf", config), Map.of(), null, false, null),
            prior);

    PlannedAction update = action(result, "stateful_provisioning.app");
    assertThat(update.action()).isEqualTo(ActionType.UPDATE);
    assertThat(PlanRenderer.render(result.plan())).doesNotContain("clear-pw-Rt5");
    ActionResolution resolution = result.applyContext().resolve(update, Map.of(), () -> "x");
    Map<String, Object> sent =
        sealing.seal(update.address(), resolution.attributes(), resolution.sensitivePaths());
    Map<String, Object> triggers = (Map<String, Object>) sent.get("triggers");
    assertThat(SealedValues.isSealed(triggers.get("pw"))).isTrue();
    assertThat(triggers.get("plain")).isEqualTo("p");
  }

  @Test
  @SuppressWarnings("unchecked")
  void aPriorSealedNumberOrBoolReadByAnotherResourceKeepsItsMarkAndIsDispatchedSealed()
      throws Exception {
    String first =
        """
        variable "port" {
          type      = number
          sensitive = true
        }
        variable "flag" {
          type      = bool
          sensitive = true
        }
        resource "terraform_data" "n" {
          input = { port = var.port, flag = var.flag }
        }
        """;
    // the reader is added in a later plan: it sees n's *prior* (sealed, then opened) values
    String second =
        first
            + """
            resource "null_resource" "reader" {
              triggers = {
                port = terraform_data.n.output.port
                flag = terraform_data.n.output.flag
                sum  = terraform_data.n.output.port + 1
              }
            }
            """;
    Map<String, String> vars = Map.of("port", "48613", "flag", "true");
    AttributeSealing sealing = AttributeSealing.of(SecretsKeyring.parse(k0), "t1", "default");
    PlanResult created =
        Planner.plan(
            new PlanRequest("default", Map.of("main.tf", first), vars, null, false, null),
            PriorState.empty());
    assertThat(created.hasErrors()).as(created.renderDiagnostics()).isFalse();
    String state = apply(created, sealing);
    assertThat(state).doesNotContain("48613");

    PlanResult result =
        Planner.plan(
            new PlanRequest("default", Map.of("main.tf", second), vars, null, false, null),
            PriorState.fromV4Json(state, sealing));
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    PlannedAction reader = action(result, "null_resource.reader");
    assertThat(reader.action()).isEqualTo(ActionType.CREATE);
    assertThat(PlanRenderer.render(result.plan())).doesNotContain("48613").doesNotContain("48614");
    assertThat(JSON.writeValueAsString(PlanJson.toMap(result.plan())))
        .doesNotContain("48613")
        .doesNotContain("48614");
    ActionResolution resolution = result.applyContext().resolve(reader, Map.of(), () -> "x");
    assertThat(resolution.hasErrors()).as(resolution.renderDiagnostics()).isFalse();
    Map<String, Object> sent =
        sealing.seal(reader.address(), resolution.attributes(), resolution.sensitivePaths());
    Map<String, Object> triggers = (Map<String, Object>) sent.get("triggers");
    assertThat(SealedValues.isSealed(triggers.get("port"))).as("port %s", triggers).isTrue();
    assertThat(SealedValues.isSealed(triggers.get("flag"))).as("flag %s", triggers).isTrue();
    assertThat(SealedValues.isSealed(triggers.get("sum"))).as("sum %s", triggers).isTrue();
    assertThat(JSON.writeValueAsString(sent)).doesNotContain("48613").doesNotContain("48614");
  }

  @Test
  void aDestroyProvisionerReadingAPriorSealedNumberThroughSelfIsASensitiveStep() throws Exception {
    String first =
        """
        variable "port" {
          type      = number
          sensitive = true
        }
        resource "terraform_data" "n" {
          input = { port = var.port }
        }
        """;
    // the variable is gone from the configuration: only the state knows the value is a secret
    String second =
        """
        removed {
          from = terraform_data.n
          provisioner "local-exec" {
            when    = destroy
            command = "deregister ${self.input.port}"
          }
        }
        """;
    AttributeSealing sealing = AttributeSealing.of(SecretsKeyring.parse(k0), "t1", "default");
    PlanResult created =
        Planner.plan(
            new PlanRequest(
                "default", Map.of("main.tf", first), Map.of("port", "48613"), null, false, null),
            PriorState.empty());
    assertThat(created.hasErrors()).as(created.renderDiagnostics()).isFalse();
    String state = apply(created, sealing);

    PlanResult result =
        Planner.plan(
            new PlanRequest("default", Map.of("main.tf", second), Map.of(), null, false, null),
            PriorState.fromV4Json(state, sealing));
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    PlannedAction delete = action(result, "terraform_data.n");
    assertThat(delete.action()).isEqualTo(ActionType.DELETE);
    ActionResolution resolution = result.applyContext().resolve(delete, Map.of(), () -> "x");
    assertThat(resolution.hasErrors()).as(resolution.renderDiagnostics()).isFalse();
    assertThat(resolution.steps()).hasSize(1);
    assertThat(resolution.steps().get(0).sensitive())
        .as("the step's command holds a prior secret")
        .isTrue();
  }
}
