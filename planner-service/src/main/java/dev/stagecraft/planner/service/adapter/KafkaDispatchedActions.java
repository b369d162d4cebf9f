package dev.stagecraft.planner.service.adapter;

import dev.stagecraft.planner.service.run.DispatchedActions;
import dev.stagecraft.platform.kafka.KafkaSettings;
import dev.stagecraft.schemas.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads {@code stagecraft.actions} from the first record at or after {@code since} to its end and
 * collects the runs whose dispatches it finds (record key {@code <run>/<address>}). Assigned
 * partitions, no group, nothing committed. Called once at startup; the cost is proportional to the
 * dispatches made since the oldest unfinished run was created.
 */
final class KafkaDispatchedActions implements DispatchedActions {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);
  private final KafkaSettings kafka;
  private final String clientId;

  KafkaDispatchedActions(KafkaSettings kafka, String clientId) {
    this.kafka = kafka;
    this.clientId = clientId;
  }

  @Override
  public Set<String> runsWithDispatches(Collection<String> runIds, Instant since) {
    Set<String> found = new HashSet<>();
    if (runIds.isEmpty()) {
      return found;
    }
    Properties p = kafka.consumer("unused-" + clientId, clientId, "earliest");
    p.remove("group.id");
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(p)) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(Topics.ACTIONS, TIMEOUT).stream()
              .map(i -> new TopicPartition(i.topic(), i.partition()))
              .toList();
      consumer.assign(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, TIMEOUT);
      Map<TopicPartition, Long> query = new HashMap<>();
      partitions.forEach(tp -> query.put(tp, since.toEpochMilli()));
      Map<TopicPartition, OffsetAndTimestamp> start = consumer.offsetsForTimes(query, TIMEOUT);
      Set<TopicPartition> remaining = new HashSet<>();
      for (TopicPartition tp : partitions) {
        OffsetAndTimestamp o = start.get(tp);
        long from = o == null ? end.get(tp) : o.offset();
        consumer.seek(tp, from);
        if (from < end.get(tp)) {
          remaining.add(tp);
        }
      }
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (!remaining.isEmpty()) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "could not read " + Topics.ACTIONS + " within " + TIMEOUT.toSeconds() + " s");
        }
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          String key = r.key();
          int slash = key == null ? -1 : key.indexOf('/');
          if (slash > 0 && runIds.contains(key.substring(0, slash))) {
            found.add(key.substring(0, slash));
          }
        }
        remaining.removeIf(tp -> consumer.position(tp) >= end.get(tp));
      }
    }
    return found;
  }
}
