package dev.stagecraft.planner.plan;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A plan is a value: the ordered actions for every instance of the configuration and the state,
 * plus the state it was computed against. Approving a plan means applying exactly these actions;
 * when the workspace's serial moved since {@link #priorSerial()}, the plan is stale.
 *
 * @param priorState the v4 state document the plan was computed against, with sensitive values
 *     redacted (null when planned against a state built in code)
 * @param outputChanges the root module outputs, by name order
 * @param checks the results of the configuration's {@code check} blocks at plan time, in
 *     declaration order (empty without checks; not part of the {@link #digest}: a check changes
 *     nothing)
 */
public record Plan(
    String workspace,
    long priorSerial,
    String priorLineage,
    boolean destroy,
    List<PlannedAction> actions,
    Map<String, Object> priorState,
    List<OutputChange> outputChanges,
    List<CheckResult> checks) {

  public Plan {
    actions = List.copyOf(actions);
    outputChanges = outputChanges == null ? List.of() : List.copyOf(outputChanges);
    checks = checks == null ? List.of() : List.copyOf(checks);
  }

  /** A plan without check results. */
  public Plan(
      String workspace,
      long priorSerial,
      String priorLineage,
      boolean destroy,
      List<PlannedAction> actions,
      Map<String, Object> priorState,
      List<OutputChange> outputChanges) {
    this(
        workspace,
        priorSerial,
        priorLineage,
        destroy,
        actions,
        priorState,
        outputChanges,
        List.of());
  }

  /** A plan without prior state document or outputs. */
  public Plan(
      String workspace,
      long priorSerial,
      String priorLineage,
      boolean destroy,
      List<PlannedAction> actions) {
    this(workspace, priorSerial, priorLineage, destroy, actions, null, List.of());
  }

  public Optional<OutputChange> output(String name) {
    return outputChanges.stream().filter(o -> o.name().equals(name)).findFirst();
  }

  public boolean hasChanges() {
    return actions.stream().anyMatch(PlannedAction::isChange);
  }

  /** True when a root output is added, changed or removed (docs/adr/0064). */
  public boolean hasOutputChanges() {
    return outputChanges.stream().anyMatch(OutputChange::isChange);
  }

  /**
   * True when applying the plan changes the state: an instance changes, or only root outputs do —
   * Terraform applies (and asks approval for) output-only changes too (docs/adr/0064).
   */
  public boolean applies() {
    return hasChanges() || hasOutputChanges();
  }

  public List<PlannedAction> changes() {
    return actions.stream().filter(PlannedAction::isChange).toList();
  }

  public Optional<PlannedAction> action(String address) {
    return actions.stream().filter(a -> a.address().equals(address)).findFirst();
  }

  public int toAdd() {
    return (int) actions.stream().filter(a -> a.action().creates()).count();
  }

  public int toChange() {
    return (int) actions.stream().filter(a -> a.action() == ActionType.UPDATE).count();
  }

  public int toDestroy() {
    return (int) actions.stream().filter(a -> a.action().deletes()).count();
  }

  public int toForget() {
    return (int) actions.stream().filter(a -> a.action().forgets()).count();
  }

  /**
   * SHA-256 of what the plan does: its JSON representation without the copy of the prior state (the
   * state is identified by serial and lineage instead). An empty workspace has no lineage yet, so
   * for serial 0 the lineage is left out too: two plans of the same changes against the same empty
   * workspace must have the same digest, or a saved plan could never be applied.
   */
  public String digest() {
    Map<String, Object> document = new LinkedHashMap<>(PlanJson.toMap(this));
    document.remove("prior_state");
    document.remove("checks");
    if (priorSerial == 0 && document.get("stagecraft") instanceof Map<?, ?> ours) {
      Map<Object, Object> copy = new LinkedHashMap<>(ours);
      copy.remove("prior_lineage");
      document.put("stagecraft", copy);
    }
    return sha256(PlanJson.canonical(document));
  }

  /**
   * What each change does, by instance address: its JSON document ({@link PlanJson#changeDocument}:
   * its {@code resource_changes} entry with the lifecycle flags and dependencies that go to state,
   * without its order constraints), rendered canonically. A planner restarted during an approved
   * apply checks with {@link PlanJson#covers} that what remains is part of the approved plan
   * (docs/adr/0051). No-op instances are left out. Sensitive attributes are named, never written
   * (as in {@link PlanJson}).
   */
  public Map<String, String> changeDocuments() {
    Map<String, String> out = new TreeMap<>();
    for (PlannedAction a : changes()) {
      out.put(a.address(), PlanJson.canonical(PlanJson.changeDocument(a)));
    }
    return out;
  }

  private static String sha256(String text) {
    try {
      byte[] hash =
          MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(hash);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
