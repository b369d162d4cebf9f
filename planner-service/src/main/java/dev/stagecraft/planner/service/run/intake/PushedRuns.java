package dev.stagecraft.planner.service.run.intake;

import dev.stagecraft.planner.service.source.PushRuns;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The runs repository pushes start (docs/workspaces.md "Deploy on push"): one submission per
 * workspace that follows the pushed branch, taking its configuration at the pushed commit from the
 * workspace, with the workspace's variables. Idempotent per delivery and workspace: the key {@code
 * push:DELIVERY:WORKSPACE} is a trigger key, so a redelivery answers the run the first delivery
 * made (on any planner instance, after a restart too) and starts nothing.
 */
public final class PushedRuns implements PushRuns {
  private final RunIntake intake;

  public PushedRuns(RunIntake intake) {
    this.intake = intake;
  }

  @Override
  public Outcome start(
      String tenant, String workspace, String commit, String deliveryId, String message) {
    String requestedBy = "push webhook@" + tenant;
    String pending =
        "Requested by a push (delivery "
            + deliveryId
            + ")"
            + (message == null ? "" : ": " + message);
    Submission submission =
        new Submission(
            tenant,
            workspace,
            Map.of(),
            Map.of(),
            Map.of(),
            Set.of(),
            false,
            List.of(),
            null,
            null,
            null,
            null,
            requestedBy,
            pending,
            new Submission.Description(message, null),
            new IdempotencyKey.Trigger("push:" + deliveryId + ":" + workspace),
            new Submission.FromWorkspace(null, commit));
    return switch (intake.accept(submission)) {
      case IntakeOutcome.Started s -> new Started(s.run().id(), false);
      case IntakeOutcome.Replayed r -> new Started(r.runId(), true);
      case IntakeOutcome.Refused r -> new Refused(reason(r.reason()));
    };
  }

  private static String reason(IntakeOutcome.Refusal refusal) {
    return switch (refusal) {
      case IntakeOutcome.NoConfiguration n -> n.reason();
      case IntakeOutcome.InvalidFiles f ->
          "the commit's files cannot be used: " + f.error().getMessage();
      case IntakeOutcome.InvalidConfiguration c ->
          "the configuration at this commit has errors:\n" + c.check().renderDiagnostics();
      case IntakeOutcome.KeyNotYetRecorded k ->
          "run "
              + k.runId()
              + " of this delivery is being started by another planner; deliver again";
      case IntakeOutcome.KeyReused k -> "delivery reused: " + k.key();
      case IntakeOutcome.KeyInUse k -> "delivery being handled; deliver again";
    };
  }
}
