package dev.stagecraft.state.adapter.kafka;

import dev.stagecraft.platform.kafka.EventConsumer;
import dev.stagecraft.platform.kafka.EventPublisher;
import dev.stagecraft.platform.kafka.KafkaSettings;
import dev.stagecraft.platform.kafka.TopicBootstrap;
import dev.stagecraft.platform.logging.RunLogContext;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.EventCodec.MalformedEventException;
import dev.stagecraft.schemas.EventSchemaValidator;
import dev.stagecraft.schemas.EventType;
import dev.stagecraft.schemas.Topics;
import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.servicekit.metrics.ConsumerMeters;
import dev.stagecraft.state.adapter.db.RunCredentialStore;
import dev.stagecraft.state.application.StateHistory;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes {@code stagecraft.action-events} (group {@code state-service}) and records every {@code
 * action.finished} through {@code ActionResults.record} — rejected unless proven with the run's
 * active state credential ({@link RunCredentialStore#refusal}) — then publishes the resulting
 * {@code state.recorded} on {@code stagecraft.state-events} keyed by tenant/workspace.
 *
 * <p>Publishing does not wait for the broker per record: each {@code state.recorded} is sent and
 * the consumer's {@link EventConsumer#beforeCommit} hook waits for all of them ({@link
 * #awaitPublished}) before the offsets of the records that caused them are committed. So an offset
 * is never committed ahead of its {@code state.recorded}; a crash in between means redelivery.
 *
 * <p>Idempotency: the store dedupes by envelope id and by (run id, action id) and returns the same
 * {@code state.recorded} for a redelivery, which is published again (the planner dedupes by the
 * envelope id). If publishing fails after the commit, the retry takes exactly that path.
 *
 * <p>Failures ({@link #permanentFailure}): a transient one (connection lost, PostgreSQL restarting,
 * serialization failure, any database error not known to be permanent) is retried with backoff on
 * the consumer thread until it succeeds or the service stops, so an outage delays results but loses
 * none. A permanent one — a malformed envelope, one that violates its schema, data the database
 * refuses for good, an input the store cannot process — goes to {@code stagecraft.dead-letter} with
 * the reason (platform's {@link EventConsumer} dead-lettering) and the consumer goes on with the
 * next record.
 *
 * <p>Concurrency: one consumer thread (see {@link EventConsumer}); {@link #handle} and {@link
 * #awaitPublished} both run on it, so the list of unacknowledged sends needs no lock.
 */
@Context
@Requires(property = "stagecraft.kafka.enabled", notEquals = "false")
public final class ActionResultListener {
  static final String GROUP = Topics.STATE_GROUP;
  private static final Logger LOG = LoggerFactory.getLogger(ActionResultListener.class);

  private final StateHistory history;
  private final KafkaSettings settings;
  private final String instanceId;
  private final Duration commitInterval;
  private Duration sessionTimeout = Duration.ofSeconds(10);
  private final EventSchemaValidator validator = new EventSchemaValidator();
  private EventPublisher publisher;
  private volatile EventConsumer consumer;
  private volatile boolean stopping;
  private final AtomicLong transientFailures = new AtomicLong();
  private MeterRegistry meters = new CompositeMeterRegistry(); // none: records nothing
  private Timer append = Timer.builder("stagecraft.state.append").register(meters);

  /** A sent {@code state.recorded} and the broker's acknowledgement of it. */
  private record Sent(EventEnvelope envelope, Future<RecordMetadata> ack) {}

  /** Sent since the last offset commit; touched only on the consumer thread. */
  private final List<Sent> unacknowledged = new ArrayList<>();

  @Inject
  public ActionResultListener(
      StateHistory history,
      @Value("${stagecraft.kafka-bootstrap}") String bootstrap,
      @Value("${stagecraft.kafka-username:}") String kafkaUsername,
      @Value("${stagecraft.kafka-password:}") String kafkaPassword,
      @Value("${stagecraft.kafka-security-protocol:}") String kafkaSecurityProtocol,
      @Value("${stagecraft.instance-id:state-1}") String instanceId,
      @Value("${stagecraft.state.offset-commit-interval:1s}") Duration commitInterval,
      @Value("${stagecraft.state.session-timeout:10s}") Duration sessionTimeout,
      MeterRegistry meters) {
    this(
        history,
        KafkaSettings.of(bootstrap, kafkaUsername, kafkaPassword, kafkaSecurityProtocol),
        instanceId,
        commitInterval);
    this.sessionTimeout = sessionTimeout;
    this.meters = meters;
    this.append =
        Timer.builder("stagecraft.state.append")
            .description("Time to record one action result in the state's event log")
            .publishPercentileHistogram()
            .register(meters);
  }

  /** A listener whose clients use {@code settings} (its principal, if any). */
  public ActionResultListener(
      StateHistory history, KafkaSettings settings, String instanceId, Duration commitInterval) {
    this.history = history;
    this.settings = settings;
    this.instanceId = instanceId;
    this.commitInterval = commitInterval;
  }

  @PostConstruct
  void start() {
    // only the topics it uses: the state service's principal may see no others
    TopicBootstrap.ensureTopics(
        settings,
        List.of(Topics.ACTION_EVENTS, Topics.STATE_EVENTS, EventConsumer.DEAD_LETTER_TOPIC),
        4,
        (short) 1);
    publisher = new EventPublisher(settings, instanceId + "-state-recorded");
    consumer =
        new EventConsumer(
                settings,
                GROUP,
                instanceId,
                "earliest",
                // a killed instance's partitions move to the others this soon (client default 45 s)
                sessionTimeout,
                List.of(Topics.ACTION_EVENTS),
                publisher,
                this::handle)
            .beforeCommit(this::awaitPublished)
            // a redelivered result is answered with its first envelope (idempotent by event id),
            // so offsets need not be committed after every record (ADR 0045)
            .commitEvery(commitInterval);
    ConsumerMeters.bind(consumer, GROUP, meters).start();
  }

  /**
   * The last instant its consumer had no connection to any broker (now, before it started), for the
   * readiness detail {@code broker}.
   */
  public Instant lastOutage() {
    EventConsumer c = consumer;
    return c == null ? Instant.now() : c.lastOutage();
  }

  void handle(EventEnvelope event) throws InterruptedException {
    if (!EventType.ACTION_FINISHED.type().equals(event.type())) {
      return; // started / log lines do not change state
    }
    List<String> violations =
        validator.validate(new String(EventCodec.encode(event), StandardCharsets.UTF_8));
    if (!violations.isEmpty()) {
      throw new MalformedEventException(
          "action.finished " + event.id() + " violates its schema: " + violations);
    }
    ActionFinished finished = EventCodec.data(event, ActionFinished.class);
    if (blank(event.workspace()) || blank(finished.runId()) || blank(finished.actionId())) {
      throw new MalformedEventException(
          "action.finished " + event.id() + " lacks workspace, runId or actionId");
    }
    try (RunLogContext logContext =
        RunLogContext.open(
            event.tenant(), event.workspace(), finished.runId(), finished.actionId())) {
      record(event, finished);
    }
  }

  /** Records the result, retrying transient failures with backoff; see {@link #handle}. */
  private void record(EventEnvelope event, ActionFinished finished) throws InterruptedException {
    long backoffMillis = 100;
    while (true) {
      boolean recorded = false;
      try {
        // only a result proven with its run's active state credential changes state (ADR 0013):
        // the service's StateHistory records through a log gated by it (StateHistoryFactory)
        long start = System.nanoTime();
        EventEnvelope envelope = history.results().record(event, finished).envelope();
        append.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
        recorded = true;
        unacknowledged.add(new Sent(envelope, publisher.send(envelope, envelope.workspaceKey())));
        return;
      } catch (SQLException | RuntimeException e) {
        // a failed send is retried (the store answers the redelivery with the same envelope)
        Optional<String> permanent = recorded ? Optional.empty() : permanentFailure(e);
        if (permanent.isPresent()) {
          // the same input fails the same way every time: dead-letter it and go on
          throw new MalformedEventException(
              "action.finished " + event.id() + " cannot be recorded: " + permanent.get(), e);
        }
        if (stopping) {
          throw new IllegalStateException("stopping while recording " + event.id(), e);
        }
        transientFailures.incrementAndGet();
        LOG.warn(
            "recording {} failed, retrying in {} ms: {}", event.id(), backoffMillis, e.toString());
        Thread.sleep(backoffMillis); // backoff of a transient failure on the consumer thread
        backoffMillis = Math.min(backoffMillis * 2, 5_000);
      }
    }
  }

  /**
   * Runs before each offset commit: waits until the broker acknowledged every {@code
   * state.recorded} sent since the last commit. {@code flush} alone does not say whether a send
   * failed (after the producer's own retries), so a failed one is published again, waiting this
   * time, with backoff until it succeeds; when the service stops first this throws, the offsets
   * stay uncommitted and the records are redelivered, which re-publishes the same envelopes.
   */
  void awaitPublished() {
    publisher.flush();
    for (Sent sent : unacknowledged) {
      try {
        sent.ack().get(); // complete: flush waited for it
      } catch (ExecutionException e) {
        republish(sent.envelope(), e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while awaiting publication", e);
      }
    }
    unacknowledged.clear();
  }

  private void republish(EventEnvelope envelope, Throwable failure) {
    long backoffMillis = 100;
    while (true) {
      LOG.warn("publishing {} failed, publishing it again: {}", envelope.id(), failure.toString());
      try {
        publisher.publish(envelope, envelope.workspaceKey());
        return;
      } catch (RuntimeException e) {
        if (stopping) {
          throw new IllegalStateException("stopping while publishing " + envelope.id(), e);
        }
        failure = e;
      }
      try {
        Thread.sleep(backoffMillis); // backoff of a broker failure on the consumer thread
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while publishing " + envelope.id(), e);
      }
      backoffMillis = Math.min(backoffMillis * 2, 5_000);
    }
  }

  /**
   * Whether recording failed for good — the same event would fail the same way on every retry — and
   * why; empty for a failure worth retrying. Permanent: the database refused the data itself
   * (SQLSTATE class 22, data exception, e.g. a string jsonb cannot hold; class 23, an integrity
   * constraint, except a unique violation, which a race can cause and a retry resolves) and any
   * runtime exception that is not a database error (the store or the decider cannot handle this
   * input). Transient, retried with backoff forever: every other {@link SQLException} — connection
   * lost or refused (08), serialization failure or deadlock (40), PostgreSQL shutting down or
   * starting (57), out of resources (53), and unknown states — as well as a database error wrapped
   * in a runtime exception. The reason names the SQLSTATE and the server's message without its
   * detail lines (which may quote the refused data).
   */
  static Optional<String> permanentFailure(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql) {
        String state = sql.getSQLState();
        if (state != null
            && (state.startsWith("22") || (state.startsWith("23") && !state.equals("23505")))) {
          // only the first line: the server's detail may quote the refused row's values
          String message = String.valueOf(sql.getMessage()).lines().findFirst().orElse("");
          return Optional.of("the database refuses it (SQLSTATE " + state + "): " + message);
        }
        return Optional.empty();
      }
    }
    return failure instanceof RuntimeException
        ? Optional.of("the state store cannot process it: " + failure)
        : Optional.empty();
  }

  /** How many recording attempts failed transiently (and were retried) since the start. */
  long transientFailures() {
    return transientFailures.get();
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }

  @PreDestroy
  void stop() {
    stopping = true;
    if (consumer != null) {
      consumer.close();
    }
    if (publisher != null) {
      publisher.close();
    }
  }
}
