package dev.stagecraft.planner.plan;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the plan does to one resource instance.
 *
 * @param address the instance address: {@code type.name}, {@code type.name[0]} or {@code
 *     type.name["key"]}
 * @param before attributes in prior state ({@code null} when creating)
 * @param after planned attributes ({@code null} when deleting or forgetting); attributes named in
 *     {@code afterUnknown} are not known until apply: absent from {@code after} when wholly
 *     unknown, their known parts only when known in part (see {@code unknownParts})
 * @param replacePaths attributes whose change forces replacement
 * @param waitFor addresses whose actions must be recorded before this one may start
 * @param dependencies resource addresses this instance depends on, recorded in state
 * @param createBeforeDestroy the effective {@code create_before_destroy} (configured, or propagated
 *     from a dependent that has it; for instances no longer configured, the value in state): goes
 *     to state with the instance ({@code ActionDispatched.createBeforeDestroy})
 * @param skipDestroy {@code lifecycle { destroy = false }} in effect: goes to state with the
 *     instance ({@code ActionDispatched.skipDestroy}) so that a later removal forgets it
 * @param sensitivePaths top-level attributes whose value is (or contains) a sensitive value: never
 *     rendered in clear in the plan text or JSON
 * @param unknownParts for each attribute of {@code afterUnknown} known in part ({@code triggers = {
 *     always = timestamp(), x = "a" }}), its JSON {@code after_unknown}: the same structure with
 *     {@code true} at each unknown value ({@code {"always": true}}); a wholly unknown attribute has
 *     no entry (its {@code after_unknown} is {@code true})
 * @param previousAddress the address the instance had in state before a {@code moved} block (or
 *     Terraform's implied move of {@code type.name} ↔ {@code type.name[0]}) moved it here, or null;
 *     the move is recorded in state with the action ({@code ActionDispatched.previousAddress})
 */
public record PlannedAction(
    String address,
    String type,
    String name,
    ActionType action,
    ActionReason reason,
    Map<String, Object> before,
    Map<String, Object> after,
    Set<String> afterUnknown,
    Set<String> replacePaths,
    List<String> waitFor,
    List<String> dependencies,
    boolean createBeforeDestroy,
    boolean skipDestroy,
    Set<String> sensitivePaths,
    Map<String, Object> unknownParts,
    String previousAddress) {

  public PlannedAction {
    unknownParts = unknownParts == null ? Map.of() : Map.copyOf(unknownParts);
    afterUnknown = afterUnknown == null ? Set.of() : Set.copyOf(afterUnknown);
    replacePaths = replacePaths == null ? Set.of() : Set.copyOf(replacePaths);
    waitFor = waitFor == null ? List.of() : List.copyOf(waitFor);
    dependencies = dependencies == null ? List.of() : List.copyOf(dependencies);
    sensitivePaths = sensitivePaths == null ? Set.of() : Set.copyOf(sensitivePaths);
  }

  /** Not moved. */
  public PlannedAction(
      String address,
      String type,
      String name,
      ActionType action,
      ActionReason reason,
      Map<String, Object> before,
      Map<String, Object> after,
      Set<String> afterUnknown,
      Set<String> replacePaths,
      List<String> waitFor,
      List<String> dependencies,
      boolean createBeforeDestroy,
      boolean skipDestroy,
      Set<String> sensitivePaths,
      Map<String, Object> unknownParts) {
    this(
        address,
        type,
        name,
        action,
        reason,
        before,
        after,
        afterUnknown,
        replacePaths,
        waitFor,
        dependencies,
        createBeforeDestroy,
        skipDestroy,
        sensitivePaths,
        unknownParts,
        null);
  }

  /** Every unknown attribute wholly unknown; not moved. */
  public PlannedAction(
      String address,
      String type,
      String name,
      ActionType action,
      ActionReason reason,
      Map<String, Object> before,
      Map<String, Object> after,
      Set<String> afterUnknown,
      Set<String> replacePaths,
      List<String> waitFor,
      List<String> dependencies,
      boolean createBeforeDestroy,
      boolean skipDestroy,
      Set<String> sensitivePaths) {
    this(
        address,
        type,
        name,
        action,
        reason,
        before,
        after,
        afterUnknown,
        replacePaths,
        waitFor,
        dependencies,
        createBeforeDestroy,
        skipDestroy,
        sensitivePaths,
        Map.of(),
        null);
  }

  /** Without lifecycle flags or sensitive attributes. */
  public PlannedAction(
      String address,
      String type,
      String name,
      ActionType action,
      ActionReason reason,
      Map<String, Object> before,
      Map<String, Object> after,
      Set<String> afterUnknown,
      Set<String> replacePaths,
      List<String> waitFor,
      List<String> dependencies) {
    this(
        address,
        type,
        name,
        action,
        reason,
        before,
        after,
        afterUnknown,
        replacePaths,
        waitFor,
        dependencies,
        false,
        false,
        Set.of());
  }

  /** An action to apply: any but a no-op, and a no-op that moves the instance in state. */
  public boolean isChange() {
    return action != ActionType.NO_OP || previousAddress != null;
  }

  /**
   * The name an executor receives in {@code ActionDispatched.action}: the action's, or {@code move}
   * for a no-op that only moves the instance in state.
   */
  public String wireAction() {
    return action == ActionType.NO_OP && previousAddress != null ? "move" : action.wireName();
  }

  /** This action, for an instance that the state holds at {@code previous}. */
  public PlannedAction withPreviousAddress(String previous) {
    return new PlannedAction(
        address,
        type,
        name,
        action,
        reason,
        before,
        after,
        afterUnknown,
        replacePaths,
        waitFor,
        dependencies,
        createBeforeDestroy,
        skipDestroy,
        sensitivePaths,
        unknownParts,
        previous);
  }

  /** {@code type.name} without the instance key. */
  public String resourceAddress() {
    return type + "." + name;
  }

  /** The instance key: null, an Integer ({@code count}) or a String ({@code for_each}). */
  public Object index() {
    return InstanceKey.parse(address).key();
  }

  public PlannedAction withWaitFor(List<String> newWaitFor) {
    return new PlannedAction(
        address,
        type,
        name,
        action,
        reason,
        before,
        after,
        afterUnknown,
        replacePaths,
        newWaitFor,
        dependencies,
        createBeforeDestroy,
        skipDestroy,
        sensitivePaths,
        unknownParts,
        previousAddress);
  }
}
