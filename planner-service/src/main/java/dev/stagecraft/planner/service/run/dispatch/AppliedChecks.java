package dev.stagecraft.planner.service.run.dispatch;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.planner.service.run.Run;
import java.util.Map;

/**
 * The {@code check} blocks of a run evaluated once its apply succeeded, against what it applied
 * (Terraform reports them after apply too): their warnings close the run's "Apply complete!"
 * message, so the CLI, the run's log and its {@code run.transitioned} event show them. They never
 * change the run's outcome.
 */
public final class AppliedChecks {
  private AppliedChecks() {}

  /** {@code "\n\n"} and the rendered warnings, or {@code ""} when every check passes. */
  public static String messageSuffix(Run run) {
    Diagnostics warnings;
    Map<String, String> files;
    synchronized (run) {
      if (run.planResult() == null || run.planResult().applyContext() == null) {
        return "";
      }
      warnings = run.planResult().applyContext().checkAfterApply(run.appliedAttributes());
      files = run.request().files();
    }
    return warnings.isEmpty() ? "" : "\n\n" + warnings.render(files).strip();
  }
}
