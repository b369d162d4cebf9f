package dev.stagecraft.planner.service.run.lifecycle;

import dev.stagecraft.planner.apply.PlannedStep;
import java.util.List;
import java.util.Objects;

/**
 * What the lifecycle needs to know of a plan: its digest, whether applying it changes anything
 * ({@code Plan#applies}: resource or output changes), its rendered text (the {@code planned}
 * message), its one-line summary (the {@code applying} message) and counts, and its steps.
 */
public record PlanInfo(
    String digest,
    boolean hasChanges,
    String text,
    String summary,
    int toAdd,
    int toChange,
    int toDestroy,
    List<PlannedStep> steps) {
  public PlanInfo {
    Objects.requireNonNull(digest, "digest");
    steps = List.copyOf(steps);
  }
}
