package dev.stagecraft.chaos.invariant;

import dev.stagecraft.chaos.history.History;
import dev.stagecraft.chaos.history.RunRecord;
import dev.stagecraft.chaos.history.WorkspaceKey;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Queued runs run first come, first served per workspace: among the runs of a workspace that
 * started, none started before a run queued earlier ({@link ViolationKind#QUEUE_OVERTAKEN}). Runs
 * that never started (canceled or errored while waiting) and runs replaced by a newer coalesced run
 * are aside: they give up their place, they do not take one.
 */
public final class FifoQueues implements Invariant {

  @Override
  public String name() {
    return "FIFO queues";
  }

  @Override
  public List<Violation> check(History history) {
    Map<WorkspaceKey, List<RunRecord>> byWorkspace =
        history.runs().stream()
            .filter(r -> r.startedAt() != null && !r.coalesced())
            .sorted(Comparator.comparingLong(RunRecord::queueOrder).thenComparing(RunRecord::runId))
            .collect(
                Collectors.groupingBy(
                    r -> new WorkspaceKey(r.tenant(), r.workspace()),
                    TreeMap::new,
                    Collectors.toList()));
    List<Violation> found = new ArrayList<>();
    byWorkspace.forEach(
        (workspace, runs) -> {
          RunRecord latestStartSoFar = null;
          for (RunRecord run : runs) {
            if (latestStartSoFar != null
                && latestStartSoFar.queueOrder() < run.queueOrder()
                && latestStartSoFar.startedAt().isAfter(run.startedAt())) {
              found.add(
                  new Violation(
                      ViolationKind.QUEUE_OVERTAKEN,
                      "workspace "
                          + workspace
                          + ": run "
                          + run.runId()
                          + " (queued #"
                          + run.queueOrder()
                          + ") started at "
                          + run.startedAt()
                          + ", before run "
                          + latestStartSoFar.runId()
                          + " (queued #"
                          + latestStartSoFar.queueOrder()
                          + ", earlier) which started at "
                          + latestStartSoFar.startedAt(),
                      List.of(workspace.toString(), run.runId(), latestStartSoFar.runId()),
                      List.of(latestStartSoFar, run)));
            }
            if (latestStartSoFar == null || run.startedAt().isAfter(latestStartSoFar.startedAt())) {
              latestStartSoFar = run;
            }
          }
        });
    return found;
  }
}
