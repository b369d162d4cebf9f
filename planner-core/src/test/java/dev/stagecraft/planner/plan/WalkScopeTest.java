package dev.stagecraft.planner.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.config.ConfigLoader;
import dev.stagecraft.language.config.LoadResult;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.eval.EvalContext;
import dev.stagecraft.language.eval.EvalResult;
import dev.stagecraft.language.eval.Value;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link WalkScope}: a walk's evaluation state lives in the walk, so one model serves a planning
 * walk and an apply walk at once without either changing what the other sees.
 */
class WalkScopeTest {
  @TempDir Path dir;

  private ConfigModel model() {
    String config =
        """
        resource "terraform_data" "app" {
          count = 2
        }
        locals {
          stamp = timestamp()
          first = terraform_data.app[0]
        }
        """;
    LoadResult loaded = ConfigLoader.load("main.tf", config);
    assertThat(loaded.hasErrors()).as(loaded.diagnostics().toString()).isFalse();
    Diagnostics diagnostics = new Diagnostics();
    ConfigModel model =
        ConfigModel.analyze(
            loaded.config(),
            new PlanRequest("default", Map.of("main.tf", config), Map.of(), List.of(), false, dir),
            diagnostics,
            false);
    assertThat(diagnostics.hasErrors()).as(diagnostics.toString()).isFalse();
    return model;
  }

  private static Value local(WalkScope walk, String name, Map<String, Value> objects) {
    EvalContext ctx = walk.context(objects, Map.of(), PriorState.empty(), null, null);
    EvalResult result =
        walk.model().evaluateExpression(walk.model().local("local." + name).expr(), ctx);
    assertThat(result.hasErrors()).as(result.diagnostics().toString()).isFalse();
    return result.value();
  }

  @Test
  void anApplyWalkKnowsImpureFunctionsWhileThePlanningWalkOfTheSameModelStillDoesNot() {
    WalkScope planning = WalkScope.of(model());
    WalkScope apply = planning.forApply();
    assertThat(local(apply, "stamp", Map.of()).isKnown()).isTrue();
    assertThat(local(planning, "stamp", Map.of()).isKnown()).isFalse();
    assertThat(local(WalkScope.of(planning.model()), "stamp", Map.of()).isKnown()).isFalse();
  }

  @Test
  void theApplyWalkContinuesWithTheInstanceKeysPlanningRecorded() {
    WalkScope planning = WalkScope.of(model());
    planning.recordExpansion(
        "terraform_data.app", List.of(InstanceKey.index(0), InstanceKey.index(1)));
    WalkScope apply = planning.forApply();
    assertThat(apply.instanceKey("terraform_data.app[1]")).isEqualTo(InstanceKey.index(1));
    Map<String, Value> objects =
        Map.of(
            "terraform_data.app[0]", Value.object(Map.of("id", Value.string("a0"))),
            "terraform_data.app[1]", Value.object(Map.of("id", Value.string("a1"))));
    assertThat(local(apply, "first", objects))
        .isEqualTo(Value.object(Map.of("id", Value.string("a0"))));
    // a walk that recorded no expansion knows nothing of the instances yet
    assertThat(local(WalkScope.of(planning.model()), "first", objects).isKnown()).isFalse();
  }

  @Test
  void theDataRootIsSeenOnlyByTheWalkGivenIt() {
    WalkScope before = WalkScope.of(model());
    WalkScope prepared = before.withDataRoot(Value.object(Map.of("x", Value.string("y"))));
    EvalContext withData = prepared.context(Map.of(), Map.of(), PriorState.empty(), null, null);
    EvalContext without = before.context(Map.of(), Map.of(), PriorState.empty(), null, null);
    assertThat(withData.resolve("data")).isPresent();
    assertThat(without.resolve("data")).isEmpty();
  }
}
