package dev.stagecraft.chaos.source;

import java.util.Map;
import java.util.Optional;

/**
 * What the workload knows about each journal token it put in a configuration: the step it belongs
 * to. A token is unique per step of a submitted run (the workload writes it into the step's command
 * and records it here once the run's id is known).
 */
public record TokenManifest(Map<String, Step> steps) {

  /**
   * @param stepId {@code <actionId>#<index>}
   * @param retryable true if the step is marked safe to run again
   */
  public record Step(String runId, String actionId, String stepId, boolean retryable) {}

  public TokenManifest {
    steps = Map.copyOf(steps);
  }

  public Optional<Step> step(String token) {
    return Optional.ofNullable(steps.get(token));
  }
}
