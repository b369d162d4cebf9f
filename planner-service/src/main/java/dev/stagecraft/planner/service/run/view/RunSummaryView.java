package dev.stagecraft.planner.service.run.view;

import dev.stagecraft.planner.service.run.Run;
import java.time.Instant;

/**
 * A run's summary as answers that name a run show it (a replayed start, a cancel of an ended run):
 * {@link Run.RunSummary} without the plan text.
 */
public record RunSummaryView(
    String id,
    String tenant,
    String workspace,
    String status,
    boolean terminal,
    String message,
    String planDigest,
    Instant createdAt) {

  public static RunSummaryView of(Run.RunSummary s) {
    return new RunSummaryView(
        s.id(),
        s.tenant(),
        s.workspace(),
        s.status(),
        s.terminal(),
        s.message(),
        s.planDigest(),
        s.createdAt());
  }
}
