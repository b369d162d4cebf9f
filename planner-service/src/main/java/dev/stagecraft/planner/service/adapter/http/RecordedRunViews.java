package dev.stagecraft.planner.service.adapter.http;

import dev.stagecraft.planner.service.adapter.db.RunStore;
import dev.stagecraft.planner.service.run.view.RunSummaryView;
import dev.stagecraft.planner.service.run.view.RunView;
import java.util.List;
import java.util.Optional;

/** The run views ({@code run.view}) of what the planner's records ({@link RunStore}) hold. */
final class RecordedRunViews {
  private RecordedRunViews() {}

  /** The summary of a run, from its records. */
  static RunSummaryView summary(RunStore.RunRecord r) {
    return new RunSummaryView(
        r.id(),
        r.tenant(),
        r.workspace(),
        r.status(),
        r.terminal(),
        r.message(),
        r.planDigest(),
        r.createdAt());
  }

  /** What a run's records add to its summary. */
  static RunView.Recorded recorded(RunStore.RunRecord r) {
    return new RunView.Recorded(
        r.updatedAt(),
        r.requestMessage(),
        r.requestedBy(),
        r.approvedBy(),
        r.approvedAt(),
        r.configurationVersion(),
        r.variables(),
        r.source(),
        r.variableSources(),
        r.variableVersions(),
        r.traceId());
  }

  static List<RunView.Transition> transitions(List<RunStore.Transition> recorded) {
    return recorded.stream()
        .map(t -> new RunView.Transition(t.sequence(), t.status(), t.message(), t.at()))
        .toList();
  }

  /**
   * Whether a run shown from its records (another instance drives it, or it ended) waits for
   * approval, where the records can tell: not when it ended, was approved, or was requested to
   * apply without approval (it never waits). Otherwise empty: only the instance that drives it
   * knows (the records may lag behind it), so the field is left out.
   */
  static Optional<Boolean> awaitingAsRecorded(
      boolean terminal, String approvedBy, Optional<Boolean> requestAwaited) {
    if (terminal || approvedBy != null || requestAwaited.equals(Optional.of(false))) {
      return Optional.of(false);
    }
    return Optional.empty();
  }
}
