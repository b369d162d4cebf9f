package dev.stagecraft.planner.service.run;

import dev.stagecraft.schemas.EventCodec.MalformedEventException;
import dev.stagecraft.schemas.envelope.EventEnvelope;

/**
 * Checks that an event about a run comes as that run's: the envelope's tenant and workspace are the
 * run's, and the run and action ids it carries are the run's. Only executors may write action
 * events and only the state service state events (Kafka ACLs, ADR 0058), but a run is never driven
 * by an event another tenant's workspace could have caused: a mismatch is refused, and the consumer
 * dead-letters it with the message as the reason.
 */
final class EventOrigin {
  private EventOrigin() {}

  /**
   * @param dataRunId the run id the event's data names, or null
   * @param actionId the action id the event's data names, or null
   * @throws MalformedEventException naming what does not match
   */
  static void requireRun(
      EventEnvelope envelope, RunRequest run, String runId, String dataRunId, String actionId) {
    String problem = null;
    if (!run.tenant().equals(envelope.tenant()) || !run.workspace().equals(envelope.workspace())) {
      problem =
          "came as tenant "
              + envelope.tenant()
              + ", workspace "
              + envelope.workspace()
              + ", but run "
              + runId
              + " belongs to tenant "
              + run.tenant()
              + ", workspace "
              + run.workspace();
    } else if (envelope.runid() != null && !envelope.runid().equals(runId)
        || dataRunId != null && !dataRunId.equals(runId)) {
      problem = "names run " + dataRunId + " in its data and " + envelope.runid() + " outside";
    } else if (actionId != null && !actionId.startsWith(runId + "/")) {
      problem = "names action " + actionId + ", which is not an action of run " + runId;
    }
    if (problem != null) {
      throw new MalformedEventException(
          envelope.type() + " " + envelope.id() + " " + problem + "; ignored");
    }
  }
}
