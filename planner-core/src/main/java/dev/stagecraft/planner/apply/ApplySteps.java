package dev.stagecraft.planner.apply;

import dev.stagecraft.planner.plan.Plan;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where each step of the plan a run applies stands, as a value: a step is ready when every step it
 * waits for succeeded; a failed step skips everything that waits for it (directly or not) while
 * independent branches go on, as in Terraform; at most {@code parallelism} steps are dispatched at
 * once. Immutable: every change returns a new value; a result for a step that is not dispatched (a
 * duplicate, a redelivery) changes nothing.
 */
public final class ApplySteps {
  /** Where one step stands. */
  public enum Status {
    PENDING,
    DISPATCHED,
    SUCCEEDED,
    FAILED,
    SKIPPED
  }

  private final List<PlannedStep> steps;
  private final Map<String, Status> status;
  private final int parallelism;

  private ApplySteps(List<PlannedStep> steps, Map<String, Status> status, int parallelism) {
    this.steps = steps;
    this.status = Collections.unmodifiableMap(status);
    this.parallelism = parallelism;
  }

  /** The steps of {@code plan} ({@link PlannedStep#stepsOf}), none started. */
  public static ApplySteps of(Plan plan, int parallelism) {
    return of(PlannedStep.stepsOf(plan), parallelism);
  }

  public static ApplySteps of(List<PlannedStep> steps, int parallelism) {
    Map<String, Status> status = new LinkedHashMap<>();
    steps.forEach(s -> status.put(s.address(), Status.PENDING));
    return new ApplySteps(List.copyOf(steps), status, Math.max(1, parallelism));
  }

  /** The steps that may be dispatched now, in plan order (this value is not changed). */
  public List<PlannedStep> ready() {
    int free = parallelism - withStatus(Status.DISPATCHED).size();
    List<PlannedStep> ready = new ArrayList<>();
    for (PlannedStep step : steps) {
      if (ready.size() >= free) {
        break;
      }
      if (status.get(step.address()) == Status.PENDING
          && step.waitsFor().stream().allMatch(this::satisfied)) {
        ready.add(step);
      }
    }
    return ready;
  }

  private boolean satisfied(String address) {
    Status s = status.get(address);
    return s == null || s == Status.SUCCEEDED;
  }

  public ApplySteps dispatched(String address) {
    return with(address, Status.DISPATCHED);
  }

  public ApplySteps succeeded(String address) {
    return status.get(address) == Status.DISPATCHED ? with(address, Status.SUCCEEDED) : this;
  }

  /** Records a failure and skips every pending step that waits for it, transitively. */
  public ApplySteps failed(String address) {
    if (status.get(address) != Status.DISPATCHED) {
      return this;
    }
    Map<String, Status> next = new LinkedHashMap<>(status);
    next.put(address, Status.FAILED);
    boolean changed = true;
    while (changed) {
      changed = false;
      for (PlannedStep step : steps) {
        if (next.get(step.address()) == Status.PENDING
            && step.waitsFor().stream()
                .anyMatch(w -> next.get(w) == Status.FAILED || next.get(w) == Status.SKIPPED)) {
          next.put(step.address(), Status.SKIPPED);
          changed = true;
        }
      }
    }
    return new ApplySteps(steps, next, parallelism);
  }

  private ApplySteps with(String address, Status s) {
    if (!status.containsKey(address)) {
      return this;
    }
    Map<String, Status> next = new LinkedHashMap<>(status);
    next.put(address, s);
    return new ApplySteps(steps, next, parallelism);
  }

  /** The status of a step; {@code null} for an address without a step in the plan. */
  public Status status(String address) {
    return status.get(address);
  }

  public boolean contains(String address) {
    return status.containsKey(address);
  }

  /** True when nothing is dispatched and nothing pending can still start. */
  public boolean isFinished() {
    return !status.containsValue(Status.DISPATCHED) && !status.containsValue(Status.PENDING);
  }

  public boolean hasFailures() {
    return status.containsValue(Status.FAILED);
  }

  public List<String> withStatus(Status wanted) {
    return status.entrySet().stream()
        .filter(e -> e.getValue() == wanted)
        .map(Map.Entry::getKey)
        .toList();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ApplySteps other
        && steps.equals(other.steps)
        && status.equals(other.status)
        && parallelism == other.parallelism;
  }

  @Override
  public int hashCode() {
    return status.hashCode();
  }

  @Override
  public String toString() {
    return "ApplySteps" + status;
  }
}
