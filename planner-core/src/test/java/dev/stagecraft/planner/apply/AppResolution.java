package dev.stagecraft.planner.apply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.planner.plan.PlanRequest;
import dev.stagecraft.planner.plan.PlanResult;
import dev.stagecraft.planner.plan.Planner;
import dev.stagecraft.planner.plan.PriorState;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Plans a configuration and resolves its {@code stateful_provisioning.app} action for applying: the
 * step the apply tests share.
 */
final class AppResolution {
  private AppResolution() {}

  /**
   * Plans {@code config} as {@code main.tf} of the directory {@code dir} (no variables, no prior
   * state), then {@link #resolveApp(PlanResult)}.
   */
  static ActionResolution resolveApp(String config, Path dir) {
    return resolveApp(
        Planner.plan(
            new PlanRequest("default", Map.of("main.tf", config), Map.of(), List.of(), false, dir),
            PriorState.empty()));
  }

  /**
   * Asserts that planning found no errors, then resolves the plan's {@code
   * stateful_provisioning.app} action (no upstream values, action id {@code a1}).
   */
  static ActionResolution resolveApp(PlanResult result) {
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    return result
        .applyContext()
        .resolve(
            result.plan().action("stateful_provisioning.app").orElseThrow(), Map.of(), () -> "a1");
  }
}
