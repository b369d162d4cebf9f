package dev.stagecraft.planner.service.run.recovery;

import dev.stagecraft.planner.service.run.RunCoordinator;
import dev.stagecraft.planner.service.run.RunStatus;
import dev.stagecraft.schemas.Topics;
import java.util.Optional;

/**
 * Decides what becomes of a run this planner instance was driving when it stopped (docs/runs.md
 * "Restart", docs/adr/0029). Plain decision logic: the caller gathers the facts, this says whether
 * the run is started again or ended {@code errored}, and with which message.
 *
 * <p>Rules: a run that may have dispatched an action — one recorded {@code applying}, or one whose
 * action was found on {@code stagecraft.actions} (its record may lag by the transitions a crash
 * lost) — is never started again from scratch, because that could run a step a second time
 * (docs/adr/0007). It is <em>carried on</em> instead (docs/adr/0035: its dispatched actions are
 * awaited, then the rest is planned and applied) when its dispatches could be read and its request
 * was recorded completely; else it ends {@code errored}. A run that applied nothing ({@code
 * pending}, {@code queued}, {@code planning}, {@code planned}) is resumed when its request was
 * recorded completely (variable values need the secrets keyring) and, for a {@code planned} run,
 * its plan digest is known.
 */
public final class RestartRecovery {
  private RestartRecovery() {}

  /**
   * What a restarted planner knows of one of its unfinished runs.
   *
   * @param awaitingApproval whether the run waits for approval of a plan with changes
   * @param dispatchedAny whether an action of the run was found dispatched (or that is unknown)
   * @param planDigest the recorded digest of its plan, or null
   * @param dispatchesReadable whether {@code stagecraft.actions} could be read: when not, a run
   *     that may have dispatched is not carried on (which steps ran is never guessed)
   */
  public record Facts(
      String instanceId,
      RunStatus recordedStatus,
      boolean requestRecorded,
      boolean variablesRecorded,
      boolean awaitingApproval,
      boolean dispatchedAny,
      String planDigest,
      boolean dispatchesReadable) {

    /** Facts of a run whose dispatches were read ({@code dispatchesReadable}). */
    public Facts(
        String instanceId,
        RunStatus recordedStatus,
        boolean requestRecorded,
        boolean variablesRecorded,
        boolean awaitingApproval,
        boolean dispatchedAny,
        String planDigest) {
      this(
          instanceId,
          recordedStatus,
          requestRecorded,
          variablesRecorded,
          awaitingApproval,
          dispatchedAny,
          planDigest,
          true);
    }
  }

  /** Resume the run, or end it {@code errored} with {@code message}. */
  public sealed interface Decision {
    /** Start the run again from its recorded request. */
    record Resume() implements Decision {}

    /**
     * Carry the run on from what it dispatched ({@link RunCoordinator#carryOn}, docs/adr/0035):
     * await its dispatched actions, then plan and apply the rest.
     */
    record CarryOn() implements Decision {}

    /** End the run {@code errored} with this message. */
    record Fail(String message) implements Decision {}
  }

  /** The message of a run's {@code pending} transition when it is resumed. */
  public static String resumedMessage(String instanceId, RunStatus recordedStatus) {
    return "Resumed after a planner restart: planner instance "
        + instanceId
        + " restarted while this run was "
        + recordedStatus.wireName()
        + "; nothing had been applied, so the run starts again from its recorded request (same"
        + " run id"
        + (recordedStatus == RunStatus.PLANNED
            ? "; a plan that awaited approval waits again only if planning again gives the same"
                + " plan"
            : "")
        + ").";
  }

  /**
   * The message of a carried-on run's {@code pending} transition (docs/adr/0035); the {@code
   * applying} one that follows names the actions ({@code RunMessages#carriedApplying}).
   */
  public static String carriedOnMessage(String instanceId, RunStatus recordedStatus) {
    return "Resumed after a planner restart: planner instance "
        + instanceId
        + " restarted while this run was "
        + recordedStatus.wireName()
        + " and had dispatched actions; the run is carried on under its id: the actions it"
        + " dispatched are awaited, never run twice, then the rest of its plan is applied.";
  }

  /** The decision for one run. */
  public static Decision decide(Facts facts) {
    RunStatus status = facts.recordedStatus();
    if (status.isTerminal()) {
      throw new IllegalArgumentException("run is terminal already: " + status);
    }
    if (status == RunStatus.APPLYING || facts.dispatchedAny()) {
      String stopped =
          "The planner instance "
              + facts.instanceId()
              + " restarted while this run was applying; the run was stopped and will not resume";
      String check =
          " Steps that were running may or may not have completed: check the workspace's state"
              + " (stagecraft state list) and start a new run.";
      if (!facts.dispatchesReadable()) {
        return new Decision.Fail(
            stopped
                + ": the record of its dispatched actions ("
                + Topics.ACTIONS
                + ") could not be read, so which steps ran cannot be told and is not guessed."
                + check);
      }
      if (!facts.requestRecorded()) {
        return new Decision.Fail(
            stopped
                + ": its request was not recorded (the run was started by an older planner"
                + " version, or the planner stopped before writing it)."
                + check);
      }
      if (!facts.variablesRecorded()) {
        return new Decision.Fail(
            stopped
                + ": its variable values are stored only with a secrets keyring"
                + " (STAGECRAFT_SECRETS_KEYS), and none was configured when it started, or the"
                + " key that sealed them is no longer in the keyring."
                + check);
      }
      return new Decision.CarryOn();
    }
    String cannot =
        "The planner instance "
            + facts.instanceId()
            + " restarted while this run was "
            + status.wireName()
            + " (nothing was applied) and the run cannot be resumed: ";
    if (!facts.requestRecorded()) {
      return new Decision.Fail(
          cannot
              + "its request was not recorded (the planner stopped before writing it, or the run"
              + " was started by an older planner version). Start a new run.");
    }
    if (!facts.variablesRecorded()) {
      return new Decision.Fail(
          cannot
              + "its variable values are stored only with a secrets keyring"
              + " (STAGECRAFT_SECRETS_KEYS), and none was configured when it started, or the key"
              + " that sealed them is no longer in the keyring. Start a new run.");
    }
    if (status == RunStatus.PLANNED && facts.awaitingApproval() && facts.planDigest() == null) {
      return new Decision.Fail(
          cannot + "the digest of the plan awaiting approval was not recorded. Start a new run.");
    }
    return new Decision.Resume();
  }

  /**
   * The message of a resumed {@code planned} run whose plan, made again, differs from the one that
   * awaited approval. It names no cause, so it reads right for a restart and for an adoption
   * (docs/adr/0034); the run's {@code pending} transition before it says which it was.
   */
  public static String planMovedMessage(String shownDigest, String newDigest) {
    return "The workspace's state (or what the plan reads) moved since the plan that awaited"
        + " approval was made: planned again after this run's planner instance stopped, the plan"
        + " (digest "
        + abbreviate(newDigest)
        + ") differs from the one that awaited approval (digest "
        + abbreviate(shownDigest)
        + "), so that approval cannot apply; nothing was applied. Start a new run and approve its"
        + " plan.";
  }

  private static String abbreviate(String digest) {
    return Optional.ofNullable(digest)
        .map(d -> d.length() > 16 ? d.substring(0, 16) + "…" : d)
        .orElse("none");
  }
}
