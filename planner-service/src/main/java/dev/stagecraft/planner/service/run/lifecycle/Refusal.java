package dev.stagecraft.planner.service.run.lifecycle;

/**
 * Why {@link RunDecider#decide} refused a command. The approval refusals are those of {@code
 * dev.stagecraft.planner.service.run.approval.ApprovalOutcome} (its {@code of(Decision)}); an API
 * maps {@link #ALREADY_ENDED} of an approval to its "not awaiting approval" answer, and of a cancel
 * to the run as it is.
 */
public enum Refusal {
  /** The run is not waiting for approval (not planned yet, auto-applied, decided). */
  NOT_AWAITING,
  /** The digest named is not the digest of the run's plan. */
  WRONG_DIGEST,
  /** The approval came after the approval timeout; the run was discarded (see the events). */
  EXPIRED,
  /** The run is in a terminal status: nothing moves it any more. */
  ALREADY_ENDED,
  /** The command does not fit where the run stands (a duplicate, an answer out of turn). */
  NOT_EXPECTED,
  /** The command names another lock or action than the run's (a redelivery, an older lock). */
  STALE,
  /** A resume of a run recorded as applying or ended: such a run is carried on or left. */
  NOT_RESUMABLE
}
