package dev.stagecraft.platform.kafka;

import dev.stagecraft.platform.tracing.TraceHeaders;
import dev.stagecraft.platform.tracing.Tracing;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.EventType;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import io.opentelemetry.context.Context;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Publishes envelopes to the topic of their type. Thread-safe (one shared Kafka producer).
 * Idempotent producer with acks=all: {@link #publish} returns once the event is committed. Every
 * record carries the publishing thread's W3C trace context in its headers (docs/adr/0083).
 */
public final class EventPublisher implements AutoCloseable {
  private final KafkaProducer<String, byte[]> producer;

  public EventPublisher(KafkaSettings settings, String clientId) {
    this.producer = new KafkaProducer<>(settings.producer(clientId));
  }

  /** Publishes keyed by tenant/workspace (the default ordering) and waits for the commit. */
  public void publish(EventEnvelope envelope) {
    publish(envelope, envelope.workspaceKey());
  }

  /** Publishes with an explicit key and waits until the broker committed it. */
  public void publish(EventEnvelope envelope, String key) {
    try {
      send(envelope, key).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while publishing " + envelope.type(), e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "could not publish " + envelope.type() + ": " + e.getCause(), e.getCause());
    }
  }

  /** Publishes without waiting; ordering per key is still kept by the idempotent producer. */
  public Future<RecordMetadata> send(EventEnvelope envelope, String key) {
    String topic =
        EventType.of(envelope.type())
            .orElseThrow(() -> new IllegalArgumentException("unknown type " + envelope.type()))
            .topic();
    return producer.send(traced(new ProducerRecord<>(topic, key, EventCodec.encode(envelope))));
  }

  /**
   * Publishes without waiting and without a thread to wait: {@code onFailure} is called with the
   * cause if the broker does not take the event, on the producer's I/O thread (it must be quick: a
   * log line). Ordering per key as for {@link #send(EventEnvelope, String)}.
   */
  public void send(EventEnvelope envelope, String key, Consumer<Exception> onFailure) {
    String topic =
        EventType.of(envelope.type())
            .orElseThrow(() -> new IllegalArgumentException("unknown type " + envelope.type()))
            .topic();
    producer.send(
        traced(new ProducerRecord<>(topic, key, EventCodec.encode(envelope))),
        (metadata, e) -> {
          if (e != null) {
            onFailure.accept(e);
          }
        });
  }

  /**
   * The record with the calling thread's trace context in its headers ({@code traceparent}), so the
   * consumer's span is a child of the span that published (docs/adr/0083); as it is when tracing is
   * off.
   */
  private static ProducerRecord<String, byte[]> traced(ProducerRecord<String, byte[]> record) {
    if (Tracing.enabled()) {
      TraceHeaders.inject(Context.current(), record.headers());
    }
    return record;
  }

  /** Sends raw bytes to a topic (dead letters). */
  public RecordMetadata sendRaw(ProducerRecord<String, byte[]> record) {
    try {
      return producer.send(record).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while publishing to " + record.topic(), e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("could not publish to " + record.topic(), e.getCause());
    }
  }

  public void flush() {
    producer.flush();
  }

  @Override
  public void close() {
    producer.close();
  }
}
