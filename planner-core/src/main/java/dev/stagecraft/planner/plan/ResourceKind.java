package dev.stagecraft.planner.plan;

import dev.stagecraft.language.eval.Value;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The attribute semantics of each supported resource type (design §3): which arguments exist, which
 * force replacement, which update in place. Every resource also has a computed {@code id}.
 */
public enum ResourceKind {
  STATEFUL_PROVISIONING(
      "stateful_provisioning",
      List.of("state_key", "triggers", "tags"),
      Set.of("state_key"),
      Set.of("state_key", "triggers"),
      Set.of("tags")),
  NULL_RESOURCE("null_resource", List.of("triggers"), Set.of(), Set.of("triggers"), Set.of()),
  TERRAFORM_DATA(
      "terraform_data",
      List.of("input", "triggers_replace"),
      Set.of(),
      Set.of("triggers_replace"),
      Set.of("input"));

  private final String type;
  private final List<String> arguments;
  private final Set<String> required;
  private final Set<String> replacing;
  private final Set<String> updatable;

  ResourceKind(
      String type,
      List<String> arguments,
      Set<String> required,
      Set<String> replacing,
      Set<String> updatable) {
    this.type = type;
    this.arguments = arguments;
    this.required = required;
    this.replacing = replacing;
    this.updatable = updatable;
  }

  public static ResourceKind of(String type) {
    for (ResourceKind k : values()) {
      if (k.type.equals(type)) {
        return k;
      }
    }
    throw new IllegalArgumentException("unsupported resource type " + type);
  }

  public String type() {
    return type;
  }

  public List<String> arguments() {
    return arguments;
  }

  public Set<String> required() {
    return required;
  }

  public Set<String> replacingAttributes() {
    return replacing;
  }

  public Set<String> updatableAttributes() {
    return updatable;
  }

  /** {@code terraform_data} mirrors {@code input} to {@code output}. */
  void mirrorOnUpdate(Map<String, Object> after) {
    if (this == TERRAFORM_DATA && after.containsKey("input")) {
      after.put("output", after.get("input"));
    }
  }

  /** The value other resources see when they reference this one during planning. */
  Value plannedObject(PlannedAction action, Map<String, Value> evaluated) {
    Map<String, Value> attributes = new LinkedHashMap<>(evaluated);
    attributes.put(
        "id",
        action.afterUnknown().contains("id") || action.after() == null
            ? Value.unknown()
            : Value.of(action.after().get("id")));
    if (this == TERRAFORM_DATA) {
      Value input = attributes.getOrDefault("input", Value.NULL);
      attributes.put(
          "output",
          action.afterUnknown().contains("output")
              // marked as the input itself is: a secret inside it is not yet in the output
              ? Value.unknown().markLike(input)
              : input);
    }
    return Value.object(attributes);
  }
}
