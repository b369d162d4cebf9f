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
 * acks=all) and updates the local view at once, so a writer reads its own write. A key's value is
 * replaced only by a record at a later offset (a key's records share a partition): when this
 * instance writes a key twice, the echo of the first write, read after the second was shown, does
 * not bring the first value back.
 *
 * <p>Concurrency: one daemon thread owns the consumer; reads and {@link #put} may come from any
 * thread. Values written by another instance appear after the usual propagation delay (a poll).
 */
final class CompactedTopicView implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CompactedTopicView.class);

  private final String topic;
  private final KafkaConsumer<String, byte[]> consumer;
  private final EventPublisher producer;
  private final Map<String, Versioned> values = new ConcurrentHashMap<>();

  /** A key's value (null: deleted) and the offset of the record that wrote it. */
  private record Versioned(long offset, byte[] value) {}

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
    return Optional.ofNullable(values.get(key)).map(Versioned::value);
  }

  /** Writes durably, then shows the value locally. */
  void put(String key, byte[] value) {
    long offset = producer.sendRaw(new ProducerRecord<>(topic, key, value)).offset();
    show(key, new Versioned(offset, value));
  }

  /** Shows {@code next} unless the view holds a later record of the key already. */
  private void show(String key, Versioned next) {
    values.merge(
        key, next, (held, candidate) -> candidate.offset() > held.offset() ? candidate : held);
  }

  /** A record read from the topic: shown unless the view holds a later one of its key. */
  void received(ConsumerRecord<String, byte[]> r) {
    if (r.key() != null) {
      // a deletion is kept as a null value, so an older record cannot bring the key back
      show(r.key(), new Versioned(r.offset(), r.value()));
    }
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
          received(r);
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
