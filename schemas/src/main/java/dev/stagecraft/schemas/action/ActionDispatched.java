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
 *     forget}, or {@code move} (no steps: the instance only moves in state, from {@code
 *     previousAddress})
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
 * @param runCredential the run's one-off state credential (docs/adr/0013): the executor proves with
 *     it ({@link RunCredentialProof}) that its {@code action.finished} belongs to a run that is
 *     still active. A secret: sealed with the provisioners when the planner has a secrets key (then
 *     null here); null from planners older than this field.
 * @param previousAddress where the state holds the instance before a {@code moved} block (or an
 *     implied move) put it at {@code address}: the state service moves it there with the outcome,
 *     whatever the outcome. Null when not moved (and from planners older than this field).
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
    SealedBox sealed,
    String runCredential,
    String previousAddress)
    implements DispatchEvent {

  /** Not moved. */
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
      Boolean skipDestroy,
      SealedBox sealed,
      String runCredential) {
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
        sealed,
        runCredential,
        null);
  }

  /** Without a run credential. */
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
      Boolean skipDestroy,
      SealedBox sealed) {
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
        sealed,
        null);
  }

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
    return withSecrets(provisioners, sensitiveValues, runCredential, sealed);
  }

  /** This dispatch with other provisioners, sensitive values, run credential and sealed box. */
  public ActionDispatched withSecrets(
      List<ProvisionerStep> provisioners,
      List<String> sensitiveValues,
      String runCredential,
      SealedBox sealed) {
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
        sealed,
        runCredential,
        previousAddress);
  }

  /** This dispatch for an instance the state holds at {@code previous} (null: not moved). */
  public ActionDispatched withPreviousAddress(String previous) {
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
        sealed,
        runCredential,
        previous);
  }

  /** This dispatch carrying the run's state credential (in clear until it is sealed). */
  public ActionDispatched withRunCredential(String runCredential) {
    return withSecrets(provisioners, sensitiveValues, runCredential, sealed);
  }

  /** Never prints the run credential (records print every component). */
  @Override
  public String toString() {
    return "ActionDispatched[runId=%s, actionId=%s, address=%s, action=%s, fencingToken=%d, sealed=%s, previousAddress=%s]"
        .formatted(runId, actionId, address, action, fencingToken, sealed != null, previousAddress);
  }

  public ActionDispatched {
    attributes = attributes == null ? Map.of() : attributes;
    dependencies = dependencies == null ? List.of() : List.copyOf(dependencies);
    provisioners = provisioners == null ? List.of() : List.copyOf(provisioners);
    sensitiveValues = sensitiveValues == null ? List.of() : List.copyOf(sensitiveValues);
  }
}
