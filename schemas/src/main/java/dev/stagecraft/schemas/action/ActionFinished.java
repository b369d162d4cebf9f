package dev.stagecraft.schemas.action;

import java.util.List;
import java.util.Map;

/**
 * An executor finished an action. Carries what the state service needs to record the outcome
 * without reading the dispatch event again.
 *
 * @param outcome {@code succeeded}, {@code failed}, {@code interrupted} (published by the planner
 *     when the executor stopped reporting) or {@code canceled}; all but {@code succeeded} are
 *     recorded like a failure
 * @param exitCode exit code of the failing step, if it was a command
 * @param error a redacted, human-readable reason when failed
 * @param createBeforeDestroy copied from the dispatch, recorded in state
 * @param skipDestroy copied from the dispatch, recorded in state
 * @param learnedHostKeys host keys accepted on first use during this action (no key was pinned or
 *     known for their host:port); the state service records them for the workspace. Empty when
 *     none; absent in events of executors older than this field.
 * @param runProof proof that the reporter holds the run's state credential ({@link
 *     RunCredentialProof}; not the credential itself): the state service records the outcome only
 *     while the credential is active for the workspace, else it is {@code rejected}
 * @param previousAddress copied from the dispatch: where the state holds the instance before a
 *     move; the state service moves it to {@code address} with the outcome (null: not moved)
 */
public record ActionFinished(
    String runId,
    String actionId,
    String address,
    String resourceType,
    String action,
    String outcome,
    Integer exitCode,
    String error,
    Map<String, Object> attributes,
    List<String> dependencies,
    long fencingToken,
    String executorId,
    Boolean createBeforeDestroy,
    Boolean skipDestroy,
    List<LearnedHostKey> learnedHostKeys,
    String runProof,
    String previousAddress)
    implements ActionEvent {

  /** Not moved. */
  public ActionFinished(
      String runId,
      String actionId,
      String address,
      String resourceType,
      String action,
      String outcome,
      Integer exitCode,
      String error,
      Map<String, Object> attributes,
      List<String> dependencies,
      long fencingToken,
      String executorId,
      Boolean createBeforeDestroy,
      Boolean skipDestroy,
      List<LearnedHostKey> learnedHostKeys,
      String runProof) {
    this(
        runId,
        actionId,
        address,
        resourceType,
        action,
        outcome,
        exitCode,
        error,
        attributes,
        dependencies,
        fencingToken,
        executorId,
        createBeforeDestroy,
        skipDestroy,
        learnedHostKeys,
        runProof,
        null);
  }

  /** This result for an instance the state holds at {@code previous} (null: not moved). */
  public ActionFinished withPreviousAddress(String previous) {
    return new ActionFinished(
        runId,
        actionId,
        address,
        resourceType,
        action,
        outcome,
        exitCode,
        error,
        attributes,
        dependencies,
        fencingToken,
        executorId,
        createBeforeDestroy,
        skipDestroy,
        learnedHostKeys,
        runProof,
        previous);
  }

  /** Without a run proof. */
  public ActionFinished(
      String runId,
      String actionId,
      String address,
      String resourceType,
      String action,
      String outcome,
      Integer exitCode,
      String error,
      Map<String, Object> attributes,
      List<String> dependencies,
      long fencingToken,
      String executorId,
      Boolean createBeforeDestroy,
      Boolean skipDestroy,
      List<LearnedHostKey> learnedHostKeys) {
    this(
        runId,
        actionId,
        address,
        resourceType,
        action,
        outcome,
        exitCode,
        error,
        attributes,
        dependencies,
        fencingToken,
        executorId,
        createBeforeDestroy,
        skipDestroy,
        learnedHostKeys,
        null);
  }

  /**
   * This result with the proof computed from the run's state credential (unchanged when {@code
   * runCredential} is null: the dispatch carried none).
   */
  public ActionFinished provenWith(String runCredential) {
    if (runCredential == null) {
      return this;
    }
    return new ActionFinished(
        runId,
        actionId,
        address,
        resourceType,
        action,
        outcome,
        exitCode,
        error,
        attributes,
        dependencies,
        fencingToken,
        executorId,
        createBeforeDestroy,
        skipDestroy,
        learnedHostKeys,
        RunCredentialProof.prove(runCredential, runId, actionId, outcome),
        previousAddress);
  }

  /** Without learned host keys. */
  public ActionFinished(
      String runId,
      String actionId,
      String address,
      String resourceType,
      String action,
      String outcome,
      Integer exitCode,
      String error,
      Map<String, Object> attributes,
      List<String> dependencies,
      long fencingToken,
      String executorId,
      Boolean createBeforeDestroy,
      Boolean skipDestroy) {
    this(
        runId,
        actionId,
        address,
        resourceType,
        action,
        outcome,
        exitCode,
        error,
        attributes,
        dependencies,
        fencingToken,
        executorId,
        createBeforeDestroy,
        skipDestroy,
        List.of());
  }

  /** Without lifecycle flags (both false). */
  public ActionFinished(
      String runId,
      String actionId,
      String address,
      String resourceType,
      String action,
      String outcome,
      Integer exitCode,
      String error,
      Map<String, Object> attributes,
      List<String> dependencies,
      long fencingToken,
      String executorId) {
    this(
        runId,
        actionId,
        address,
        resourceType,
        action,
        outcome,
        exitCode,
        error,
        attributes,
        dependencies,
        fencingToken,
        executorId,
        null,
        null);
  }

  public static final String SUCCEEDED = "succeeded";
  public static final String FAILED = "failed";

  /**
   * The executor stopped reporting while the action ran (no heartbeat for the action lease); the
   * planner published this on its behalf. A step may have partly run; it is not run again.
   */
  public static final String INTERRUPTED = "interrupted";

  /** The run was canceled while the action ran; its running command was stopped. */
  public static final String CANCELED = "canceled";

  public ActionFinished {
    attributes = attributes == null ? Map.of() : attributes;
    dependencies = dependencies == null ? List.of() : List.copyOf(dependencies);
    learnedHostKeys = learnedHostKeys == null ? List.of() : List.copyOf(learnedHostKeys);
  }

  public boolean succeeded() {
    return SUCCEEDED.equals(outcome);
  }
}
