package dev.stagecraft.platform.kafka;

import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.EventCodec.MalformedEventException;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A poll loop on its own platform thread that hands each decoded envelope to a handler.
 *
 * <p>Concurrency: one thread owns the Kafka consumer; {@link #close()} may be called from any
 * thread and wakes it. Offsets are committed after each polled batch was handled, so delivery is at
 * least once: handlers must be idempotent by event id (they say how in their Javadoc). A record
 * that is not an envelope, or that the handler rejects with {@link MalformedEventException}, goes
 * to {@link #DEAD_LETTER_TOPIC} with the reason in the {@code stagecraft-error} header, and the
 * loop keeps going.
 */
public final class EventConsumer implements AutoCloseable {
  public static final String DEAD_LETTER_TOPIC = "stagecraft.dead-letter";
  private static final Logger LOG = LoggerFactory.getLogger(EventConsumer.class);

  /** Handles one event. Throwing anything but a malformed-event error stops the loop. */
  @FunctionalInterface
  public interface Handler {
    void handle(EventEnvelope event) throws Exception;
  }

  private final KafkaConsumer<String, byte[]> consumer;
  private final EventPublisher deadLetters;
  private final Handler handler;
  private final Thread thread;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile boolean running = true;

  public EventConsumer(
      KafkaSettings settings,
      String groupId,
      String clientId,
      String offsetReset,
      Collection<String> topics,
      EventPublisher deadLetters,
      Handler handler) {
    this.consumer = new KafkaConsumer<>(settings.consumer(groupId, clientId, offsetReset));
    this.deadLetters = deadLetters;
    this.handler = handler;
    consumer.subscribe(topics);
    this.thread = new Thread(this::loop, "consumer-" + clientId);
    this.thread.setDaemon(true);
  }

  public EventConsumer start() {
    thread.start();
    return this;
  }

  private void loop() {
    try {
      while (running) {
        ConsumerRecords<String, byte[]> records = consumer.poll(Duration.ofMillis(500));
        for (ConsumerRecord<String, byte[]> record : records) {
          dispatch(record);
        }
        if (!records.isEmpty()) {
          consumer.commitSync();
        }
      }
    } catch (WakeupException e) {
      if (running) {
        LOG.error("consumer woken up unexpectedly", e);
      }
    } catch (Exception e) {
      LOG.error("consumer loop stopped: {}", e.toString(), e);
    } finally {
      consumer.close();
      stopped.countDown();
    }
  }

  private void dispatch(ConsumerRecord<String, byte[]> record) throws Exception {
    EventEnvelope event;
    try {
      event = EventCodec.decode(record.value());
      handler.handle(event);
    } catch (MalformedEventException e) {
      LOG.warn(
          "dead-lettering record {}-{}@{}: {}",
          record.topic(),
          record.partition(),
          record.offset(),
          e.getMessage());
      ProducerRecord<String, byte[]> dead =
          new ProducerRecord<>(DEAD_LETTER_TOPIC, record.key(), record.value());
      dead.headers().add("stagecraft-error", e.getMessage().getBytes(StandardCharsets.UTF_8));
      dead.headers().add("stagecraft-origin", origin(record).getBytes(StandardCharsets.UTF_8));
      deadLetters.sendRaw(dead);
    }
  }

  private static String origin(ConsumerRecord<String, byte[]> record) {
    return record.topic() + "-" + record.partition() + "@" + record.offset();
  }

  @Override
  public void close() {
    running = false;
    consumer.wakeup();
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
