package dev.stagecraft.planner.service.run;

import dev.stagecraft.planner.plan.PlanJson;
import dev.stagecraft.planner.service.run.lifecycle.RunMessages;
import dev.stagecraft.schemas.action.ActionDispatched;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * The actions a run had dispatched before its planner instance restarted, and what became of each
 * (docs/adr/0035): the dispatches come from {@code stagecraft.actions}, the outcomes from the state
 * service (first outcome per action id) and from {@code state.recorded} events arriving since the
 * restart. The carried-on run waits until every dispatched action has an outcome ({@link
 * #settled}); then it ends {@code errored} when one did not succeed ({@link #notSucceeded}), else
 * it plans the rest against the current state — which must not contain an address dispatched
 * already ({@link #alreadyDispatched}): an action is never dispatched twice.
 *
 * <p>Plain Java. Not thread-safe: guarded by the monitor of the {@link Run} that owns it; {@link
 * #settled} may be awaited without it.
 */
final class CarriedActions {
  /** Dispatched actions by action id, in dispatch order. */
  private final Map<String, DispatchedActions.Dispatched> dispatched = new LinkedHashMap<>();

  /** Recorded outcome by action id (the first one seen). */
  private final Map<String, String> outcomes = new LinkedHashMap<>();

  /**
   * Completed once every dispatched action has an outcome, or when the run ends first (then with
   * nothing more to do: the waiter checks the run's status).
   */
  final CompletableFuture<Void> settled = new CompletableFuture<>();

  private final boolean approvalBound;

  /** What each change of the approved plan does, by address (ADR 0051); null when not recorded. */
  private final Map<String, String> approvedChanges;

  /** The recorded digest of the approved plan, or null (see {@link Run#approvedPlanDigest}). */
  private final String approvedPlanDigest;

  /**
   * @param approvalBound whether the run applies a plan approved as a whole (an approval, a saved
   *     plan's digest, the serial the CLI showed): then only the approved plan may be applied
   * @param approvedChanges {@link dev.stagecraft.planner.plan.Plan#changeDocuments} of that plan,
   *     as recorded with the run (docs/adr/0051): the rest planned after the restart is applied
   *     only when it is exactly the approved changes not dispatched yet. Null when the run recorded
   *     none (recorded before they were): then no rest of an approved plan is applied
   * @param approvedPlanDigest the recorded digest of the approved plan, which the carried-on run
   *     keeps showing; null when not approval-bound
   */
  CarriedActions(
      Collection<DispatchedActions.Dispatched> dispatches,
      boolean approvalBound,
      Map<String, String> approvedChanges,
      String approvedPlanDigest) {
    this.approvalBound = approvalBound;
    this.approvedPlanDigest = approvedPlanDigest;
    this.approvedChanges = approvedChanges == null ? null : Map.copyOf(approvedChanges);
    for (DispatchedActions.Dispatched d : dispatches) {
      dispatched.putIfAbsent(d.action().actionId(), d);
    }
    if (dispatched.isEmpty()) {
      settled.complete(null);
    }
  }

  /** See {@link #CarriedActions}. */
  boolean approvalBound() {
    return approvalBound;
  }

  /** See {@link #CarriedActions}. */
  Map<String, String> approvedChanges() {
    return approvedChanges;
  }

  /** See {@link #CarriedActions}. */
  String approvedPlanDigest() {
    return approvedPlanDigest;
  }

  /**
   * Whether the rest of an approved plan, planned again after the restart ({@code restChanges}: its
   * {@link dev.stagecraft.planner.plan.Plan#changeDocuments}), is exactly the approved changes not
   * dispatched before the restart, each doing what was approved ({@link
   * dev.stagecraft.planner.plan.PlanJson#covers}: a value unknown when approved may be known now;
   * docs/adr/0051).
   *
   * @return empty when it is; else why not, naming the addresses
   */
  Optional<String> unapprovedRest(Map<String, String> restChanges) {
    if (approvedChanges == null) {
      return Optional.of(
          "the planner that approved it recorded no copy of each change (a planner version"
              + " before ADR 0051)");
    }
    Set<String> dispatchedAddresses = new LinkedHashSet<>();
    dispatched.values().forEach(d -> dispatchedAddresses.add(d.action().address()));
    Map<String, String> expected = new TreeMap<>(approvedChanges);
    expected.keySet().removeAll(dispatchedAddresses);
    List<String> notApproved = new ArrayList<>();
    List<String> changed = new ArrayList<>();
    List<String> gone = new ArrayList<>();
    new TreeMap<>(restChanges)
        .forEach(
            (address, document) -> {
              String approved = expected.get(address);
              if (approved == null) {
                notApproved.add(address);
              } else if (!PlanJson.covers(approved, document)) {
                changed.add(address);
              }
            });
    expected.keySet().stream().filter(a -> !restChanges.containsKey(a)).forEach(gone::add);
    List<String> why = new ArrayList<>();
    if (!notApproved.isEmpty()) {
      why.add("not in the approved plan: " + String.join(", ", notApproved));
    }
    if (!changed.isEmpty()) {
      why.add("planned differently from the approved plan: " + String.join(", ", changed));
    }
    if (!gone.isEmpty()) {
      why.add("approved but no longer planned: " + String.join(", ", gone));
    }
    return why.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", why));
  }

  /** Whether {@code actionId} was dispatched before the restart. */
  boolean isCarried(String actionId) {
    return dispatched.containsKey(actionId);
  }

  /**
   * Records the outcome of a dispatched action; a second outcome of the same action is ignored (the
   * state service keeps the first, docs/adr/0007), as is one of an action not dispatched before the
   * restart.
   *
   * @return true when this was the action's first outcome
   */
  boolean recorded(String actionId, String outcome) {
    if (!dispatched.containsKey(actionId) || outcomes.containsKey(actionId)) {
      return false;
    }
    outcomes.put(actionId, outcome);
    if (outcomes.size() == dispatched.size()) {
      settled.complete(null);
    }
    return true;
  }

  /** The dispatched actions without an outcome yet, in dispatch order. */
  List<DispatchedActions.Dispatched> unfinished() {
    return dispatched.values().stream()
        .filter(d -> !outcomes.containsKey(d.action().actionId()))
        .toList();
  }

  /** Whether every dispatched action has an outcome. */
  boolean allFinished() {
    return outcomes.size() == dispatched.size();
  }

  /** How many actions were dispatched before the restart. */
  int dispatchedCount() {
    return dispatched.size();
  }

  /** The addresses of the actions with an outcome, each with it ({@code address: outcome}). */
  List<String> finishedWithOutcomes() {
    List<String> out = new ArrayList<>();
    dispatched.forEach(
        (id, d) -> {
          String outcome = outcomes.get(id);
          if (outcome != null) {
            out.add(d.action().address() + ": " + outcome);
          }
        });
    return out;
  }

  /** The addresses of the actions still without an outcome. */
  List<String> unfinishedAddresses() {
    return unfinished().stream().map(d -> d.action().address()).toList();
  }

  /** The addresses of the actions whose outcome is not {@code succeeded}, in dispatch order. */
  List<String> notSucceeded() {
    List<String> out = new ArrayList<>();
    dispatched.forEach(
        (id, d) -> {
          String outcome = outcomes.get(id);
          if (outcome != null && !"succeeded".equals(outcome)) {
            out.add(d.action().address());
          }
        });
    return out;
  }

  /** How many actions succeeded. */
  int succeededCount() {
    return (int) outcomes.values().stream().filter("succeeded"::equals).count();
  }

  /**
   * The resources the dispatched actions that succeeded added, changed and destroyed, counted as a
   * plan counts them ({@code Plan#toAdd} …): a {@code replace} adds one and destroys one — or only
   * adds, when the old object is forgotten ({@code lifecycle { destroy = false }}); a {@code
   * forget} counts in none.
   *
   * @return {@code {added, changed, destroyed}}
   */
  int[] succeededResourceCounts() {
    int[] counts = new int[3];
    dispatched.forEach(
        (id, d) -> {
          if (!"succeeded".equals(outcomes.get(id))) {
            return;
          }
          switch (d.action().action()) {
            case "create" -> counts[0]++;
            case "update" -> counts[1]++;
            case "delete" -> counts[2]++;
            case "replace" -> {
              counts[0]++;
              if (!Boolean.TRUE.equals(d.action().skipDestroy())) {
                counts[2]++;
              }
            }
            default -> {} // forget: the object stays, only the state forgets it
          }
        });
    return counts;
  }

  /**
   * "Resources: A added, C changed, D destroyed." for a carried-on run that applied: the rest's
   * plan ({@code restAdded} …) and the actions dispatched before its planner instance stopped
   * together, followed by the latter's share when both contributed.
   */
  String appliedSummary(int restAdded, int restChanged, int restDestroyed) {
    return RunMessages.carriedResources(
        succeededResourceCounts(), restAdded, restChanged, restDestroyed);
  }

  /**
   * Those of {@code plannedAddresses} (the plan of what remains) that were dispatched before the
   * restart: dispatching them again would reuse their action ids and run their steps a second time.
   */
  List<String> alreadyDispatched(Collection<String> plannedAddresses) {
    Set<String> addresses = new LinkedHashSet<>();
    dispatched.values().forEach(d -> addresses.add(d.action().address()));
    return plannedAddresses.stream().filter(addresses::contains).toList();
  }

  /** The run's credential the dispatches carried (opened), or null; a secret: never log it. */
  static String runCredential(List<ActionDispatched> opened) {
    String credential = null;
    for (ActionDispatched a : opened) {
      if (a.runCredential() != null) {
        credential = a.runCredential(); // the latest: a retried opening replaces the previous one
      }
    }
    return credential;
  }

  /**
   * The message of the carried-on run's {@code applying} transition: what had finished and what is
   * still awaited.
   */
  String applyingMessage() {
    return RunMessages.carriedApplying(
        dispatched.size(), finishedWithOutcomes(), unfinishedAddresses());
  }

  /** The message of a carried-on run that ends because a dispatched action did not succeed. */
  String failedMessage() {
    return RunMessages.carriedFailed(notSucceeded(), finishedWithOutcomes(), Map.of());
  }

  /**
   * The message of a carried-on run whose remaining plan would dispatch an address again; it ends
   * {@code errored}.
   */
  static String wouldRepeatMessage(List<String> addresses) {
    return RunMessages.wouldRepeat(addresses);
  }

  /**
   * The message of a carried-on run whose plan was approved (an approval, a saved plan or the CLI's
   * bound serial) and that still has changes to make once carried on: the approval named a whole
   * plan, and what remains cannot be shown to be part of it, so it is not applied.
   */
  static String approvalNotProvableMessage(String remainingSummary, String why) {
    return RunMessages.restNotApproved(remainingSummary, why);
  }
}
