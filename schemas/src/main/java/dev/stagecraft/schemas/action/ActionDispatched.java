package dev.stagecraft.schemas.action;

import dev.stagecraft.schemas.seal.SealedBox;
import java.util.List;
import java.util.Map;

/**
 * The planner asks an executor to carry out one planned action. Emitted only after every action
 * this one depends on has been recorded by the state service.
 *
 * <p>Idempotency: {@code actionId} is unique per run and action; an executor that sees an action id
 * it has already started must not run it again.
 *
 * @param action one of {@code create}, {@code update}, {@code replace}, {@code delete}, {@code
 *     forget}
 * @param attributes the instance's attributes after the action (for delete/forget: before)
 * @param dependencies addresses this instance depends on, recorded in state
 * @param fencingToken the workspace lock's fencing token; the state service refuses results whose
 *     token is older than the newest it has seen
 * @param sensitiveValues values to redact from every log line and error of this action
 * @param createBeforeDestroy the instance's effective {@code create_before_destroy}, recorded in
 *     state (null: false)
 * @param skipDestroy {@code lifecycle { destroy = false }}: recorded in state, so that a later
 *     removal forgets the instance instead of destroying it (null: false)
 * @param sealed when the planner has a secrets key: {@code provisioners} and {@code
 *     sensitiveValues} sealed together (AES-256-GCM, bound to tenant, workspace and action id; see
 *     {@link DispatchSealing}), and both clear fields are empty. Null: they travel in clear.
 */
public record ActionDispatched(
    String runId,
    String actionId,
    String address,
    String resourceType,
    String action,
    Map<String, Object> attributes,
    List<String> dependencies,
    List<ProvisionerStep> provisioners,
    long fencingToken,
    List<String> sensitiveValues,
    Boolean createBeforeDestroy,
    Boolean skipDestroy,
    SealedBox sealed) {

  /** Without lifecycle flags (both false). */
  public ActionDispatched(
      String runId,
      String actionId,
      String address,
      String resourceType,
      String action,
      Map<String, Object> attributes,
      List<String> dependencies,
      List<ProvisionerStep> provisioners,
      long fencingToken,
      List<String> sensitiveValues) {
    this(
        runId,
        actionId,
        address,
        resourceType,
        action,
        attributes,
        dependencies,
        provisioners,
        fencingToken,
        sensitiveValues,
        null,
        null,
        null);
  }

  /** Not sealed ({@code sealed} null). */
  public ActionDispatched(
      String runId,
      String actionId,
      String address,
      String resourceType,
      String action,
      Map<String, Object> attributes,
      List<String> dependencies,
      List<ProvisionerStep> provisioners,
      long fencingToken,
      List<String> sensitiveValues,
      Boolean createBeforeDestroy,
      Boolean skipDestroy) {
    this(
        runId,
        actionId,
        address,
        resourceType,
        action,
        attributes,
        dependencies,
        provisioners,
        fencingToken,
        sensitiveValues,
        createBeforeDestroy,
        skipDestroy,
        null);
  }

  /** This dispatch with other provisioners, sensitive values and sealed box. */
  public ActionDispatched withSecrets(
      List<ProvisionerStep> provisioners, List<String> sensitiveValues, SealedBox sealed) {
    return new ActionDispatched(
        runId,
        actionId,
        address,
        resourceType,
        action,
        attributes,
        dependencies,
        provisioners,
        fencingToken,
        sensitiveValues,
        createBeforeDestroy,
        skipDestroy,
        sealed);
  }

  public ActionDispatched {
    attributes = attributes == null ? Map.of() : attributes;
    dependencies = dependencies == null ? List.of() : List.copyOf(dependencies);
    provisioners = provisioners == null ? List.of() : List.copyOf(provisioners);
    sensitiveValues = sensitiveValues == null ? List.of() : List.copyOf(sensitiveValues);
  }
}
