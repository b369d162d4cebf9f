package dev.stagecraft.planner.plan;

/**
 * Why an action was chosen, named as Terraform names them in {@code action_reason}. Ours (no
 * Terraform equivalent) are documented in docs/planning.md.
 */
public enum ActionReason {
  REPLACE_BECAUSE_TAINTED("replace_because_tainted", "is tainted, so must be replaced"),
  REPLACE_BY_REQUEST("replace_by_request", "will be replaced, as requested"),
  REPLACE_BECAUSE_CANNOT_UPDATE("replace_because_cannot_update", "must be replaced"),
  REPLACE_BY_TRIGGERS(
      "replace_by_triggers", "will be replaced due to changes in replace_triggered_by"),
  DELETE_BECAUSE_NO_RESOURCE_CONFIG(
      "delete_because_no_resource_config",
      "will be destroyed\n  # (because %s is not in configuration)"),
  DELETE_BECAUSE_DESTROY_REQUESTED("delete_because_destroy_requested", "will be destroyed");

  private final String terraformName;
  private final String humanText;

  ActionReason(String terraformName, String humanText) {
    this.terraformName = terraformName;
    this.humanText = humanText;
  }

  public String terraformName() {
    return terraformName;
  }

  /** The text after the address in the human plan ({@code # a.b must be replaced}). */
  public String humanText(String address) {
    return humanText.formatted(address);
  }
}
