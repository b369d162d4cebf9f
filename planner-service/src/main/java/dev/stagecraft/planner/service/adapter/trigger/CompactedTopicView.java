package dev.stagecraft.planner.service.adapter.trigger;

import dev.stagecraft.platform.kafka.EventPublisher;
import dev.stagecraft.platform.kafka.KafkaSettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The latest value of every key of a compacted topic, held in memory: read from the beginning of
 * every partition at start and followed from then on, so each planner instance sees what any
 * instance wrote. {@link #put} writes through (waits for the broker's acknowledgement with
 * acks=all) and updates the local view at once, so a writer reads its own write.
 *
 * <p>Concurrency: one daemon thread owns the consumer; reads and {@link #put} may come from any
 * thread. Values written by another instance appear after the usual propagation delay (a poll).
 */
final class CompactedTopicView implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CompactedTopicView.class);

  private final String topic;
  private final KafkaConsumer<String, byte[]> consumer;
  private final EventPublisher producer;
  private final Map<String, byte[]> values = new ConcurrentHashMap<>();
  private final CountDownLatch caughtUp = new CountDownLatch(1);
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final Thread thread;
  private volatile boolean running = true;

  CompactedTopicView(KafkaSettings kafka, String topic, String clientId, EventPublisher producer) {
    this.topic = topic;
    Properties p = kafka.consumer("unused-" + clientId, clientId, "earliest");
    // partitions are assigned, not subscribed: every instance reads everything, nothing commits
    p.remove("group.id");
    this.consumer = new KafkaConsumer<>(p);
    this.producer = producer;
    this.thread = new Thread(this::loop, "view-" + topic);
    this.thread.setDaemon(true);
  }

  /** Starts reading; returns once everything written before the call is in the view. */
  CompactedTopicView start(Duration timeout) {
    thread.start();
    try {
      if (!caughtUp.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException(
            "could not read " + topic + " within " + timeout.toSeconds() + " s (is Kafka up?)");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading " + topic, e);
    }
    return this;
  }

  Optional<byte[]> get(String key) {
    return Optional.ofNullable(values.get(key));
  }

  /** Writes durably, then shows the value locally. */
  void put(String key, byte[] value) {
    producer.sendRaw(new ProducerRecord<>(topic, key, value));
    values.put(key, value);
  }

  private void loop() {
    try {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
              .map(i -> new TopicPartition(topic, i.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      while (running) {
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          if (r.key() == null) {
            continue;
          }
          if (r.value() == null) {
            values.remove(r.key());
          } else {
            values.put(r.key(), r.value());
          }
        }
        if (caughtUp.getCount() > 0
            && end.entrySet().stream()
                .allMatch(e -> consumer.position(e.getKey()) >= e.getValue())) {
          caughtUp.countDown();
        }
      }
    } catch (WakeupException e) {
      // closing
    } catch (RuntimeException e) {
      LOG.error("reading {} stopped: {}", topic, e.toString(), e);
    } finally {
      consumer.close();
      stopped.countDown();
    }
  }

  @Override
  public void close() {
    running = false;
    consumer.wakeup();
    try {
      stopped.await(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
