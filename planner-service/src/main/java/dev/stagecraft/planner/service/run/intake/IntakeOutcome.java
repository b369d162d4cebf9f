package dev.stagecraft.planner.service.run.intake;

import dev.stagecraft.planner.plan.PlanResult;
import dev.stagecraft.planner.service.run.Run;
import dev.stagecraft.planner.service.run.UploadedFiles;
import java.util.Optional;

/**
 * What became of a {@link Submission}: a run started, the run its idempotency key made before, or a
 * refusal that changed nothing. Each adapter renders it in its own terms (an HTTP answer, a trigger
 * outcome).
 */
public sealed interface IntakeOutcome {

  /**
   * A run started.
   *
   * @param recorded whether its first record was written within {@link RunIntake#RECORDS_WAIT} (the
   *     chat-ops path acknowledges only a recorded run)
   */
  record Started(Run run, boolean recorded) implements IntakeOutcome {}

  /**
   * The submission's key made a run already; nothing was started.
   *
   * @param run the run, when this instance holds it
   * @param recorded whether the run's first record is written (see {@link Started#recorded})
   */
  record Replayed(String runId, Optional<Run> run, boolean recorded) implements IntakeOutcome {}

  /** Nothing was started, for {@code reason}. */
  record Refused(Refusal reason) implements IntakeOutcome {}

  /** Why a submission was refused. */
  sealed interface Refusal {}

  /** A file cannot be written (a path outside the directory, or over a limit: {@code error}). */
  record InvalidFiles(UploadedFiles.InvalidUpload error) implements Refusal {}

  /** The configuration has errors ({@code check}'s diagnostics); the key is not used up. */
  record InvalidConfiguration(PlanResult check) implements Refusal {}

  /**
   * The submission names no files and its workspace has none to give, or it names a ref or commit
   * of a workspace that follows no repository: {@code reason} says what to do.
   */
  record NoConfiguration(String reason) implements Refusal {}

  /** The API key made run {@code runId} with a different request body. */
  record KeyReused(String key, String runId) implements Refusal {}

  /** A concurrent request with the API key is being handled; retry it. */
  record KeyInUse() implements Refusal {}

  /**
   * Another planner instance, alive, recorded the trigger key and its run {@code runId} has no
   * record yet: submit again later (it starts nothing twice).
   */
  record KeyNotYetRecorded(String runId) implements Refusal {}
}
