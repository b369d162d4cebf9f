package dev.stagecraft.executor.adapter;

import dev.stagecraft.executor.adapter.ssh.SshjRemoteConnector;
import dev.stagecraft.executor.step.ActionRunner;
import dev.stagecraft.executor.step.RunConnectionPool;
import dev.stagecraft.platform.auth.CredentialNeeds;
import dev.stagecraft.platform.auth.ServiceCredentials;
import dev.stagecraft.platform.kafka.EventConsumer;
import dev.stagecraft.platform.kafka.EventPublisher;
import dev.stagecraft.platform.kafka.KafkaSettings;
import dev.stagecraft.platform.kafka.TopicBootstrap;
import dev.stagecraft.platform.secrets.SecretsSetting;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.EventType;
import dev.stagecraft.schemas.Topics;
import dev.stagecraft.schemas.control.RunCancelRequested;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import dev.stagecraft.servicekit.metrics.ConsumerMeters;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Value;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wires the executor to Kafka when the application context starts and takes it down, in order, when
 * the context closes: stop polling, let running actions finish (bounded by {@code
 * stagecraft.executor.shutdown-grace}), close the pooled SSH connections, flush and close the
 * producer.
 *
 * <p>Concurrency: {@link #start} and {@link #close} are called by the context, once each, on one
 * thread; the consumer and the actions run on their own threads.
 */
@Context
public final class ExecutorBootstrap implements AutoCloseable {
  static final String GROUP = Topics.EXECUTORS_GROUP;
  private static final Logger LOG = LoggerFactory.getLogger(ExecutorBootstrap.class);

  private final KafkaSettings settings;
  private final String executorId;
  private final int concurrency;
  private final Duration shutdownGrace;
  private final SecretsKeyring secrets;
  private final RunConnectionPool connections;
  private final SandboxSetup sandbox;
  private final long stepOutputLimit;
  private EventPublisher publisher;
  private DispatchedActionHandler handler;
  private final ExecutorMetrics metrics;
  private final MeterRegistry meters;
  private volatile EventConsumer consumer;
  private EventConsumer control;

  /** How often a running action sends {@code action.heartbeat}. */
  @Value("${stagecraft.executor.heartbeat-interval:2s}")
  Duration heartbeatInterval;

  /** A dispatch older than this (by its envelope time) is not run; shorter than the planner's. */
  @Value("${stagecraft.executor.dispatch-expiry:5m}")
  Duration dispatchExpiry;

  /** How soon the group notices a dead executor and moves its partitions to the others. */
  @Value("${stagecraft.executor.session-timeout:10s}")
  Duration sessionTimeout;

  ExecutorBootstrap(
      @Value("${stagecraft.kafka}") String bootstrapServers,
      @Value("${stagecraft.kafka-username:}") String kafkaUsername,
      @Value("${stagecraft.kafka-password:}") String kafkaPassword,
      @Value("${stagecraft.kafka-security-protocol:}") String kafkaSecurityProtocol,
      @Value("${stagecraft.instance-id:}") String instanceId,
      @Value("${stagecraft.executor.concurrency:16}") int concurrency,
      @Value("${stagecraft.executor.shutdown-grace:30s}") Duration shutdownGrace,
      @Value("${stagecraft.secrets-keys:}") String secretsKeys,
      @Value("${stagecraft.secrets-required:false}") boolean secretsRequired,
      @Value("${stagecraft.executor.ssh-idle-timeout:30s}") Duration sshIdleTimeout,
      @Value("${stagecraft.executor.ssh-run-linger:5s}") Duration sshRunLinger,
      @Value("${stagecraft.executor.ssh-max-sessions:10}") int sshMaxSessions,
      SandboxConfiguration sandbox,
      MeterRegistry meters) {
    // holds no service token: refuses to start with one in its environment (local-exec could read
    // it)
    ServiceCredentials.load(CredentialNeeds.EXECUTOR_SERVICE, role -> null, System.getenv());
    if (concurrency < 1) {
      throw new IllegalArgumentException(
          "STAGECRAFT_EXECUTOR_CONCURRENCY must be at least 1, got " + concurrency);
    }
    this.settings =
        KafkaSettings.of(bootstrapServers, kafkaUsername, kafkaPassword, kafkaSecurityProtocol);
    this.executorId =
        instanceId == null || instanceId.isBlank()
            ? "executor-"
                + HexFormat.of().toHexDigits((short) ThreadLocalRandom.current().nextInt())
            : instanceId;
    this.concurrency = concurrency;
    this.shutdownGrace = shutdownGrace;
    this.secrets = SecretsSetting.keyring(secretsKeys, secretsRequired, "executor");
    this.connections =
        new RunConnectionPool(
            new MeteredRemoteConnector(new SshjRemoteConnector(), meters),
            sshIdleTimeout,
            sshRunLinger,
            sshMaxSessions);
    this.sandbox = SandboxSetup.choose(sandbox.mode(), sandbox.settings());
    this.stepOutputLimit = sandbox.stepOutputLimit();
    this.meters = meters;
    this.metrics = new ExecutorMetrics(meters);
  }

  /** Where local-exec commands run, and what {@code /health} says of it. */
  SandboxSetup sandbox() {
    return sandbox;
  }

  /**
   * The last instant the dispatch consumer had no connection to any broker (now, before it
   * started), for the readiness detail {@code broker}.
   */
  Instant lastOutage() {
    EventConsumer c = consumer;
    return c == null ? Instant.now() : c.lastOutage();
  }

  /** The keyring that opens sealed dispatches (for {@code /health}). */
  public SecretsKeyring secrets() {
    return secrets;
  }

  @PostConstruct
  void start() {
    // only the topics it uses: the executor's principal may see no others (docs/operations.md)
    TopicBootstrap.ensureTopics(
        settings,
        List.of(
            Topics.ACTIONS, Topics.CONTROL, Topics.ACTION_EVENTS, EventConsumer.DEAD_LETTER_TOPIC),
        4,
        (short) 1);
    publisher = new EventPublisher(settings, executorId);
    handler =
        new DispatchedActionHandler(
                new ActionRunner(
                        sandbox.commands(),
                        new MeteredRemoteConnector(new SshjRemoteConnector(), meters))
                    .withStepOutputLimit(stepOutputLimit),
                publisher,
                executorId,
                concurrency,
                secrets)
            .shareConnectionsThrough(connections)
            .withMetrics(metrics);
    handler.withLiveness(heartbeatInterval, dispatchExpiry, Clock.systemUTC());
    EventConsumer actions =
        new EventConsumer(
            settings,
            GROUP,
            executorId,
            "earliest",
            sessionTimeout,
            List.of(Topics.ACTIONS),
            publisher,
            handler);
    ConsumerMeters.bind(actions, GROUP, meters);
    // claim = commit the dispatch's offset before running it (docs/adr/0007)
    handler.claimWith(actions::commitThroughCurrent);
    consumer = actions.start();
    // cancels concern the actions running now: every instance reads them all, from the latest
    control =
        new EventConsumer(
                settings,
                Topics.EXECUTOR_CONTROL_GROUP_PREFIX + executorId + "-" + UUID.randomUUID(),
                executorId + "-control",
                "latest",
                List.of(Topics.CONTROL),
                publisher,
                this::onControl)
            .start();
    try {
      if (!control.awaitAssignment(Duration.ofSeconds(60))) {
        LOG.warn(
            "executor {} did not join {} within 60 s; cancels may be missed",
            executorId,
            Topics.CONTROL);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    LOG.info(
        "executor {} consuming {} (group {}), up to {} actions at once",
        executorId,
        Topics.ACTIONS,
        GROUP,
        concurrency);
  }

  private void onControl(EventEnvelope event) {
    if (EventType.RUN_CANCEL_REQUESTED.type().equals(event.type())) {
      var cancel = EventCodec.data(event, RunCancelRequested.class);
      int stopped =
          handler.cancel(cancel.runId(), cancel.reason(), event.tenant(), event.workspace());
      LOG.info("run {} canceled: stopping {} running action(s) here", cancel.runId(), stopped);
    }
  }

  /** The id this executor reports in {@code action.started} and {@code action.finished}. */
  public String executorId() {
    return executorId;
  }

  @PreDestroy
  @Override
  public void close() {
    if (consumer == null) {
      return;
    }
    LOG.info("executor {} stopping: no new actions, waiting for running ones", executorId);
    handler.beginShutdown();
    consumer.close();
    control.close();
    try {
      if (!handler.awaitRunning(shutdownGrace)) {
        LOG.error("executor {} stopped with actions still running", executorId);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    connections.close();
    publisher.flush();
    publisher.close();
    consumer = null;
    LOG.info("executor {} stopped", executorId);
  }
}
