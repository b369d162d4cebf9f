package dev.stagecraft.schemas.run;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * A decision on a run that waits for approval, sent by a chat-ops bot on {@code
 * stagecraft.run-requests} or to the planner's webhook, signed like a {@link RunRequested}
 * (docs/chatops.md, ADR 0054). Field names are snake_case on the wire, as bots write them.
 *
 * @param runId the run decided on (of the envelope's tenant)
 * @param decision {@link #APPROVE} or {@link #DISCARD}
 * @param planDigest the digest of the plan approved (the {@code planDigest} of the run's {@code
 *     planned} event); required to approve: a run that planned anything else is not applied
 * @param requestedBy who decided (a chat user), recorded as the approver; not an identity check
 * @param comment free text, logged with the decision
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RunDecisionRequested(
    @JsonProperty("run_id") String runId,
    String decision,
    @JsonProperty("plan_digest") String planDigest,
    @JsonProperty("requested_by") String requestedBy,
    String comment)
    implements TriggerEvent {
  public static final String APPROVE = "approve";
  public static final String DISCARD = "discard";
}
