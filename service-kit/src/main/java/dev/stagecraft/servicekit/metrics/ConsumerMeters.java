package dev.stagecraft.servicekit.metrics;

import dev.stagecraft.platform.kafka.EventConsumer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;

/**
 * Metrics of a service's {@link EventConsumer}s (docs/operations.md "Metrics"): the Kafka client's
 * own (consumer lag per partition, {@code kafka_consumer_fetch_manager_records_lag_max}, fetch
 * rates; tagged with the client id, topic and partition by Micrometer) and the records it
 * dead-lettered, by source topic and kind of failure ({@code
 * stagecraft_events_dead_lettered_total}).
 *
 * <p>Thread-safe: the binder reads the client's metrics map, which Kafka keeps thread-safe; the
 * counter is Micrometer's.
 */
public final class ConsumerMeters {
  private ConsumerMeters() {}

  /**
   * Binds {@code consumer}'s client metrics and dead-letter count to {@code meters}, tagged with
   * its consumer {@code group}. Call before the consumer starts; returns it.
   */
  public static EventConsumer bind(EventConsumer consumer, String group, MeterRegistry meters) {
    new KafkaClientMetrics(consumer.clientForMetrics()).bindTo(meters);
    return consumer.onDeadLetter(
        (topic, reason) ->
            Counter.builder("stagecraft.events.dead.lettered")
                .description("Records moved to the dead-letter topic, by source topic and reason")
                .tag("group", group)
                .tag("topic", topic)
                .tag("reason", reason)
                .register(meters)
                .increment());
  }
}
