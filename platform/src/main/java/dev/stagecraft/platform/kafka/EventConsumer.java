package dev.stagecraft.platform.kafka;

import dev.stagecraft.platform.tracing.TraceHeaders;
import dev.stagecraft.platform.tracing.Tracing;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.EventCodec.MalformedEventException;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A poll loop on its own platform thread that hands each decoded envelope to a handler.
 *
 * <p>Concurrency: one thread owns the Kafka consumer; {@link #close()} may be called from any
 * thread. Offsets are committed after the records were handled (unless {@link
 * #withoutOffsetCommits}: a group nothing resumes), so delivery is at least once; a handler that
 * throws gets the same record again after a pause (the partition is rewound), so a database outage
 * delays events but loses none: handlers must be idempotent by event id (they say how in their
 * Javadoc). A record that is not an envelope, or that the handler rejects with {@link
 * MalformedEventException}, goes to {@link #DEAD_LETTER_TOPIC} with the reason in the {@code
 * stagecraft-error} header, and the loop keeps going.
 *
 * <p>Each record is handled inside a consumer span whose parent is the producer's span named in the
 * record's {@code traceparent} header (a malformed one is ignored); for raw-record consumers of
 * events from outside, a new trace linked to it (docs/adr/0083). Without tracing, no span.
 *
 * <p>By default the handled offsets are committed at the end of every poll batch, one broker round
 * trip and one {@code __consumer_offsets} append per batch; with {@link #commitEvery} they are
 * committed at most once per interval (and when partitions are revoked, and on {@link #close}), so
 * a crash redelivers at most an interval's records (ADR 0045).
 *
 * <p>A handler that must not act on a record before its offset is durable (an executor about to run
 * an action: a redelivery would run it again) calls {@link #commitThroughCurrent()} from inside
 * {@link Handler#handle}; see there. A commit that fails because the group rebalanced (this member
 * lost the partition) is logged and the loop goes on: the new owner gets the records again.
 */
public final class EventConsumer implements AutoCloseable {
  public static final String DEAD_LETTER_TOPIC = "stagecraft.dead-letter";
  private static final Logger LOG = LoggerFactory.getLogger(EventConsumer.class);

  /** Handles one event. Throwing anything but a malformed-event error means "retry later". */
  @FunctionalInterface
  public interface Handler {
    void handle(EventEnvelope event) throws Exception;
  }

  /**
   * Handles one raw record, for a consumer that needs what the envelope does not carry (headers,
   * the exact bytes a signature covers). The same contract as {@link Handler}: throwing {@link
   * MalformedEventException} dead-letters the record with the exception's message as the reason;
   * anything else means "retry later".
   */
  @FunctionalInterface
  public interface RecordHandler {
    void handle(ConsumerRecord<String, byte[]> record) throws Exception;
  }

  private final KafkaConsumer<String, byte[]> consumer;
  private final EventPublisher deadLetters;
  private volatile BiConsumer<String, String> onDeadLetter = (topic, reason) -> {};
  private final RecordHandler handler;
  private volatile Runnable beforeCommit = () -> {};
  private final Thread thread;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final CountDownLatch assigned = new CountDownLatch(1);
  private final Set<TopicPartition> retrying = new HashSet<>();
  // poll-thread state for commitThroughCurrent: the batch's handled offsets, the record in hand,
  // and partitions whose claim commit failed (their remaining records are left to the new owner)
  private final Map<TopicPartition, OffsetAndMetadata> done = new HashMap<>();
  private final Set<TopicPartition> lost = new HashSet<>();
  // poll thread only, without offset commits: the next offset to handle of each partition this
  // consumer has handled records of, so that a partition assigned again (the group dropped this
  // member: a broker restart, a poll that took too long) resumes there rather than at the reset
  private final Map<TopicPartition, Long> positions = new HashMap<>();
  private ConsumerRecord<String, byte[]> current;
  private volatile boolean running = true;
  private volatile boolean commits = true;
  private volatile boolean linkOnly;
  private volatile long commitIntervalNanos;
  private volatile Instant lastOutage = Instant.now();
  private Metric connections; // read on the poll thread only
  // poll thread only: when offsets were last committed (System.nanoTime)
  private long lastCommit = System.nanoTime();
  // poll thread only: the record in hand was claimed (its offset committed by the handler)
  private boolean claimed;

  public EventConsumer(
      KafkaSettings settings,
      String groupId,
      String clientId,
      String offsetReset,
      Collection<String> topics,
      EventPublisher deadLetters,
      Handler handler) {
    this(
        settings.consumer(groupId, clientId, offsetReset),
        topics,
        deadLetters,
        decoding(handler),
        clientId);
  }

  /** A consumer that hands each raw record to {@code handler} (see {@link RecordHandler}). */
  public static EventConsumer ofRecords(
      KafkaSettings settings,
      String groupId,
      String clientId,
      String offsetReset,
      Collection<String> topics,
      EventPublisher deadLetters,
      RecordHandler handler) {
    return new EventConsumer(
            settings.consumer(groupId, clientId, offsetReset),
            topics,
            deadLetters,
            handler,
            clientId)
        .tracedAsLinks();
  }

  /**
   * A consumer with the given client properties (as {@link KafkaSettings#consumer} makes them, with
   * settings of the caller's own) that hands each raw record to {@code handler}.
   */
  public static EventConsumer ofRecords(
      Properties consumerProperties,
      String clientId,
      Collection<String> topics,
      EventPublisher deadLetters,
      RecordHandler handler) {
    return new EventConsumer(consumerProperties, topics, deadLetters, handler, clientId)
        .tracedAsLinks();
  }

  private static RecordHandler decoding(Handler handler) {
    return record -> {
      EventEnvelope event = EventCodec.decode(record.value());
      TraceHeaders.describe(Span.current(), event);
      handler.handle(event);
    };
  }

  /**
   * A consumer whose group evicts it {@code sessionTimeout} after its process died (see {@link
   * KafkaSettings#consumer(String, String, String, Duration)}).
   */
  public EventConsumer(
      KafkaSettings settings,
      String groupId,
      String clientId,
      String offsetReset,
      Duration sessionTimeout,
      Collection<String> topics,
      EventPublisher deadLetters,
      Handler handler) {
    this(
        settings.consumer(groupId, clientId, offsetReset, sessionTimeout),
        topics,
        deadLetters,
        decoding(handler),
        clientId);
  }

  private EventConsumer(
      Properties properties,
      Collection<String> topics,
      EventPublisher deadLetters,
      RecordHandler handler,
      String clientId) {
    this.consumer = new KafkaConsumer<>(properties);
    this.deadLetters = deadLetters;
    this.handler = handler;
    consumer.subscribe(
        topics,
        new ConsumerRebalanceListener() {
          @Override
          public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            // on the poll thread, inside poll: what was handled of these partitions is committed
            // before another member may get them, so it is not delivered again (ADR 0045)
            commitRevoked(partitions);
          }

          @Override
          public void onPartitionsLost(Collection<TopicPartition> partitions) {
            // another member owns them already: their records go to it; nothing can be committed
            partitions.forEach(done::remove);
          }

          @Override
          public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            if (!commits) {
              // no committed offset to resume from: go on where this consumer was, not at the
              // reset offset, which would skip what was appended while it was out of its group
              for (TopicPartition p : partitions) {
                Long next = positions.get(p);
                if (next != null) {
                  consumer.seek(p, next);
                } else {
                  // resolve the reset now, so that awaitAssignment means "nothing appended from
                  // now on is missed" (a lazy reset would skip what is appended before it runs)
                  try {
                    positions.put(p, consumer.position(p, Duration.ofSeconds(10)));
                  } catch (RuntimeException e) {
                    // the broker is away: the reset happens at the next fetch, as without this
                    LOG.warn("could not resolve the position of {} yet: {}", p, e.toString());
                  }
                }
              }
            }
            assigned.countDown();
          }
        });
    this.thread = new Thread(this::loop, "consumer-" + clientId);
    this.thread.setDaemon(true);
  }

  /**
   * Runs before every offset commit, on the consumer thread. A handler that publishes without
   * waiting passes its publisher's {@code flush} here: offsets then never run ahead of what it
   * published, and a crash in between means redelivery, not loss.
   */
  public EventConsumer beforeCommit(Runnable hook) {
    this.beforeCommit = hook;
    return this;
  }

  /**
   * Never commits offsets: for a consumer whose group is its own, starts at the latest offset and
   * is never resumed (a listener that keeps in memory what concerns this process, with a fresh
   * group id per start). Committing would only cost a broker round trip and an append to {@code
   * __consumer_offsets} per batch, on the poll thread, before the next record is handled. Delivery
   * within the process is unchanged: a handler that throws gets the record again (the partition is
   * rewound); a partition assigned to it again (the group dropped it: a broker restart, a handler
   * slower than the poll interval) resumes where it was, not at the reset offset; a restart starts
   * at the latest offset anyway. {@link #commitThroughCurrent} is then refused. Call before {@link
   * #start}.
   */
  public EventConsumer withoutOffsetCommits() {
    this.commits = false;
    return this;
  }

  /**
   * Commits handled offsets at most once per {@code interval} instead of after every poll batch
   * (ADR 0045): records handled since the last commit are committed when the interval has passed at
   * the end of a batch or of an empty poll (so at most {@code interval} + the poll timeout later),
   * when their partitions are revoked, and on {@link #close}. A process that dies in between has
   * its records of that time delivered again, which the at-least-once contract (idempotent
   * handlers) allows. A claim ({@link #commitThroughCurrent}) still commits at once, with every
   * offset handled before it. {@link Duration#ZERO} (the default): after every batch. Call before
   * {@link #start}.
   */
  public EventConsumer commitEvery(Duration interval) {
    if (interval.isNegative()) {
      throw new IllegalArgumentException("a commit interval cannot be negative: " + interval);
    }
    this.commitIntervalNanos = interval.toNanos();
    return this;
  }

  /**
   * Tells {@code observer} of every record dead-lettered, with its source topic and the kind of
   * failure (the exception's class name, a bounded set), for a metric. Call before {@link #start}.
   */
  public EventConsumer onDeadLetter(BiConsumer<String, String> observer) {
    this.onDeadLetter = observer;
    return this;
  }

  /**
   * The Kafka client, for a metrics binder that reads its {@code metrics()} (consumer lag, fetch
   * rates) only: it is not thread-safe for anything else, and never to be polled or committed
   * through.
   */
  public KafkaConsumer<String, byte[]> clientForMetrics() {
    return consumer;
  }

  public EventConsumer start() {
    thread.start();
    return this;
  }

  /**
   * Waits until the group coordinator assigned partitions to this consumer, so that a consumer
   * starting at the latest offset misses nothing published after this returns.
   *
   * @return false when no assignment came within the timeout
   */
  /**
   * The last instant this consumer was seen without any connection to the brokers (they were down
   * or unreachable), checked after each poll, about twice a second; its start counts as one (it has
   * heard nothing yet). Silence of the events it consumes since then may be the brokers', not their
   * producers' (the planner's action leases wait for it). Thread-safe.
   */
  public Instant lastOutage() {
    return lastOutage;
  }

  private void noteBrokerContact() {
    if (connections == null) {
      connections =
          consumer.metrics().entrySet().stream()
              .filter(
                  e ->
                      e.getKey().name().equals("connection-count")
                          && e.getKey().group().equals("consumer-metrics"))
              .map(Map.Entry::getValue)
              .findFirst()
              .orElse(null);
    }
    if (connections != null
        && connections.metricValue() instanceof Number open
        && open.doubleValue() < 1) {
      lastOutage = Instant.now();
    }
  }

  public boolean awaitAssignment(Duration timeout) throws InterruptedException {
    return assigned.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Commits, synchronously, the offset just past the record being handled (and those of the records
   * handled before it in this batch), so it is never delivered again to this group. For a handler
   * that must claim a record before acting on it. Call only from {@link Handler#handle}, on the
   * poll thread; the {@link #beforeCommit} hook runs first.
   *
   * @return true when the broker committed it; false when the commit failed (the group rebalanced
   *     and another member owns the partition now, or the broker did not answer): the handler must
   *     then not act on the record and must not remember it as handled. The record is delivered
   *     again, to the partition's new owner or, if it is still this consumer's, to this one after
   *     the batch; this consumer skips the partition's other records of the batch
   */
  public boolean commitThroughCurrent() {
    if (Thread.currentThread() != thread || current == null) {
      throw new IllegalStateException("commitThroughCurrent is for a handler on the poll thread");
    }
    if (!commits) {
      throw new IllegalStateException("this consumer does not commit offsets: it cannot claim");
    }
    TopicPartition partition = new TopicPartition(current.topic(), current.partition());
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>(done);
    offsets.put(partition, new OffsetAndMetadata(current.offset() + 1));
    beforeCommit.run();
    try {
      consumer.commitSync(offsets);
      done.clear();
      lastCommit = System.nanoTime();
      claimed = true;
      return true;
    } catch (KafkaException e) {
      // Rebalanced away (CommitFailed, RebalanceInProgress) or the broker did not answer in time:
      // either way the record is not known to be claimed, so it must not be acted on here.
      LOG.warn("could not commit {} (partition reassigned?): {}", origin(current), e.toString());
      lost.add(partition);
      return false;
    }
  }

  private void loop() {
    try {
      while (running) {
        ConsumerRecords<String, byte[]> records = consumer.poll(Duration.ofMillis(500));
        noteBrokerContact();
        lost.clear();
        for (ConsumerRecord<String, byte[]> record : records) {
          TopicPartition partition = new TopicPartition(record.topic(), record.partition());
          if (retrying.contains(partition) || lost.contains(partition)) {
            continue;
          }
          try {
            current = record;
            claimed = false;
            dispatch(record);
            if (!lost.contains(partition)) {
              if (!claimed) { // a claimed record's offset is committed already
                done.put(partition, new OffsetAndMetadata(record.offset() + 1));
              }
              if (!commits) {
                positions.put(partition, record.offset() + 1);
              }
            } else if (consumer.assignment().contains(partition)) {
              // still ours (the commit timed out): deliver the unclaimed record again
              consumer.seek(partition, record.offset());
            }
          } catch (Exception e) {
            // transient failure (database or broker down): redeliver from this record, later
            LOG.warn("handling {} failed, will retry: {}", origin(record), e.toString(), e);
            retrying.add(partition);
            if (consumer.assignment().contains(partition)) {
              consumer.seek(partition, record.offset());
            }
          } finally {
            current = null;
          }
        }
        if (!done.isEmpty() && !commits) {
          done.clear();
        } else if (!done.isEmpty() && System.nanoTime() - lastCommit >= commitIntervalNanos) {
          commitDone();
        }
        if (!retrying.isEmpty()) {
          retrying.clear();
          backoff();
        }
      }
    } catch (WakeupException e) {
      if (running) {
        LOG.error("consumer woken up unexpectedly", e);
      }
    } catch (Exception e) {
      LOG.error("consumer loop stopped: {}", e.toString(), e);
    } finally {
      try {
        if (commits && !done.isEmpty()) {
          commitDone(); // what an interval left uncommitted (ADR 0045)
        }
      } catch (RuntimeException e) {
        // the records are delivered again to the group's next member: at least once
        LOG.warn("offsets {} not committed on close: {}", done, e.toString());
      } finally {
        consumer.close();
        stopped.countDown();
      }
    }
  }

  /** Commits the handled offsets in {@link #done}, synchronously, after the beforeCommit hook. */
  private void commitDone() {
    beforeCommit.run();
    try {
      consumer.commitSync(done);
    } catch (CommitFailedException | RebalanceInProgressException e) {
      // the group moved these partitions: their new owner gets the records again
      LOG.warn("offsets {} not committed: {}", done, e.toString());
    }
    done.clear();
    lastCommit = System.nanoTime();
  }

  private void commitRevoked(Collection<TopicPartition> partitions) {
    if (!commits || partitions.stream().noneMatch(done::containsKey)) {
      partitions.forEach(done::remove);
      return;
    }
    Map<TopicPartition, OffsetAndMetadata> revoked = new HashMap<>();
    partitions.forEach(
        p -> {
          OffsetAndMetadata offset = done.remove(p);
          if (offset != null) {
            revoked.put(p, offset);
          }
        });
    try {
      beforeCommit.run();
      consumer.commitSync(revoked);
    } catch (RuntimeException e) {
      // the records are delivered again to the partitions' next owner: at least once
      LOG.warn("offsets {} of revoked partitions not committed: {}", revoked, e.toString());
    }
  }

  private static void backoff() {
    try {
      // pause before redelivering a record whose handling failed (not synchronization)
      Thread.sleep(1000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Records from outside the platform (raw records: a tenant's chat-ops CloudEvents) may carry a
   * trace context a tenant chose: their handling starts a new trace, linked to it, never a child of
   * it (docs/adr/0083).
   */
  private EventConsumer tracedAsLinks() {
    this.linkOnly = true;
    return this;
  }

  private void dispatch(ConsumerRecord<String, byte[]> record) throws Exception {
    if (!Tracing.enabled()) {
      handle(record);
      return;
    }
    Span span =
        TraceHeaders.startConsumer(
            record.topic(), TraceHeaders.extract(record.headers()), linkOnly);
    try (Scope ignored = span.makeCurrent()) {
      handle(record);
    } catch (Exception e) {
      span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
      throw e;
    } finally {
      span.end();
    }
  }

  private void handle(ConsumerRecord<String, byte[]> record) throws Exception {
    try {
      handler.handle(record);
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
      onDeadLetter.accept(record.topic(), e.getClass().getSimpleName());
    }
  }

  private static String origin(ConsumerRecord<String, byte[]> record) {
    return record.topic() + "-" + record.partition() + "@" + record.offset();
  }

  /**
   * Stops polling. The loop finishes the batch in hand and commits it first (so a graceful stop
   * never causes redelivery); only if that takes longer than a few seconds is the poll woken up.
   */
  @Override
  public void close() {
    running = false;
    try {
      if (!stopped.await(5, TimeUnit.SECONDS)) {
        consumer.wakeup();
        stopped.await();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
