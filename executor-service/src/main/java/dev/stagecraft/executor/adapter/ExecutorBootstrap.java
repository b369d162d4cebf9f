package dev.stagecraft.executor.adapter;

import dev.stagecraft.executor.adapter.ssh.SshjRemoteConnector;
import dev.stagecraft.executor.step.ActionRunner;
import dev.stagecraft.platform.kafka.EventConsumer;
import dev.stagecraft.platform.kafka.EventPublisher;
import dev.stagecraft.platform.kafka.KafkaSettings;
import dev.stagecraft.platform.kafka.TopicBootstrap;
import dev.stagecraft.schemas.Topics;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Value;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wires the executor to Kafka when the application context starts and takes it down, in order, when
 * the context closes: stop polling, let running actions finish (bounded by {@code
 * stagecraft.executor.shutdown-grace}), flush and close the producer.
 *
 * <p>Concurrency: {@link #start} and {@link #close} are called by the context, once each, on one
 * thread; the consumer and the actions run on their own threads.
 */
@Context
public final class ExecutorBootstrap implements AutoCloseable {
  static final String GROUP = "executors";
  private static final Logger LOG = LoggerFactory.getLogger(ExecutorBootstrap.class);

  private final KafkaSettings settings;
  private final String executorId;
  private final int concurrency;
  private final Duration shutdownGrace;
  private EventPublisher publisher;
  private DispatchedActionHandler handler;
  private EventConsumer consumer;

  ExecutorBootstrap(
      @Value("${stagecraft.kafka}") String bootstrapServers,
      @Value("${stagecraft.instance-id:}") String instanceId,
      @Value("${stagecraft.executor.concurrency:16}") int concurrency,
      @Value("${stagecraft.executor.shutdown-grace:30s}") Duration shutdownGrace) {
    if (concurrency < 1) {
      throw new IllegalArgumentException(
          "STAGECRAFT_EXECUTOR_CONCURRENCY must be at least 1, got " + concurrency);
    }
    this.settings = new KafkaSettings(bootstrapServers);
    this.executorId =
        instanceId == null || instanceId.isBlank()
            ? "executor-"
                + HexFormat.of().toHexDigits((short) ThreadLocalRandom.current().nextInt())
            : instanceId;
    this.concurrency = concurrency;
    this.shutdownGrace = shutdownGrace;
  }

  @PostConstruct
  void start() {
    TopicBootstrap.ensureTopics(settings, 4, (short) 1);
    publisher = new EventPublisher(settings, executorId);
    handler =
        new DispatchedActionHandler(
            new ActionRunner(Path.of("").toAbsolutePath(), new SshjRemoteConnector()),
            publisher,
            executorId,
            concurrency);
    consumer =
        new EventConsumer(
                settings,
                GROUP,
                executorId,
                "earliest",
                List.of(Topics.ACTIONS),
                publisher,
                handler)
            .start();
    LOG.info(
        "executor {} consuming {} (group {}), up to {} actions at once",
        executorId,
        Topics.ACTIONS,
        GROUP,
        concurrency);
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
    try {
      if (!handler.awaitRunning(shutdownGrace)) {
        LOG.error("executor {} stopped with actions still running", executorId);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    publisher.flush();
    publisher.close();
    consumer = null;
    LOG.info("executor {} stopped", executorId);
  }
}
