package dev.stagecraft.chaos.invariant;

import dev.stagecraft.chaos.history.History;
import dev.stagecraft.chaos.history.RunRecord;
import dev.stagecraft.chaos.history.WorkspaceKey;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Nothing stays stuck: every run reaches an end state within {@code bound} after the latest of its
 * own acceptance, the end of the last fault and the end of the runs queued before it in its
 * workspace (a run waiting its turn in a first-come-first-served queue is not stuck). A run not in
 * an end state when the history stops is {@link ViolationKind#RUN_NOT_ENDED} (also when the history
 * stops before the deadline: the soak must observe at least {@code bound} after its last fault,
 * else the check could not fail); one that ended after its deadline is {@link
 * ViolationKind#RUN_ENDED_LATE}.
 */
public final class RunsEnd implements Invariant {

  /** The statuses a run never leaves (docs/runs.md). */
  public static final Set<String> END_STATES =
      Set.of("planned_and_finished", "applied", "errored", "canceled", "discarded");

  private final Duration bound;
  private final Set<String> endStates;

  public RunsEnd(Duration bound) {
    this(bound, END_STATES);
  }

  public RunsEnd(Duration bound, Set<String> endStates) {
    if (bound.isNegative()) {
      throw new IllegalArgumentException("bound must not be negative: " + bound);
    }
    this.bound = bound;
    this.endStates = Set.copyOf(endStates);
  }

  @Override
  public String name() {
    return "runs end";
  }

  @Override
  public List<Violation> check(History history) {
    Instant lastFault = history.lastFaultOver().orElse(Instant.MIN);
    List<Violation> found = new ArrayList<>();
    List<RunRecord> runs = new ArrayList<>(history.runs());
    runs.sort(Comparator.comparing(RunRecord::runId));
    Map<String, Instant> aheadEnded = aheadEnded(history.runs());
    for (RunRecord run : runs) {
      Instant ahead = aheadEnded.getOrDefault(run.runId(), Instant.MIN);
      Instant from = latest(run.queuedAt(), lastFault, ahead);
      Instant deadline = from.plus(bound);
      String since =
          from.equals(lastFault)
              ? "the last fault was over at " + from
              : from.equals(ahead)
                  ? "the run queued ahead of it ended at " + from
                  : "it was queued at " + from;
      if (!endStates.contains(run.status())) {
        String when =
            history.observedUntil().isBefore(deadline)
                ? "; the history stops at "
                    + history.observedUntil()
                    + ", before its deadline "
                    + deadline
                    + ": observe at least "
                    + Texts.duration(bound)
                    + " after the last fault"
                : " at " + history.observedUntil() + ", after its deadline " + deadline;
        found.add(
            new Violation(
                ViolationKind.RUN_NOT_ENDED,
                "run "
                    + run.runId()
                    + " is still \""
                    + run.status()
                    + "\""
                    + when
                    + " ("
                    + since
                    + ", bound "
                    + Texts.duration(bound)
                    + ")",
                List.of(run.runId()),
                List.of(run)));
      } else if (run.endedAt() != null && run.endedAt().isAfter(deadline)) {
        found.add(
            new Violation(
                ViolationKind.RUN_ENDED_LATE,
                "run "
                    + run.runId()
                    + " ended \""
                    + run.status()
                    + "\" at "
                    + run.endedAt()
                    + ", "
                    + Texts.duration(Duration.between(deadline, run.endedAt()))
                    + " after its deadline "
                    + deadline
                    + " ("
                    + since
                    + ", bound "
                    + Texts.duration(bound)
                    + ")",
                List.of(run.runId()),
                List.of(run)));
      }
    }
    return found;
  }

  private static Instant latest(Instant a, Instant b, Instant c) {
    Instant m = a.isAfter(b) ? a : b;
    return m.isAfter(c) ? m : c;
  }

  /**
   * Per run, when the last of the runs queued before it in its workspace ended (the queue is first
   * come, first served: a run cannot start before them, so waiting for them is not being stuck).
   * Runs that never asked for the lock have no place and wait for nobody.
   */
  private static Map<String, Instant> aheadEnded(List<RunRecord> all) {
    Map<WorkspaceKey, List<RunRecord>> byWorkspace = new HashMap<>();
    for (RunRecord r : all) {
      if (r.queueOrder() != Long.MAX_VALUE) {
        byWorkspace
            .computeIfAbsent(new WorkspaceKey(r.tenant(), r.workspace()), k -> new ArrayList<>())
            .add(r);
      }
    }
    Map<String, Instant> ahead = new HashMap<>();
    for (List<RunRecord> queue : byWorkspace.values()) {
      queue.sort(Comparator.comparingLong(RunRecord::queueOrder));
      Instant lastEnd = Instant.MIN; // of the runs with a place strictly before the current one
      Instant endsAtThisPlace = Instant.MIN;
      long place = Long.MIN_VALUE;
      for (RunRecord r : queue) {
        if (r.queueOrder() != place) {
          lastEnd = endsAtThisPlace.isAfter(lastEnd) ? endsAtThisPlace : lastEnd;
          place = r.queueOrder();
        }
        ahead.put(r.runId(), lastEnd);
        if (r.endedAt() != null && r.endedAt().isAfter(endsAtThisPlace)) {
          endsAtThisPlace = r.endedAt();
        }
      }
    }
    return ahead;
  }
}
