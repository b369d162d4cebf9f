package dev.stagecraft.planner.service.adapter;

import dev.stagecraft.planner.service.run.recovery.DispatchedActions;
import dev.stagecraft.platform.kafka.KafkaSettings;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.EventType;
import dev.stagecraft.schemas.Topics;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads {@code stagecraft.actions} from the first record at or after {@code since} to its end and
 * collects the runs whose dispatches it finds (record key {@code <run>/<address>}), keeping each
 * found run's {@code action.dispatched} events for {@link #dispatchesOf} (docs/adr/0035). Assigned
 * partitions, no group, nothing committed. Called once at startup; the cost is proportional to the
 * dispatches made since the oldest unfinished run was created. Each dispatch is marked taken when
 * the executors' group ({@link Topics#EXECUTORS_GROUP}) has committed its partition past it, read
 * after the scan (docs/adr/0056); when those offsets cannot be read, none is marked taken.
 *
 * <p>Concurrency: one caller at a time (the startup recovery); the kept dispatches are replaced by
 * each {@link #runsWithDispatches} call.
 */
final class KafkaDispatchedActions implements DispatchedActions {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);
  private static final Logger LOG = LoggerFactory.getLogger(KafkaDispatchedActions.class);
  private final KafkaSettings kafka;
  private final String clientId;

  /** The dispatches the latest scan found, by run and action id, in reading order. */
  private Map<String, Map<String, Dispatched>> found = Map.of();

  /**
   * Runs with a record the latest scan found but could not read as an {@code action.dispatched}.
   */
  private Set<String> unreadable = Set.of();

  KafkaDispatchedActions(KafkaSettings kafka, String clientId) {
    this.kafka = kafka;
    this.clientId = clientId;
  }

  @Override
  public Set<String> runsWithDispatches(Collection<String> runIds, Instant since) {
    Map<String, Map<String, Dispatched>> byRun = new HashMap<>();
    Set<String> notRead = new HashSet<>();
    found = byRun;
    unreadable = notRead;
    if (runIds.isEmpty()) {
      return Set.of();
    }
    // where each kept dispatch lies, to tell whether an executor took it
    Map<Dispatched, Map.Entry<TopicPartition, Long>> at = new IdentityHashMap<>();
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
            String run = key.substring(0, slash);
            Map<String, Dispatched> ofRun = byRun.computeIfAbsent(run, k -> new LinkedHashMap<>());
            try {
              EventEnvelope envelope = EventCodec.decode(r.value());
              ActionDispatched action = EventCodec.data(envelope, ActionDispatched.class);
              if (!EventType.ACTION_DISPATCHED.type().equals(envelope.type())
                  || !run.equals(action.runId())
                  || action.actionId() == null) {
                notRead.add(run);
              } else if (!ofRun.containsKey(action.actionId())) {
                Dispatched d = new Dispatched(action, Instant.ofEpochMilli(r.timestamp()));
                ofRun.put(action.actionId(), d);
                at.put(d, Map.entry(new TopicPartition(r.topic(), r.partition()), r.offset()));
              }
            } catch (RuntimeException e) {
              notRead.add(run); // never guess what an unreadable dispatch was
            }
          }
        }
        remaining.removeIf(tp -> consumer.position(tp) >= end.get(tp));
      }
    }
    if (!at.isEmpty()) {
      Map<TopicPartition, Long> claimed = executorsCommitted();
      for (Map<String, Dispatched> ofRun : byRun.values()) {
        ofRun.replaceAll(
            (id, d) -> {
              Map.Entry<TopicPartition, Long> where = at.get(d);
              Long committed = claimed.get(where.getKey());
              return committed != null && committed > where.getValue()
                  ? new Dispatched(d.action(), d.dispatchedAt(), true)
                  : d;
            });
      }
    }
    return Set.copyOf(byRun.keySet());
  }

  /**
   * The executors' committed offsets on {@code stagecraft.actions}, by partition; empty when they
   * cannot be read (then no dispatch counts as taken, and the dispatch lease decides, as before
   * docs/adr/0056).
   */
  private Map<TopicPartition, Long> executorsCommitted() {
    try (Admin admin = Admin.create(kafka.client())) {
      Map<TopicPartition, OffsetAndMetadata> offsets =
          admin
              .listConsumerGroupOffsets(Topics.EXECUTORS_GROUP)
              .partitionsToOffsetAndMetadata()
              .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      Map<TopicPartition, Long> committed = new HashMap<>();
      offsets.forEach(
          (tp, o) -> {
            if (o != null && Topics.ACTIONS.equals(tp.topic())) {
              committed.put(tp, o.offset());
            }
          });
      return committed;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Map.of();
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      LOG.warn(
          "could not read the executors' committed offsets; carried actions wait for the dispatch"
              + " lease: {}",
          e.toString());
      return Map.of();
    }
  }

  @Override
  public List<Dispatched> dispatchesOf(String runId) {
    if (unreadable.contains(runId)) {
      throw new IllegalStateException(
          "a dispatch of run "
              + runId
              + " on "
              + Topics.ACTIONS
              + " could not be read as an action.dispatched event");
    }
    Map<String, Dispatched> ofRun = found.get(runId);
    if (ofRun == null) {
      return List.of();
    }
    // a run's dispatches may lie on several partitions: order by publication time
    return ofRun.values().stream().sorted(Comparator.comparing(Dispatched::dispatchedAt)).toList();
  }
}
