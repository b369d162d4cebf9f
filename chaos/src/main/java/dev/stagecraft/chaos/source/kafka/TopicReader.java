package dev.stagecraft.chaos.source.kafka;

import dev.stagecraft.chaos.history.EventSighting;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads a whole topic after a soak, from the start of every partition to the end it had when the
 * read began, without a consumer group (nothing is committed, no service's group is disturbed).
 * Records that are not Stagecraft events are listed as problems with their partition and offset.
 */
public final class TopicReader {
  private TopicReader() {}

  /**
   * A topic's events in partition order, then offset order, and the records that did not decode.
   */
  public record Reading(String topic, List<EventEnvelope> envelopes, List<String> problems) {
    public Reading {
      envelopes = List.copyOf(envelopes);
      problems = List.copyOf(problems);
    }

    /** Every event read, as seen downstream on the topic. */
    public List<EventSighting> downstream() {
      return envelopes.stream()
          .map(e -> new EventSighting(topic, e.id(), EventSighting.Side.DOWNSTREAM, e.time()))
          .toList();
    }
  }

  /**
   * @param clientProperties {@code bootstrap.servers} and, on a secured broker, the SASL settings
   *     of a principal allowed to read the topic
   * @param timeout how long the whole read may take; past it the read fails saying how far it got
   */
  public static Reading read(Map<String, Object> clientProperties, String topic, Duration timeout) {
    Map<String, Object> props = new HashMap<>(clientProperties);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    Instant deadline = Instant.now().plus(timeout);
    List<EventEnvelope> envelopes = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
      if (infos == null || infos.isEmpty()) {
        throw new IllegalStateException("topic " + topic + " does not exist or has no partitions");
      }
      List<TopicPartition> partitions =
          infos.stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .sorted(Comparator.comparingInt(TopicPartition::partition))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
      Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> byPartition = new HashMap<>();
      while (!caughtUp(consumer, end)) {
        if (Instant.now().isAfter(deadline)) {
          throw new IllegalStateException(
              "reading "
                  + topic
                  + " took longer than "
                  + timeout
                  + ": at "
                  + positions(consumer, end)
                  + " of "
                  + end);
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          TopicPartition tp = new TopicPartition(r.topic(), r.partition());
          if (r.offset() < end.get(tp)) {
            byPartition.computeIfAbsent(tp, k -> new ArrayList<>()).add(r);
          }
        }
      }
      for (TopicPartition tp : partitions) {
        for (ConsumerRecord<byte[], byte[]> r : byPartition.getOrDefault(tp, List.of())) {
          try {
            envelopes.add(EventCodec.decode(r.value()));
          } catch (EventCodec.MalformedEventException e) {
            problems.add(topic + "-" + r.partition() + "@" + r.offset() + ": " + e.getMessage());
          }
        }
      }
    }
    return new Reading(topic, envelopes, problems);
  }

  private static boolean caughtUp(KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
      if (consumer.position(e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  private static Map<TopicPartition, Long> positions(
      KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> end) {
    Map<TopicPartition, Long> at = new HashMap<>();
    end.keySet().forEach(tp -> at.put(tp, consumer.position(tp)));
    return at;
  }
}
