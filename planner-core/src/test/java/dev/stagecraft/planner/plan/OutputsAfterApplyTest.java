package dev.stagecraft.planner.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.schemas.seal.SealedValues;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The root outputs a run records in state after its apply (docs/adr/0064): evaluated against the
 * applied values, typed as Terraform types them, sensitive ones sealed.
 */
class OutputsAfterApplyTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String KEY = SecretsKeyring.generateEntry("k0");

  private static final String CONFIG =
      """
      variable "db_password" {
        type      = string
        sensitive = true
        default   = "s3cret-pw"
      }
      resource "terraform_data" "app" {
        input = "v1"
      }
      output "app_id" {
        value = terraform_data.app.id
      }
      output "ids" {
        value = [terraform_data.app.id, "x"]
      }
      output "meta" {
        value = { name = "n", port = 8080, on = true, tags = ["a"] }
      }
      output "password" {
        value     = var.db_password
        sensitive = true
      }
      output "nothing" {
        value = null
      }
      """;

  private static final Map<String, Map<String, Object>> APPLIED =
      Map.of("terraform_data.app", Map.of("id", "app-1", "input", "v1", "output", "v1"));

  @Test
  void outputsAreEvaluatedAgainstTheAppliedValuesWithTerraformsTypes() {
    PlanResult result = Scenario.config(CONFIG).plan();
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    // at plan the id is known only after apply
    assertThat(result.plan().output("app_id").orElseThrow().afterUnknown()).isTrue();

    AppliedOutputs outputs = result.applyContext().outputsAfterApply(APPLIED, false);

    assertThat(outputs.diagnostics().isEmpty()).as(outputs.diagnostics().toString()).isTrue();
    // a null output is not recorded, as Terraform leaves it out of state
    assertThat(outputs.outputs().keySet()).containsExactly("app_id", "ids", "meta", "password");
    Map<String, Map<String, Object>> v4 = outputs.toV4();
    assertThat(v4.get("app_id")).containsEntry("value", "app-1").containsEntry("type", "string");
    assertThat(v4.get("app_id")).containsEntry("sensitive", false);
    assertThat(v4.get("ids"))
        .containsEntry("value", List.of("app-1", "x"))
        .containsEntry("type", List.of("tuple", List.of("string", "string")));
    assertThat(JSON.valueToTree(v4.get("meta").get("type")).toString())
        .isEqualTo(
            "[\"object\",{\"name\":\"string\",\"on\":\"bool\",\"port\":\"number\","
                + "\"tags\":[\"tuple\",[\"string\"]]}]");
    assertThat(JSON.valueToTree(v4.get("meta").get("value")).get("port").asInt()).isEqualTo(8080);
    assertThat(v4.get("password"))
        .containsEntry("value", "s3cret-pw")
        .containsEntry("sensitive", true);
    assertThat(outputs.outputs().get("password").toString()).doesNotContain("s3cret");
  }

  @Test
  void aDestroyRecordsNoOutputs() {
    PlanResult result = Scenario.config(CONFIG).plan();

    assertThat(result.applyContext().outputsAfterApply(APPLIED, true).outputs()).isEmpty();
  }

  @Test
  void anOutputStillUnknownAfterApplyIsLeftOutWithAWarning() {
    PlanResult result = Scenario.config(CONFIG).plan();

    // the instance was not applied in the run and the state does not hold it: still unknown
    AppliedOutputs outputs = result.applyContext().outputsAfterApply(Map.of(), false);

    assertThat(outputs.outputs()).doesNotContainKeys("app_id", "ids");
    assertThat(outputs.outputs()).containsKeys("meta", "password");
    assertThat(outputs.diagnostics().list())
        .extracting(d -> d.summary() + " @" + d.range())
        .contains("Output not recorded @main.tf:9:1");
  }

  @Test
  void sensitiveOutputsAreSealedAndAnUnchangedOneKeepsTheSealedStringOfTheState() throws Exception {
    AttributeSealing sealing = AttributeSealing.of(SecretsKeyring.parse(KEY), "t1", "network");
    PlanResult first = Scenario.config(CONFIG).plan();
    Map<String, Map<String, Object>> sealed =
        sealing.sealOutputs(
            first.applyContext().outputsAfterApply(APPLIED, false).toV4(), PriorState.empty());

    Object secret = sealed.get("password").get("value");
    assertThat(SealedValues.isSealed(secret)).isTrue();
    assertThat(JSON.writeValueAsString(sealed)).doesNotContain("s3cret-pw");
    assertThat(sealed.get("app_id").get("value")).isEqualTo("app-1");

    // the next run reads the state with the sealed output: opened for planning, no change planned
    Map<String, Object> document = new LinkedHashMap<>();
    document.put("version", 4);
    document.put("serial", 3);
    document.put("lineage", "l");
    document.put("outputs", sealed);
    document.put("resources", List.of());
    PriorState prior = PriorState.fromV4Json(JSON.writeValueAsString(document), sealing);
    assertThat(prior.outputs().get("password").get("value")).isEqualTo("s3cret-pw");
    PlanResult again =
        Planner.plan(
            new PlanRequest("network", Map.of("main.tf", CONFIG), Map.of(), List.of(), false, null),
            prior);
    assertThat(again.plan().output("password").orElseThrow().actions()).containsExactly("no-op");
    assertThat(PlanJson.render(again.plan())).doesNotContain("s3cret-pw");

    Map<String, Map<String, Object>> resealed =
        sealing.sealOutputs(
            again.applyContext().outputsAfterApply(APPLIED, false).toV4(),
            again.applyContext().prior());
    assertThat(resealed.get("password").get("value")).isEqualTo(secret);

    // another workspace reading it as a remote state opens it with this workspace's sealing
    assertThat(sealing.openOutputs(sealed).get("password").get("value")).isEqualTo("s3cret-pw");
    assertThatThrownBy(
            () -> AttributeSealing.of(SecretsKeyring.parse(KEY), "t1", "other").openOutputs(sealed))
        .hasMessageContaining("output.password");
  }
}
