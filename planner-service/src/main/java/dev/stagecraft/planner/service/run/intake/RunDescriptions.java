package dev.stagecraft.planner.service.run.intake;

/**
 * Where a started run's {@link Submission.Description} is recorded, on the run's recording lane
 * after its first record (docs/adr/0025). A failure is the implementation's to log: the run goes
 * on, only its record lacks the description.
 */
@FunctionalInterface
public interface RunDescriptions {
  void describe(String runId, Submission submission);

  /** Descriptions are not recorded. */
  RunDescriptions NONE = (runId, submission) -> {};
}
