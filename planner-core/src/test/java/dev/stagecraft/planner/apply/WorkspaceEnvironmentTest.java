package dev.stagecraft.planner.apply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.planner.plan.Plan;
import dev.stagecraft.planner.plan.PlanCodec;
import dev.stagecraft.planner.plan.PlanJson;
import dev.stagecraft.planner.plan.PlanRequest;
import dev.stagecraft.planner.plan.PlanResult;
import dev.stagecraft.planner.plan.Planner;
import dev.stagecraft.planner.plan.PriorState;
import dev.stagecraft.schemas.action.ProvisionerStep;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The workspace's environment variables ({@link PlanRequest#environment()}) reach every {@code
 * local-exec} step under the provisioner's own {@code environment}; a step that receives a
 * sensitive one carries it as a secret (sealed with the step, redacted from its output).
 */
class WorkspaceEnvironmentTest {
  private static final String KEY = "k3y-material-that-is-secret";
  private static final String PEM =
      "-----BEGIN KEY-----\nAAAAB3NzaC1yc2EAAAADAQABAAABAQ\nCzK9xPq2Lm7v8Yw0d3fRkUj5T\n-----END KEY-----";

  private static final String CONFIG =
      """
      resource "stateful_provisioning" "app" {
        state_key = "v1"
        provisioner "local-exec" {
          command     = "deploy"
          environment = { REV = "from-the-provisioner", OVERRIDDEN = "mine" }
        }
      }
      resource "stateful_provisioning" "quiet" {
        state_key = "v1"
        provisioner "local-exec" {
          command = "echo $REGION"
          environment = { DEPLOY_KEY = "replaced", PEM_KEY = "replaced", OVERRIDDEN = "x" }
        }
      }
      """;

  private static final Map<String, String> ENVIRONMENT =
      Map.of(
          "REGION", "eu-west-1",
          "REV", "from-the-workspace",
          "DEPLOY_KEY", KEY,
          "PEM_KEY", PEM,
          "OVERRIDDEN", "workspace-secret-overridden");

  private static PlanResult plan(Map<String, String> environment, Set<String> sensitive) {
    PlanResult result =
        Planner.plan(
            new PlanRequest("default", Map.of("main.tf", CONFIG), Map.of(), List.of(), false, null)
                .withEnvironment(environment, sensitive),
            PriorState.empty());
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    return result;
  }

  private static ActionResolution resolve(PlanResult result, String address) {
    ActionResolution resolution =
        result
            .applyContext()
            .resolve(result.plan().action(address).orElseThrow(), Map.of(), () -> "1");
    assertThat(resolution.hasErrors()).as(resolution.renderDiagnostics()).isFalse();
    return resolution;
  }

  @Test
  void everyLocalExecStepGetsTheWorkspaceEnvironmentAndTheProvisionersOwnEntriesWin() {
    PlanResult result = plan(ENVIRONMENT, Set.of());
    ProvisionerStep step = resolve(result, "stateful_provisioning.app").steps().get(0);
    assertThat(step.environment())
        .containsEntry("REGION", "eu-west-1")
        .containsEntry("DEPLOY_KEY", KEY)
        .containsEntry("REV", "from-the-provisioner")
        .containsEntry("OVERRIDDEN", "mine")
        .hasSize(5);
    assertThat(step.sensitive()).isFalse();
    assertThat(resolve(result, "stateful_provisioning.app").sensitiveValues()).doesNotContain(KEY);
  }

  @Test
  void aStepReceivingASensitiveValueCarriesItAsASecretAndAStepNotReceivingItDoesNot() {
    PlanResult result = plan(ENVIRONMENT, Set.of("DEPLOY_KEY", "PEM_KEY", "OVERRIDDEN"));
    ActionResolution app = resolve(result, "stateful_provisioning.app");
    assertThat(app.steps().get(0).sensitive()).isTrue();
    assertThat(app.steps().get(0).environment()).containsEntry("PEM_KEY", PEM);
    assertThat(app.sensitiveValues())
        .contains(KEY, PEM, "AAAAB3NzaC1yc2EAAAADAQABAAABAQ", "CzK9xPq2Lm7v8Yw0d3fRkUj5T")
        .doesNotContain("eu-west-1", "from-the-workspace", "workspace-secret-overridden");

    // every sensitive entry is replaced by the provisioner's own: nothing secret reaches the step
    ActionResolution quiet = resolve(result, "stateful_provisioning.quiet");
    assertThat(quiet.steps().get(0).sensitive()).isFalse();
    assertThat(quiet.steps().get(0).environment()).containsEntry("DEPLOY_KEY", "replaced");
    assertThat(quiet.sensitiveValues()).doesNotContain(KEY, PEM);

    assertThat(result.applyContext().sensitiveValues()).contains(KEY, PEM);
  }

  @Test
  void environmentValuesAreNeitherInThePlanNorInItsDigest() {
    PlanResult with = plan(ENVIRONMENT, Set.of("DEPLOY_KEY"));
    Plan plan = with.plan();
    assertThat(PlanJson.render(plan)).doesNotContain(KEY, "eu-west-1", "REGION");
    assertThat(PlanCodec.encode(plan)).doesNotContain(KEY, "eu-west-1", "REGION");
    Plan without = plan(Map.of(), Set.of()).plan();
    assertThat(PlanCodec.encode(plan)).isEqualTo(PlanCodec.encode(without));
  }
}
