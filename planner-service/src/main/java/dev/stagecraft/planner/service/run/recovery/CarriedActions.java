package dev.stagecraft.planner.service.run.recovery;

import dev.stagecraft.planner.plan.PlanJson;
import dev.stagecraft.planner.service.run.RunRequest;
import dev.stagecraft.planner.service.run.lifecycle.CarriedAction;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand;
import dev.stagecraft.planner.service.run.lifecycle.RunCredential;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.action.DispatchSealing;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import dev.stagecraft.schemas.seal.UnsealException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * What a run carried on after its planner instance restarted (docs/adr/0035) keeps beside its
 * lifecycle state ({@code RunState#carried}, which tracks the outcomes): the dispatches it made
 * before the restart, as read from {@code stagecraft.actions} (what its interrupted reports
 * repeat), and, for a run that applied a plan approved as a whole, that plan's changes, which the
 * rest planned after the restart must be part of ({@link #unapprovedRest}, docs/adr/0051).
 *
 * <p>Plain Java, immutable.
 */
public final class CarriedActions {
  /** Dispatched actions by action id, in dispatch order. */
  private final Map<String, DispatchedActions.Dispatched> dispatched = new LinkedHashMap<>();

  private final boolean approvalBound;

  /** What each change of the approved plan does, by address (ADR 0051); null when not recorded. */
  private final Map<String, String> approvedChanges;

  /** The recorded digest of the approved plan, or null. */
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
  public CarriedActions(
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
  }

  /**
   * What carrying a run on starts with: the run's {@link CarriedActions} and its {@code CarryOn}
   * command — the actions it dispatched and the credential they carried (the latest, opened).
   */
  public record Start(CarriedActions carried, RunCommand.CarryOn command) {}

  /**
   * Carries on {@code resumable} from {@code dispatched} ({@code RunCoordinator#carryOn}).
   *
   * @throws IllegalStateException when a dispatch cannot be opened with the keyring
   */
  public static Start carryOn(
      ResumableRun resumable,
      List<DispatchedActions.Dispatched> dispatched,
      String message,
      SecretsKeyring secrets) {
    RunRequest request = resumable.request();
    boolean approvalBound =
        resumable.awaitingApproval()
            || request.expectedSerial() != null
            || request.expectedDigest() != null;
    CarriedActions carried =
        new CarriedActions(
            dispatched,
            approvalBound,
            resumable.approvedChanges(),
            approvalBound ? resumable.planDigest() : null);
    List<ActionDispatched> opened = new ArrayList<>();
    List<CarriedAction> actions = new ArrayList<>();
    for (DispatchedActions.Dispatched d : dispatched) {
      ActionDispatched a = d.action();
      try {
        opened.add(DispatchSealing.open(a, secrets, request.tenant(), request.workspace()));
      } catch (UnsealException e) {
        throw new IllegalStateException(
            "the dispatch of " + a.address() + " could not be opened: " + e.getMessage(), e);
      }
      actions.add(
          new CarriedAction(
              a.actionId(),
              a.address(),
              a.action(),
              d.dispatchedAt(),
              d.taken(),
              Boolean.TRUE.equals(a.skipDestroy())));
    }
    String credential = runCredential(opened);
    return new Start(
        carried,
        new RunCommand.CarryOn(
            resumable.lastSequence(),
            message,
            actions,
            carried.approvedPlanDigest(),
            credential == null ? null : new RunCredential(credential)));
  }

  /** See {@link #CarriedActions}. */
  public boolean approvalBound() {
    return approvalBound;
  }

  /** What each action carried when it was dispatched, in dispatch order. */
  public List<ActionDispatched> dispatches() {
    return dispatched.values().stream().map(DispatchedActions.Dispatched::action).toList();
  }

  /** See {@link #CarriedActions}. */
  public Map<String, String> approvedChanges() {
    return approvedChanges;
  }

  /** See {@link #CarriedActions}. */
  public String approvedPlanDigest() {
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
  public Optional<String> unapprovedRest(Map<String, String> restChanges) {
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

  /** The run's credential the dispatches carried (opened), or null; a secret: never log it. */
  public static String runCredential(List<ActionDispatched> opened) {
    String credential = null;
    for (ActionDispatched a : opened) {
      if (a.runCredential() != null) {
        credential = a.runCredential(); // the latest: a retried opening replaces the previous one
      }
    }
    return credential;
  }
}
