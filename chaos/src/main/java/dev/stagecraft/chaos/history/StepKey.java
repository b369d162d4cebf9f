package dev.stagecraft.chaos.history;

/** A step of a run: {@code stepId} ({@code <actionId>#<index>}) is unique within its run. */
public record StepKey(String runId, String stepId) implements Comparable<StepKey> {

  @Override
  public int compareTo(StepKey other) {
    int byRun = runId.compareTo(other.runId);
    return byRun != 0 ? byRun : stepId.compareTo(other.stepId);
  }

  @Override
  public String toString() {
    return runId + "/" + stepId;
  }
}
