package dev.stagecraft.planner.service.adapter.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.planner.service.adapter.db.RunStore;
import dev.stagecraft.planner.service.run.approval.ApprovalOutcome;
import dev.stagecraft.planner.service.trigger.RunTrigger;
import dev.stagecraft.planner.service.trigger.RunTrigger.Refusal;
import dev.stagecraft.planner.service.trigger.RunTrigger.Refused;
import dev.stagecraft.planner.service.trigger.TriggerSignature;
import dev.stagecraft.schemas.EventCodec;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A chat-ops decision on a run another planner instance drives (docs/adr/0054): the same signed
 * event is sent on to that instance's webhook, which checks the signature and its age again (no
 * trust between instances), and its answer becomes the decision's outcome. Approvals made here are
 * written to the run's record, as the REST approval's are.
 */
@Singleton
public final class ForwardedDecisions implements RunTrigger.Decisions {
  private static final Logger LOG = LoggerFactory.getLogger(ForwardedDecisions.class);
  static final String WEBHOOK = "/api/v1/hooks/run-requests";

  private final RunStore runs;
  private final RunForwarding forwarding;

  @Inject
  ForwardedDecisions(RunStore runs, RunForwarding forwarding) {
    this.runs = runs;
    this.forwarding = forwarding;
  }

  @Override
  public void approved(String tenant, String runId, String by) {
    try {
      runs.approved(tenant, runId, by);
    } catch (SQLException e) {
      LOG.warn(
          "run {} was approved by {}, but its record could not say so: {}",
          runId,
          by,
          e.toString());
    }
  }

  @Override
  public RunTrigger.Outcome elsewhere(RunTrigger.Decision d) {
    try {
      Optional<RunStore.RunRecord> recorded = runs.find(d.tenant(), d.runId());
      if (recorded.isEmpty()) {
        return noSuchRun(d);
      }
      if (recorded.get().terminal()) {
        return new Refused(Refusal.CONFLICT, ApprovalOutcome.NOT_AWAITING.refusal(d.runId(), null));
      }
      Map<String, String> headers = new LinkedHashMap<>();
      headers.put(TriggerSignature.TIMESTAMP_HEADER, String.valueOf(d.timestamp()));
      headers.put(TriggerSignature.SIGNATURE_HEADER, String.valueOf(d.signature()));
      return forwarding
          .send(
              d.tenant(),
              d.runId(),
              recorded.get().status(),
              d.decision(),
              WEBHOOK,
              headers,
              new String(d.body(), StandardCharsets.UTF_8),
              d.forwardedBy())
          .map(sent -> outcome(d, sent))
          .orElseGet(() -> noSuchRun(d));
    } catch (SQLException e) {
      return new Refused(
          Refusal.UNAVAILABLE,
          "The planner's records cannot be read now ("
              + e.getMessage()
              + "); send the decision again in a moment.");
    }
  }

  private static Refused noSuchRun(RunTrigger.Decision d) {
    return new Refused(
        Refusal.NOT_FOUND, "Tenant " + d.tenant() + " has no run " + d.runId() + ".");
  }

  /** The outcome the driver's answer (or why it could not be asked) means. */
  static RunTrigger.Outcome outcome(RunTrigger.Decision d, RunForwarding.Sent sent) {
    return switch (sent) {
      case RunForwarding.NotSent n ->
          new Refused(n.status() == 503 ? Refusal.UNAVAILABLE : Refusal.CONFLICT, n.detail());
      case RunForwarding.Relayed r -> relayed(d, r);
    };
  }

  private static RunTrigger.Outcome relayed(RunTrigger.Decision d, RunForwarding.Relayed r) {
    JsonNode body;
    try {
      body = EventCodec.mapper().readTree(r.body() == null || r.body().isBlank() ? "{}" : r.body());
    } catch (IOException e) {
      body = EventCodec.mapper().createObjectNode();
    }
    String detail = body.path("detail").asText(body.path("title").asText(""));
    String fromDriver = " (answered by planner instance " + r.answeredBy() + ")";
    return switch (r.status()) {
      case 202 ->
          new RunTrigger.Decided(
              d.tenant(),
              d.eventId(),
              d.runId(),
              d.decision(),
              body.path("status").isTextual() ? body.get("status").asText() : null,
              null);
      case 400 -> new Refused(Refusal.MALFORMED, detail + fromDriver);
      case 401 -> new Refused(Refusal.UNAUTHORIZED, detail + fromDriver);
      case 404 -> new Refused(Refusal.NOT_FOUND, detail + fromDriver);
      case 409 -> new Refused(Refusal.CONFLICT, detail + fromDriver);
      case 503 -> new Refused(Refusal.UNAVAILABLE, detail + fromDriver);
      default ->
          new Refused(
              Refusal.UNAVAILABLE,
              "Planner instance "
                  + r.answeredBy()
                  + ", which drives run "
                  + d.runId()
                  + ", answered HTTP "
                  + r.status()
                  + "; send the decision again. If this persists, check that"
                  + " STAGECRAFT_PLANNER_ADVERTISED_URL points at the planner itself.");
    };
  }
}
