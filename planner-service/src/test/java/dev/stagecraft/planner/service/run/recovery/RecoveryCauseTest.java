package dev.stagecraft.planner.service.run.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.planner.service.run.RunStatus;
import dev.stagecraft.planner.service.run.lifecycle.RunMessages;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The messages of runs carried on after a restart and after an adoption (docs/adr/0034). */
class RecoveryCauseTest {
  final RecoveryCause restart = new RecoveryCause.Restart("planner-a");
  final RecoveryCause adoption = new RecoveryCause.Adoption("planner-b", "planner-a");

  @Test
  void aRestartKeepsTheMessagesOfAdr0029() {
    assertThat(restart.previousOwner()).isEqualTo("planner-a");
    assertThat(restart.resumedMessage(RunStatus.QUEUED))
        .isEqualTo(RestartRecovery.resumedMessage("planner-a", RunStatus.QUEUED));
    assertThat(restart.reword("anything")).isEqualTo("anything");
    assertThat(restart.couldNotResumeMessage(RunStatus.QUEUED, "boom"))
        .isEqualTo(
            "The planner instance planner-a restarted while this run was queued and could not"
                + " resume it: boom. Start a new run.");
  }

  @Test
  void anAdoptedRunSaysWhoAdoptedItAfterWhichInstanceStoppedRenewingItsLease() {
    String adopted =
        "adopted by planner instance planner-b after instance planner-a stopped"
            + " renewing its lease";
    assertThat(adoption.previousOwner()).isEqualTo("planner-a");

    String resumed = adoption.resumedMessage(RunStatus.QUEUED);
    assertThat(resumed)
        .startsWith("Resumed after adoption: this run was " + adopted)
        .contains("while this run was queued; nothing had been applied")
        .doesNotContain("restart");

    // the shape of RestartRecovery's messages for runs that end errored
    assertThat(
            adoption.reword(
                "The planner instance planner-a restarted while this run was applying; the run was"
                    + " stopped and will not resume."))
        .isEqualTo(
            "A"
                + adopted.substring(1)
                + " while this run was applying; the run was stopped and will not resume.");

    assertThat(adoption.couldNotResumeMessage(RunStatus.PLANNED, "boom"))
        .startsWith("A" + adopted.substring(1) + " while this run was planned")
        .contains("could not resume it: boom")
        .doesNotContain("restarted");
    // a message of another shape is kept whole, after the adoption
    assertThat(adoption.reword("Something else."))
        .isEqualTo("A" + adopted.substring(1) + ": Something else.");
  }

  @Test
  void theMessagesOfAResumedOrCarriedOnRunThatAreNotRewordedNameNoCause() {
    // these are not reworded by the cause: they must read right after a restart and an adoption
    for (String message :
        new String[] {
          RestartRecovery.planMovedMessage("a".repeat(64), "b".repeat(64)),
          RunMessages.wouldRepeat(List.of("null_resource.a")),
          RunMessages.restNotApproved("1 to add", "not in the approved plan: x.y")
        }) {
      assertThat(message)
          .doesNotContainIgnoringCase("restart")
          .doesNotContainIgnoringCase("adopt")
          .contains("planner instance stopped");
    }
    assertThat(RestartRecovery.planMovedMessage("a".repeat(64), "b".repeat(64)))
        .contains(
            "(digest bbbbbbbbbbbbbbbb…) differs from the one that awaited approval (digest"
                + " aaaaaaaaaaaaaaaa…)");
  }
}
