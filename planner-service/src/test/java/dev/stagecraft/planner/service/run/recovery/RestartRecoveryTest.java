package dev.stagecraft.planner.service.run.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.planner.service.run.RunStatus;
import dev.stagecraft.planner.service.run.recovery.RestartRecovery.Decision;
import dev.stagecraft.planner.service.run.recovery.RestartRecovery.Facts;
import org.junit.jupiter.api.Test;

/** What a restarted planner does with each run it left unfinished (docs/adr/0029, 0035). */
class RestartRecoveryTest {
  static Facts facts(RunStatus status) {
    return new Facts("planner-a", status, true, true, false, false, null);
  }

  @Test
  void runsThatAppliedNothingAreResumed() {
    for (RunStatus s : new RunStatus[] {RunStatus.PENDING, RunStatus.QUEUED, RunStatus.PLANNING}) {
      assertThat(RestartRecovery.decide(facts(s))).as(s.name()).isInstanceOf(Decision.Resume.class);
    }
    assertThat(
            RestartRecovery.decide(
                new Facts("planner-a", RunStatus.PLANNED, true, true, true, false, "sha256:abc")))
        .isInstanceOf(Decision.Resume.class);
  }

  @Test
  void anApplyingRunIsCarriedOnNotStartedAgain() {
    // docs/adr/0035: its dispatched actions are awaited, the rest is planned and applied
    assertThat(RestartRecovery.decide(facts(RunStatus.APPLYING)))
        .isInstanceOf(Decision.CarryOn.class);
    assertThat(RestartRecovery.carriedOnMessage("planner-a", RunStatus.APPLYING))
        .startsWith("Resumed after a planner restart: planner instance planner-a restarted")
        .contains("while this run was applying")
        .contains("never run twice");
  }

  @Test
  void aRunRecordedBeforeApplyingThatDispatchedAnActionIsCarriedOn() {
    // its record lagged behind: a crash lost the applying transition, not the dispatch
    Decision d =
        RestartRecovery.decide(
            new Facts("planner-a", RunStatus.PLANNING, true, true, false, true, null));
    assertThat(d).isInstanceOf(Decision.CarryOn.class);
  }

  @Test
  void aRunThatMayHaveDispatchedEndsErroredWhenItsDispatchesCannotBeReadOrItsRequestIsIncomplete() {
    Decision unreadable =
        RestartRecovery.decide(
            new Facts("planner-a", RunStatus.PLANNING, true, true, false, true, null, false));
    assertThat(unreadable).isInstanceOf(Decision.Fail.class);
    assertThat(((Decision.Fail) unreadable).message())
        .contains("planner-a restarted while this run was applying")
        .contains("stagecraft.actions")
        .contains("is not guessed")
        .contains("stagecraft state list");
    Decision noRequest =
        RestartRecovery.decide(
            new Facts("planner-a", RunStatus.APPLYING, false, false, false, true, null));
    assertThat(((Decision.Fail) noRequest).message()).contains("its request was not recorded");
    Decision noValues =
        RestartRecovery.decide(
            new Facts("planner-a", RunStatus.APPLYING, true, false, false, true, null));
    assertThat(((Decision.Fail) noValues).message()).contains("STAGECRAFT_SECRETS_KEYS");
  }

  @Test
  void aRunWithoutItsRequestOrVariableValuesEndsErroredSayingWhy() {
    Decision noRequest =
        RestartRecovery.decide(
            new Facts("planner-a", RunStatus.QUEUED, false, false, false, false, null));
    assertThat(((Decision.Fail) noRequest).message())
        .contains("was queued (nothing was applied)")
        .contains("its request was not recorded");
    Decision noValues =
        RestartRecovery.decide(
            new Facts("planner-a", RunStatus.PENDING, true, false, false, false, null));
    assertThat(((Decision.Fail) noValues).message()).contains("STAGECRAFT_SECRETS_KEYS");
    Decision noDigest =
        RestartRecovery.decide(
            new Facts("planner-a", RunStatus.PLANNED, true, true, true, false, null));
    assertThat(((Decision.Fail) noDigest).message()).contains("digest");
    // an auto-applied run recorded planned (and found to have dispatched nothing) plans again
    assertThat(
            RestartRecovery.decide(
                new Facts("planner-a", RunStatus.PLANNED, true, true, false, false, null)))
        .isInstanceOf(Decision.Resume.class);
  }
}
