package dev.stagecraft.planner.apply;

import dev.stagecraft.planner.plan.Plan;
import dev.stagecraft.planner.plan.PlannedAction;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which actions of a plan may start now: an action is ready when every action it waits for has been
 * recorded as succeeded. A failed action stops everything that waits for it (directly or not);
 * independent branches go on, as in Terraform. At most {@code parallelism} actions are in flight.
 *
 * <p>Not thread-safe: the run coordinator owns one instance and calls it under its run's lock.
 */
public final class ApplySchedule {
  /** Where one action stands. */
  public enum Status {
    PENDING,
    DISPATCHED,
    SUCCEEDED,
    FAILED,
    SKIPPED
  }

  private final Map<String, PlannedAction> actions = new LinkedHashMap<>();
  private final Map<String, Status> status = new LinkedHashMap<>();
  private final Map<String, List<String>> instancesOfResource = new LinkedHashMap<>();
  private final int parallelism;

  public ApplySchedule(Plan plan, int parallelism) {
    if (parallelism < 1) {
      throw new IllegalArgumentException("parallelism must be at least 1, was " + parallelism);
    }
    this.parallelism = parallelism;
    for (PlannedAction a : plan.changes()) {
      actions.put(a.address(), a);
      status.put(a.address(), Status.PENDING);
      if (!a.address().equals(a.resourceAddress())) {
        instancesOfResource
            .computeIfAbsent(a.resourceAddress(), k -> new ArrayList<>())
            .add(a.address());
      }
    }
  }

  /** Marks the actions that may start now as dispatched and returns them, in plan order. */
  public List<PlannedAction> takeReady() {
    List<PlannedAction> ready = new ArrayList<>();
    long inFlight = status.values().stream().filter(s -> s == Status.DISPATCHED).count();
    for (PlannedAction a : actions.values()) {
      if (inFlight + ready.size() >= parallelism) {
        break;
      }
      if (status.get(a.address()) == Status.PENDING && waitsAreOver(a)) {
        ready.add(a);
      }
    }
    ready.forEach(a -> status.put(a.address(), Status.DISPATCHED));
    return ready;
  }

  private boolean waitsAreOver(PlannedAction a) {
    return a.waitFor().stream().allMatch(w -> statusOfWait(w) == Status.SUCCEEDED);
  }

  /**
   * The status of what a wait names: an instance address, or the address of a repeated resource
   * (count / for_each), which stands for all of its instances changed by this plan. Addresses
   * without an action in this plan (no-op) are already satisfied.
   */
  private Status statusOfWait(String w) {
    Status direct = status.get(w);
    if (direct != null) {
      return direct;
    }
    List<String> instances = instancesOfResource.get(w);
    if (instances == null) {
      return Status.SUCCEEDED;
    }
    Status aggregate = Status.SUCCEEDED;
    for (String i : instances) {
      Status s = status.get(i);
      if (s == Status.FAILED || s == Status.SKIPPED) {
        return Status.FAILED;
      }
      if (s != Status.SUCCEEDED) {
        aggregate = Status.PENDING;
      }
    }
    return aggregate;
  }

  public void recordSucceeded(String address) {
    transition(address, Status.SUCCEEDED);
  }

  /** Records a failure and skips every pending action that waits for it, transitively. */
  public void recordFailed(String address) {
    transition(address, Status.FAILED);
    boolean changed = true;
    while (changed) {
      changed = false;
      for (PlannedAction a : actions.values()) {
        if (status.get(a.address()) == Status.PENDING
            && a.waitFor().stream()
                .anyMatch(
                    w -> statusOfWait(w) == Status.FAILED || statusOfWait(w) == Status.SKIPPED)) {
          status.put(a.address(), Status.SKIPPED);
          changed = true;
        }
      }
    }
  }

  private void transition(String address, Status to) {
    Status from = status.get(address);
    if (from == null) {
      throw new IllegalArgumentException("no action for " + address + " in this plan");
    }
    if (from != Status.DISPATCHED) {
      // a duplicate result (redelivery) of an action already settled changes nothing
      return;
    }
    status.put(address, to);
  }

  public Status status(String address) {
    return status.get(address);
  }

  /** True when nothing is in flight and nothing pending can still start. */
  public boolean isFinished() {
    return status.values().stream().noneMatch(s -> s == Status.DISPATCHED || s == Status.PENDING);
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
}
