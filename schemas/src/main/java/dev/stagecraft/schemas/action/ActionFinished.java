package dev.stagecraft.schemas.action;

import java.util.List;
import java.util.Map;

/**
 * An executor finished an action. Carries what the state service needs to record the outcome
 * without reading the dispatch event again.
 *
 * @param outcome {@code succeeded} or {@code failed}
 * @param exitCode exit code of the failing step, if it was a command
 * @param error a redacted, human-readable reason when failed
 * @param createBeforeDestroy copied from the dispatch, recorded in state
 * @param skipDestroy copied from the dispatch, recorded in state
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
    Boolean skipDestroy) {

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

  public ActionFinished {
    attributes = attributes == null ? Map.of() : attributes;
    dependencies = dependencies == null ? List.of() : List.copyOf(dependencies);
  }

  public boolean succeeded() {
    return SUCCEEDED.equals(outcome);
  }
}
