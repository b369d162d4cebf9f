package dev.stagecraft.planner.service.adapter;

import dev.stagecraft.planner.service.run.RunCoordinator;
import dev.stagecraft.platform.kafka.EventConsumer;
import dev.stagecraft.platform.kafka.EventPublisher;
import dev.stagecraft.platform.kafka.KafkaSettings;
import dev.stagecraft.schemas.Topics;
import io.micronaut.context.annotation.Context;
import jakarta.annotation.PreDestroy;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/**
 * Reads {@code stagecraft.lock-events} so that a run whose workspace lease expired ends at once
 * ({@link RunCoordinator#onLockEvent}) instead of at its next heartbeat. Every planner instance
 * reads with a consumer group of its own, from the latest offset: runs live in the memory of the
 * instance that drives them, and an expiry recorded before this instance started concerns none of
 * its runs. Started with the application; it waits for its partitions before the planner serves.
 */
@Context
public final class LockEventsListener {
  private final EventConsumer consumer;

  LockEventsListener(
      KafkaSettings kafka,
      PlannerSettings settings,
      EventPublisher publisher,
      RunCoordinator coordinator) {
    this.consumer = start(kafka, settings.getInstanceId(), publisher, coordinator);
  }

  /**
   * Starts a consumer of {@code stagecraft.lock-events} (its own group, latest offset) handing
   * every event to {@code coordinator}, and waits until it has its partitions. The caller closes
   * it.
   *
   * @throws IllegalStateException when Kafka assigned no partitions within 60 s
   */
  public static EventConsumer start(
      KafkaSettings kafka,
      String instanceId,
      EventPublisher publisher,
      RunCoordinator coordinator) {
    EventConsumer consumer =
        new EventConsumer(
                kafka,
                Topics.PLANNER_GROUP_PREFIX + instanceId + "-" + UUID.randomUUID() + "-locks",
                instanceId + "-locks",
                "latest",
                List.of(Topics.LOCK_EVENTS),
                publisher,
                coordinator::onLockEvent)
            .withoutOffsetCommits() // a group of its own from the latest offset: nothing to resume
            .start();
    try {
      if (!consumer.awaitAssignment(Duration.ofSeconds(60))) {
        consumer.close();
        throw new IllegalStateException("Kafka did not assign lock-events partitions in 60 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      consumer.close();
      throw new IllegalStateException("interrupted while joining the lock-events group", e);
    }
    return consumer;
  }

  @PreDestroy
  void stop() {
    consumer.close();
  }
}
