package dev.stagecraft.planner.service.run.recovery;

import dev.stagecraft.planner.service.run.RunStatus;

/**
 * Why a planner instance takes over unfinished runs (docs/runs.md "Restart", docs/adr/0029 and
 * 0034): its own runs after it restarted, or another instance's runs after that instance stopped
 * renewing its lease. The same decision ({@link RestartRecovery#decide}) applies to both; only the
 * messages differ, so that a run's transitions say which of the two happened: every message written
 * for a restart goes through {@link #reword}. Plain values.
 */
public sealed interface RecoveryCause {

  /** The instance that was driving the runs when it stopped. */
  String previousOwner();

  /**
   * A message written for a restart ({@link RestartRecovery}: "… planner instance A restarted …"),
   * as this cause says it.
   */
  String reword(String restartMessage);

  /** The message of a resumed run's {@code pending} transition. */
  default String resumedMessage(RunStatus recordedStatus) {
    return reword(RestartRecovery.resumedMessage(previousOwner(), recordedStatus));
  }

  /** The message of a run that was to be resumed but could not be ({@code error} says why). */
  default String couldNotResumeMessage(RunStatus recordedStatus, String error) {
    return reword(
        "The planner instance "
            + previousOwner()
            + " restarted while this run was "
            + recordedStatus.wireName()
            + " and could not resume it: "
            + error
            + ". Start a new run.");
  }

  /** This instance restarted (same {@code STAGECRAFT_INSTANCE_ID}): the messages of ADR 0029. */
  record Restart(String instanceId) implements RecoveryCause {
    @Override
    public String previousOwner() {
      return instanceId;
    }

    @Override
    public String reword(String restartMessage) {
      return restartMessage;
    }
  }

  /**
   * Instance {@code adopter} took over the runs of {@code deadInstance}, whose lease expired.
   *
   * @param adopter the instance that carries the runs on
   * @param deadInstance the instance that stopped renewing its lease
   */
  record Adoption(String adopter, String deadInstance) implements RecoveryCause {
    @Override
    public String previousOwner() {
      return deadInstance;
    }

    /** "adopted by planner instance B after instance A stopped renewing its lease". */
    public String adoptedBy() {
      return "adopted by planner instance "
          + adopter
          + " after instance "
          + deadInstance
          + " stopped renewing its lease";
    }

    /**
     * Replaces the restart subject of the message ("Resumed after a planner restart: planner
     * instance A restarted", "The planner instance A restarted") with the adoption; a message of
     * another shape is kept whole, behind the adoption.
     */
    @Override
    public String reword(String restartMessage) {
      String resumed =
          "Resumed after a planner restart: planner instance " + deadInstance + " restarted";
      String ended = "The planner instance " + deadInstance + " restarted";
      if (restartMessage.startsWith(resumed)) {
        return "Resumed after adoption: this run was "
            + adoptedBy()
            + restartMessage.substring(resumed.length());
      }
      if (restartMessage.startsWith(ended)) {
        return "A" + adoptedBy().substring(1) + restartMessage.substring(ended.length());
      }
      return "A" + adoptedBy().substring(1) + ": " + restartMessage;
    }
  }
}
