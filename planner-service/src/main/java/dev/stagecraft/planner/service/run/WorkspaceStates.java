package dev.stagecraft.planner.service.run;

/** Port to state-service. */
public interface WorkspaceStates {

  /** The current state as Terraform v4 JSON (serial 0 and no resources when empty). */
  String read(String tenant, String workspace);

  /**
   * Announces a newly issued fencing token so the state service refuses older writers from now on.
   *
   * @throws IllegalStateException when the state service already saw a newer token
   */
  void registerFencingToken(String tenant, String workspace, long token);
}
