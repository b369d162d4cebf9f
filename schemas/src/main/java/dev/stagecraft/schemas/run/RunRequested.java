package dev.stagecraft.schemas.run;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;

/**
 * A request to start a run, sent by a bot or CI on {@code stagecraft.run-requests} or to the
 * planner's webhook (docs/chatops.md). The envelope's {@code tenant} names the tenant, but is
 * trusted only once the trigger's HMAC signature verifies with that tenant's trigger secret (ADR
 * 0016). Field names are snake_case on the wire, as bots write them.
 *
 * @param workspace the workspace to run in
 * @param configuration what to run: inline files or an uploaded configuration version's id; null:
 *     the workspace's own configuration (its git source, or the version last uploaded to it)
 * @param variables input variables ({@code -var}), may be null
 * @param message free text shown with the run (e.g. the chat message that asked for it)
 * @param requestedBy who asked (a chat user), recorded with the run; not an identity check
 * @param idempotencyKey the same (tenant, key) twice makes one run: the second refers to the first
 * @param ref without {@code configuration}: the branch or tag of the workspace's repository to run
 *     (null: the one it follows)
 * @param commit without {@code configuration}: the commit of the workspace's repository to run
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RunRequested(
    String workspace,
    Configuration configuration,
    Map<String, String> variables,
    String message,
    @JsonProperty("requested_by") String requestedBy,
    @JsonProperty("idempotency_key") String idempotencyKey,
    String ref,
    String commit)
    implements TriggerEvent {

  /** A request that names its configuration (no ref or commit). */
  public RunRequested(
      String workspace,
      Configuration configuration,
      Map<String, String> variables,
      String message,
      String requestedBy,
      String idempotencyKey) {
    this(workspace, configuration, variables, message, requestedBy, idempotencyKey, null, null);
  }

  /**
   * The configuration of a run: exactly one of {@code files} (file name → content, as {@code POST
   * /api/v1/runs} takes them) or {@code version_id} (an uploaded configuration version).
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Configuration(
      Map<String, String> files, @JsonProperty("version_id") String versionId) {}
}
