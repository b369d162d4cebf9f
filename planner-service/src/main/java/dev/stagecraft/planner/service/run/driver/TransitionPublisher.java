package dev.stagecraft.planner.service.run.driver;

import dev.stagecraft.planner.service.run.EventOutbox;
import dev.stagecraft.planner.service.run.RunStatus;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.run.RunTransitioned;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands {@code dev.stagecraft.run.transitioned} to the producer at once (not waiting for the
 * broker, docs/adr/0025), keyed by the workspace; a failure to hand it over is logged, not thrown:
 * the run goes on, its records tell its status. Used by the coordinator and by {@link
 * TransitionEffects}, so both publish the same event.
 *
 * <p>Concurrency: thread-safe; events handed over from one thread keep their order.
 */
public final class TransitionPublisher {
  private static final Logger LOG = LoggerFactory.getLogger(TransitionPublisher.class);

  private final EventCodec codec;
  private final EventOutbox outbox;

  public TransitionPublisher(EventCodec codec, EventOutbox outbox) {
    this.codec = codec;
    this.outbox = outbox;
  }

  /**
   * Publishes the run's transition numbered {@code sequence}; for a run waiting for approval with
   * the digest to approve and when the approval expires (a bot following the run-events topic
   * learns what to approve, and until when), else both null.
   */
  public void publish(
      String tenant,
      String workspace,
      String runId,
      long sequence,
      RunStatus status,
      String message,
      String planDigest,
      Instant approvalExpiresAt) {
    RunTransitioned event =
        approvalExpiresAt == null
            ? new RunTransitioned(runId, status.wireName(), message)
            : new RunTransitioned(
                runId, status.wireName(), message, planDigest, approvalExpiresAt.toString());
    EventEnvelope envelope = codec.wrap(tenant, workspace, runId, sequence, runId, event);
    try {
      outbox.send(envelope, envelope.workspaceKey());
    } catch (RuntimeException e) {
      LOG.warn(
          "could not publish {} of run {}: {}", envelope.type(), envelope.runid(), e.toString());
    }
  }
}
