package dev.stagecraft.executor.adapter;

import static org.awaitility.Awaitility.await;

import dev.stagecraft.devstack.EmbeddedKafka;
import dev.stagecraft.platform.kafka.EventPublisher;
import dev.stagecraft.platform.kafka.KafkaSettings;
import dev.stagecraft.schemas.Topics;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The fixture the executor's integration tests share, as a JUnit extension on a static field: a
 * real embedded Kafka broker in its own temporary directory for the test class, a publisher that
 * stands in for the planner, optionally the executor application against the broker, and for each
 * test a new consumer of the action events (its own group, from the earliest offset). Everything is
 * stopped after the class (the executor first) and the directory deleted. Used from the JUnit
 * thread only.
 */
final class KafkaTestBroker
    implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {
  private final String dirPrefix;
  private final Map<String, Object> executorSettings;
  private Path dir;
  private Path shared;
  private EmbeddedKafka kafka;
  private EventPublisher planner;
  private EmbeddedServer executor;
  private KafkaConsumer<String, byte[]> events;

  private KafkaTestBroker(String dirPrefix, Map<String, Object> executorSettings) {
    this.dirPrefix = dirPrefix;
    this.executorSettings = executorSettings;
  }

  /** A broker only: the test class starts executors itself. */
  static KafkaTestBroker withoutExecutor(String dirPrefix) {
    return new KafkaTestBroker(dirPrefix, null);
  }

  /**
   * A broker and the executor application on it; {@code settings} come on top of {@code
   * stagecraft.kafka}, which points at the broker.
   */
  static KafkaTestBroker withExecutor(String dirPrefix, Map<String, Object> settings) {
    return new KafkaTestBroker(dirPrefix, Map.copyOf(settings));
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    dir = Files.createTempDirectory(dirPrefix);
    Files.setAttribute(dir, "unix:mode", 0711); // the sandbox reaches shared/, lists nothing
    shared = Files.createDirectory(dir.resolve("shared"));
    Files.setAttribute(shared, "unix:mode", 01777);
    kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0);
    planner = new EventPublisher(new KafkaSettings(kafka.bootstrapServers()), "test-planner");
    if (executorSettings != null) {
      Map<String, Object> all = new LinkedHashMap<>();
      all.put("stagecraft.kafka", kafka.bootstrapServers());
      all.put("stagecraft.executor.sandbox.shared-paths", shared.toString());
      all.putAll(executorSettings);
      executor = ApplicationContext.run(EmbeddedServer.class, all);
    }
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    events =
        new KafkaConsumer<>(
            new KafkaSettings(kafka.bootstrapServers())
                .consumer("test-" + UUID.randomUUID(), "test-observer", "earliest"));
    events.subscribe(List.of(Topics.ACTION_EVENTS));
  }

  @Override
  public void afterEach(ExtensionContext context) {
    if (events != null) {
      events.close();
      events = null;
    }
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    if (executor != null) {
      executor.getApplicationContext().close();
    }
    if (planner != null) {
      planner.close();
    }
    if (kafka != null) {
      kafka.close();
    }
    if (dir != null) {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  String bootstrapServers() {
    return kafka.bootstrapServers();
  }

  /**
   * A directory every sandboxed local-exec command of the executor can read and write (the
   * executor's {@code shared-paths}): where the tests' commands leave files for the test.
   */
  Path shared() {
    return shared;
  }

  /** The publisher the tests send their planner events with (client id {@code test-planner}). */
  EventPublisher planner() {
    return planner;
  }

  /** The executor application ({@link #withExecutor} only). */
  EmbeddedServer executor() {
    return executor;
  }

  /**
   * The executor's {@code /health} once it answers 200: it is ready once its consumer reached the
   * broker (readiness detail {@code broker}).
   */
  HttpResponse<String> readyHealth() {
    HttpClient http = HttpClient.newHttpClient();
    HttpRequest get = HttpRequest.newBuilder(URI.create(executor.getURL() + "/health")).build();
    return await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> http.send(get, HttpResponse.BodyHandlers.ofString()), r -> r.statusCode() == 200);
  }

  /** The current test's consumer of the action events. */
  KafkaConsumer<String, byte[]> events() {
    return events;
  }
}
