package dev.stagecraft.state.adapter.kafka;

import dev.stagecraft.platform.kafka.EventPublisher;
import dev.stagecraft.platform.kafka.KafkaSettings;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.lock.LockForceUnlocked;
import dev.stagecraft.state.adapter.db.StateStore;
import io.micronaut.context.annotation.Value;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes {@code dev.stagecraft.lock.force-unlocked} on {@code stagecraft.lock-events}, keyed by
 * tenant/workspace, and waits for the broker's acknowledgement. The fact is recorded in the
 * workspace's history first (the record of truth); the event tells everyone else. A publish that
 * fails after the history was written is reported to the caller as a failure of the event only (the
 * lock stays released) and logged — there is no outbox yet (see README follow-ups).
 *
 * <p>Thread-safe: the producer is created on first use and shared. With {@code
 * stagecraft.kafka.enabled=false} nothing is published.
 */
@Singleton
public final class LockEventPublisher {
  private static final Logger LOG = LoggerFactory.getLogger(LockEventPublisher.class);

  private final KafkaSettings settings;
  private final boolean enabled;
  private final EventCodec codec = EventCodec.forSource(StateStore.SOURCE);
  private EventPublisher publisher;

  public LockEventPublisher(
      @Value("${stagecraft.kafka-bootstrap}") String bootstrap,
      @Value("${stagecraft.kafka.enabled:true}") boolean enabled) {
    this.settings = new KafkaSettings(bootstrap);
    this.enabled = enabled;
  }

  /** Publishes a force-unlock and waits until the broker has it. */
  public void forceUnlocked(String tenant, String workspace, LockForceUnlocked event) {
    if (!enabled) {
      return;
    }
    try {
      publisher()
          .publish(
              codec.wrapWithId(
                  "lock-force-unlocked-" + UUID.randomUUID(),
                  tenant,
                  workspace,
                  null,
                  event.fencingToken(),
                  event.lockId(),
                  event));
    } catch (RuntimeException e) {
      LOG.error(
          "force-unlock of {}/{} recorded in the history but its event was not published: {}",
          tenant,
          workspace,
          e.toString());
      throw e;
    }
  }

  private synchronized EventPublisher publisher() {
    if (publisher == null) {
      publisher = new EventPublisher(settings, "state-service-lock-events");
    }
    return publisher;
  }

  @PreDestroy
  synchronized void close() {
    if (publisher != null) {
      publisher.close();
    }
  }
}
