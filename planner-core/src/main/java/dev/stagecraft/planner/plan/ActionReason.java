package dev.stagecraft.planner.plan;

/**
 * Why an action was chosen, named as Terraform names them in {@code action_reason}. Stagecraft adds
 * none of its own: every reason here is Terraform's (see docs/planning.md for when each is used,
 * including for forgets, which carry the reason of the delete they stand in for, as in Terraform).
 */
public enum ActionReason {
  REPLACE_BECAUSE_TAINTED("replace_because_tainted"),
  REPLACE_BY_REQUEST("replace_by_request"),
  REPLACE_BECAUSE_CANNOT_UPDATE("replace_because_cannot_update"),
  REPLACE_BY_TRIGGERS("replace_by_triggers"),
  DELETE_BECAUSE_NO_RESOURCE_CONFIG("delete_because_no_resource_config"),
  DELETE_BECAUSE_NO_MODULE("delete_because_no_module"),
  DELETE_BECAUSE_COUNT_INDEX("delete_because_count_index"),
  DELETE_BECAUSE_EACH_KEY("delete_because_each_key"),
  DELETE_BECAUSE_WRONG_REPETITION("delete_because_wrong_repetition"),
  DELETE_BECAUSE_DESTROY_REQUESTED("delete_because_destroy_requested");

  private final String terraformName;

  ActionReason(String terraformName) {
    this.terraformName = terraformName;
  }

  public String terraformName() {
    return terraformName;
  }

  /** The text after the address in the human plan ({@code # a.b must be replaced}). */
  public String humanText(String address) {
    String key = address.substring(InstanceKey.resourceOf(address).length());
    return switch (this) {
      case REPLACE_BECAUSE_TAINTED -> "is tainted, so must be replaced";
      case REPLACE_BY_REQUEST -> "will be replaced, as requested";
      case REPLACE_BECAUSE_CANNOT_UPDATE -> "must be replaced";
      case REPLACE_BY_TRIGGERS -> "will be replaced due to changes in replace_triggered_by";
      case DELETE_BECAUSE_NO_RESOURCE_CONFIG ->
          "will be destroyed\n  # (because "
              + InstanceKey.resourceOf(address)
              + " is not in configuration)";
      case DELETE_BECAUSE_NO_MODULE ->
          "will be destroyed\n  # (because "
              + ModuleAddresses.moduleOf(address)
              + " is not in configuration)";
      case DELETE_BECAUSE_COUNT_INDEX ->
          "will be destroyed\n  # (because index " + key + " is out of range for count)";
      case DELETE_BECAUSE_EACH_KEY ->
          "will be destroyed\n  # (because key " + key + " is not in for_each map)";
      case DELETE_BECAUSE_WRONG_REPETITION ->
          "will be destroyed\n  # (because "
              + (key.isEmpty()
                  ? "resource uses count or for_each"
                  : key.startsWith("[\"")
                      ? "resource does not use for_each"
                      : "resource does not use count")
              + ")";
      case DELETE_BECAUSE_DESTROY_REQUESTED -> "will be destroyed";
    };
  }

  /** The parenthesised explanation of a delete reason, for forget lines. */
  String because(String address) {
    String text = humanText(address);
    int open = text.indexOf("# (");
    return open < 0 ? "" : text.substring(open + 2);
  }
}
