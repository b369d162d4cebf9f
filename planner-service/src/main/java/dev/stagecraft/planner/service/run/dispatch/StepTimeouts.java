package dev.stagecraft.planner.service.run.dispatch;

import dev.stagecraft.schemas.action.ProvisionerStep;
import java.util.List;

/**
 * Gives every provisioner step of a dispatch a timeout: its own {@code timeout}, else the run's
 * step timeout (the workspace's, docs/runs.md). Without one a step that never ends would hold an
 * executor slot forever.
 */
final class StepTimeouts {
  private StepTimeouts() {}

  static List<ProvisionerStep> withDefault(List<ProvisionerStep> steps, int defaultSeconds) {
    if (defaultSeconds <= 0) {
      return steps;
    }
    return steps.stream()
        .map(s -> s.timeoutSeconds() > 0 ? s : s.withTimeoutSeconds(defaultSeconds))
        .toList();
  }
}
