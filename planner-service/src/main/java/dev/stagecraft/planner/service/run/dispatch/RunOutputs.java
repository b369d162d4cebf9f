package dev.stagecraft.planner.service.run.dispatch;

import dev.stagecraft.planner.plan.AppliedOutputs;
import dev.stagecraft.planner.plan.AttributeSealing;
import dev.stagecraft.planner.service.run.Run;
import dev.stagecraft.planner.service.run.WorkspaceStates;
import dev.stagecraft.planner.service.run.lifecycle.RunState;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import java.util.Map;

/**
 * A run's root outputs, recorded in the workspace's state once its apply succeeded, as Terraform
 * writes them on apply (docs/planning.md "Outputs in state", docs/adr/0064): evaluated against the
 * applied values ({@code ApplyContext#outputsAfterApply}, like the check blocks of {@link
 * AppliedChecks}), the sensitive ones sealed ({@link AttributeSealing#sealOutputs}), and sent to
 * the state service with the run's credential and fencing token before the lock is released — a run
 * that lost its lock has them refused.
 */
public final class RunOutputs {
  private RunOutputs() {}

  /**
   * Records the run's outputs (none for a destroy: all are removed).
   *
   * @return {@code "\n\n"} and the warnings about outputs that could not be recorded, or {@code ""}
   * @throws IllegalStateException when the state service did not record them (the message says why;
   *     it holds no value)
   */
  public static String record(
      Run run, RunState state, WorkspaceStates states, SecretsKeyring secrets) {
    AppliedOutputs outputs;
    Map<String, String> files;
    String credential;
    long fencingToken;
    AttributeSealing sealing =
        AttributeSealing.of(secrets, run.request().tenant(), run.request().workspace());
    Map<String, Map<String, Object>> v4;
    synchronized (run) {
      if (run.planResult() == null || run.planResult().applyContext() == null) {
        return "";
      }
      var context = run.planResult().applyContext();
      outputs = context.outputsAfterApply(run.appliedAttributes(), run.request().destroy());
      v4 = sealing.sealOutputs(outputs.toV4(), context.prior());
      files = run.request().files();
      credential = state.credential() == null ? null : state.credential().value();
      fencingToken = state.lock() == null ? 0 : state.lock().fencingToken();
    }
    states.recordOutputs(
        run.request().tenant(), run.request().workspace(), credential, fencingToken, v4);
    return outputs.diagnostics().isEmpty()
        ? ""
        : "\n\n" + outputs.diagnostics().render(files).strip();
  }
}
