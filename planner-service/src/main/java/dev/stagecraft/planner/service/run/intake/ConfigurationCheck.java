package dev.stagecraft.planner.service.run.intake;

import dev.stagecraft.language.config.LoadResult;
import dev.stagecraft.planner.plan.PlanRequest;
import dev.stagecraft.planner.plan.PlanResult;
import dev.stagecraft.planner.plan.Planner;
import dev.stagecraft.planner.plan.PriorState;
import dev.stagecraft.planner.service.run.PreparedConfiguration;
import dev.stagecraft.planner.service.run.UploadedFiles;
import dev.stagecraft.planner.service.workspace.ResolvedVariables;
import java.nio.file.Path;
import java.util.Set;

/**
 * The check of a submitted configuration before its run queues for the workspace lock: its files
 * are written and it is planned against an empty state, so a configuration with errors starts
 * nothing (fail fast). What it prepares — the written directory and the parsed configuration — is
 * adopted by the run, which neither writes nor parses them again (docs/adr/0025).
 *
 * <p>A run started without a check (a resume, a carry-on) writes and parses its files when it
 * plans, in {@code RunCoordinator}.
 */
final class ConfigurationCheck {
  private final UploadedFiles uploads;

  ConfigurationCheck(UploadedFiles uploads) {
    this.uploads = uploads;
  }

  /** The outcome: the configuration prepared for its run, or why not (its files are then gone). */
  sealed interface Result {}

  /** The configuration prepared, and the variables its run plans with. */
  record Passed(PreparedConfiguration prepared, RunVariables variables) implements Result {}

  record Failed(IntakeOutcome.Refusal reason) implements Result {}

  /**
   * Checks {@code s} with {@code variables} (the run's own over its workspace's, {@link
   * RunVariables}); {@code commit} is the commit its files were read from (null: not from git).
   */
  Result check(Submission s, ResolvedVariables variables, String commit) {
    Path dir = null;
    try {
      dir = uploads.materialise(s.tenant(), s.files(), s.supportFiles());
      LoadResult parsed = Planner.parse(s.files());
      Set<String> declared =
          parsed.config() == null ? Set.of() : parsed.config().variables().keySet();
      RunVariables used = RunVariables.of(variables, declared, commit);
      PlanRequest request =
          new PlanRequest(
                  s.workspace(),
                  s.files(),
                  used.values(),
                  s.replace(),
                  s.destroy(),
                  dir,
                  true,
                  used.hcl())
              .withSensitiveVariables(used.sensitive());
      PlanResult check = Planner.plan(request, PriorState.empty(), parsed);
      if (check.hasErrors()) {
        UploadedFiles.delete(dir);
        return new Failed(new IntakeOutcome.InvalidConfiguration(check));
      }
      return new Passed(new PreparedConfiguration(dir, parsed), used);
    } catch (UploadedFiles.InvalidUpload e) {
      UploadedFiles.delete(dir);
      return new Failed(new IntakeOutcome.InvalidFiles(e));
    } catch (RuntimeException e) {
      UploadedFiles.delete(dir);
      throw e;
    }
  }
}
