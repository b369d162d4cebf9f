package dev.stagecraft.chaos.invariant;

import java.util.Locale;

/**
 * Every way a soak can break a reliability promise (design §9), grouped by the invariant that finds
 * it. The declaration order is the report's order.
 */
public enum ViolationKind {
  RUN_NOT_ENDED("runs end", "the run is not in an end state"),
  RUN_ENDED_LATE("runs end", "the run ended later than the bound after the last fault"),
  STEP_EXECUTED_TWICE("steps at most once", "a step not marked retryable ran more than once"),
  STEP_RUN_UNREPORTED(
      "steps at most once",
      "a step ran (its token is in a journal) but no outcome was reported for it"),
  INTERRUPTED_STEP_NOT_TAINTED(
      "steps at most once", "a creating step reported interrupted left its instance not tainted"),
  STATE_SEQUENCE_GAP("state histories", "the history skips or repeats a sequence number"),
  STATE_SERIAL_NOT_INCREASING(
      "state histories", "a write's serial is not above the previous write's"),
  STATE_LINEAGE_CHANGED("state histories", "a write changed the state's lineage"),
  STATE_WRITE_STALE_TOKEN(
      "state histories", "a write was accepted under a fencing token older than the newest seen"),
  TWO_LOCK_HOLDERS("one lock holder", "two holders held a workspace's lock at the same time"),
  LOCK_TOKEN_NOT_INCREASING(
      "one lock holder", "a lock was granted with a fencing token not above the previous grant's"),
  EVENT_LOST("no lost events", "an event committed upstream never arrived downstream"),
  QUEUE_OVERTAKEN("FIFO queues", "a run started before a run queued earlier in its workspace"),
  CROSS_TENANT_READ("tenant isolation", "a tenant was shown another tenant's data");

  private final String invariant;
  private final String meaning;

  ViolationKind(String invariant, String meaning) {
    this.invariant = invariant;
    this.meaning = meaning;
  }

  /** The invariant (family) that finds this kind. */
  public String invariant() {
    return invariant;
  }

  /** What the violation means, in one line. */
  public String meaning() {
    return meaning;
  }

  /** The kind as the report names it: {@code run-not-ended}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
