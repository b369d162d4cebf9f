package dev.stagecraft.planner.service.run.approval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stagecraft.planner.apply.PlannedStep;
import dev.stagecraft.planner.service.run.RunStatus;
import dev.stagecraft.planner.service.run.lifecycle.Decision;
import dev.stagecraft.planner.service.run.lifecycle.PlanInfo;
import dev.stagecraft.planner.service.run.lifecycle.Refusal;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand;
import dev.stagecraft.planner.service.run.lifecycle.RunCredential;
import dev.stagecraft.planner.service.run.lifecycle.RunDecider;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent;
import dev.stagecraft.planner.service.run.lifecycle.RunSettings;
import dev.stagecraft.planner.service.run.lifecycle.RunState;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The API's answer to an approval or discard, from what the run lifecycle decided: the answers
 * {@code RunCoordinator} gives today (RunApprovalTest), an ended run included.
 */
class ApprovalOutcomeTest {
  static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");
  final RunDecider decider =
      new RunDecider(Duration.ofHours(1), Duration.ofSeconds(15), Duration.ofMinutes(10));
  final RunSettings settings = RunSettings.autoApply("acme", "web").withApproval();
  final PlanInfo plan =
      new PlanInfo(
          "digest-1",
          true,
          "text",
          "Plan: 1 to add, 0 to change, 0 to destroy.",
          1,
          0,
          0,
          List.of(PlannedStep.of("a.x")));

  RunState after(RunState state, RunCommand... commands) {
    for (RunCommand c : commands) {
      Decision d = decider.decide(c, state);
      assertThat(d.refusal()).as("refused %s", c).isEmpty();
      for (RunEvent e : d.events()) {
        state = RunDecider.apply(state, e);
      }
    }
    return state;
  }

  RunState planned() {
    return after(
        RunState.initial("run-1", settings),
        new RunCommand.Start(null),
        new RunCommand.Admitted(),
        new RunCommand.LockGranted("lock-1", 7),
        new RunCommand.Opened(new RunCredential("c")),
        new RunCommand.Planned(plan, 3, null, T0));
  }

  ApprovalOutcome approve(RunState state, String digest, Instant at) {
    return ApprovalOutcome.of(
        decider.decide(new RunCommand.Approve(digest, "deployer@acme", at), state));
  }

  @Test
  void aWaitingRunApprovedWithItsDigestIsDone() {
    assertThat(approve(planned(), "digest-1", T0.plusSeconds(5))).isEqualTo(ApprovalOutcome.DONE);
  }

  @Test
  void aWrongDigestAndAnExpiredPlanKeepTheirAnswers() {
    assertThat(approve(planned(), "digest-2", T0.plusSeconds(5)))
        .isEqualTo(ApprovalOutcome.WRONG_DIGEST);
    assertThat(approve(planned(), "digest-1", T0.plus(Duration.ofHours(2))))
        .isEqualTo(ApprovalOutcome.EXPIRED);
  }

  @Test
  void anApprovedRunIsNotAwaitingAnyMore() {
    RunState applying =
        after(planned(), new RunCommand.Approve("digest-1", "deployer@acme", T0.plusSeconds(5)));
    assertThat(applying.status()).isEqualTo(RunStatus.APPLYING);
    assertThat(approve(applying, "digest-1", T0.plusSeconds(6)))
        .isEqualTo(ApprovalOutcome.NOT_AWAITING);
  }

  @Test
  void anEndedRunAnswersNotAwaitingAsTheApiAlwaysDid() {
    RunState discarded = after(planned(), new RunCommand.Discard("ops@acme"));
    assertThat(discarded.status()).isEqualTo(RunStatus.DISCARDED);
    Decision decision =
        decider.decide(new RunCommand.Approve("digest-1", "deployer@acme", T0), discarded);
    assertThat(decision.refusal()).contains(Refusal.ALREADY_ENDED);
    assertThat(ApprovalOutcome.of(decision)).isEqualTo(ApprovalOutcome.NOT_AWAITING);
    assertThat(ApprovalOutcome.of(decider.decide(new RunCommand.Discard("ops@acme"), discarded)))
        .isEqualTo(ApprovalOutcome.NOT_AWAITING);
  }

  @Test
  void eachRefusalSaysWhatToDo() {
    assertThat(ApprovalOutcome.NOT_AWAITING.refusal("run-1", null))
        .isEqualTo(
            "Run run-1 is not waiting for approval (it has not planned yet, applies automatically,"
                + " was approved or discarded already, or has ended): see its status with GET"
                + " /api/v1/runs/run-1.");
    assertThat(ApprovalOutcome.WRONG_DIGEST.refusal("run-1", "d-9")).startsWith("Plan digest d-9");
    assertThat(ApprovalOutcome.EXPIRED.refusal("run-1", "d-9"))
        .contains("STAGECRAFT_PLANNER_APPROVAL_TIMEOUT");
    assertThatThrownBy(() -> ApprovalOutcome.DONE.refusal("run-1", null))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
