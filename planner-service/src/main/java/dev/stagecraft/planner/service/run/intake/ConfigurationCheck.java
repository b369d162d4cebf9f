package dev.stagecraft.planner.service.run.intake;

import dev.stagecraft.language.config.LoadResult;
import dev.stagecraft.planner.plan.PlanRequest;
import dev.stagecraft.planner.plan.PlanResult;
import dev.stagecraft.planner.plan.Planner;
import dev.stagecraft.planner.plan.PriorState;
import dev.stagecraft.planner.service.run.PreparedConfiguration;
import dev.stagecraft.planner.service.run.UploadedFiles;
import java.nio.file.Path;

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

  record Passed(PreparedConfiguration prepared) implements Result {}

  record Failed(IntakeOutcome.Refusal reason) implements Result {}

  Result check(Submission s) {
    Path dir = null;
    try {
      dir = uploads.materialise(s.tenant(), s.files(), s.supportFiles());
      LoadResult parsed = Planner.parse(s.files());
      PlanRequest request =
          new PlanRequest(
              s.workspace(),
              s.files(),
              s.variables(),
              s.replace(),
              s.destroy(),
              dir,
              true,
              s.hclVariables());
      PlanResult check = Planner.plan(request, PriorState.empty(), parsed);
      if (check.hasErrors()) {
        UploadedFiles.delete(dir);
        return new Failed(new IntakeOutcome.InvalidConfiguration(check));
      }
      return new Passed(new PreparedConfiguration(dir, parsed));
    } catch (UploadedFiles.InvalidUpload e) {
      UploadedFiles.delete(dir);
      return new Failed(new IntakeOutcome.InvalidFiles(e));
    } catch (RuntimeException e) {
      UploadedFiles.delete(dir);
      throw e;
    }
  }
}
