package dev.stagecraft.state.adapter.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.devstack.EmbeddedKafka;
import dev.stagecraft.devstack.EmbeddedPostgresServer;
import dev.stagecraft.platform.kafka.EventConsumer;
import dev.stagecraft.platform.kafka.EventPublisher;
import dev.stagecraft.platform.kafka.KafkaSettings;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.Topics;
import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.state.StateRecorded;
import dev.stagecraft.servicekit.db.Databases;
import dev.stagecraft.state.adapter.db.RunCredentialStore;
import dev.stagecraft.state.adapter.db.StateHistoryFactory;
import dev.stagecraft.state.adapter.db.StateStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@link ActionResultListener}'s two classes of failure against a real broker and a real
 * PostgreSQL: a result the database refuses for good is dead-lettered with the reason and the
 * consumer goes on; a database outage (PostgreSQL stopped, then started again on the same data and
 * port) is retried until the result is recorded, and nothing is dead-lettered.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ActionResultListenerFailureTest {
  private static final String TENANT = "failures";
  private static final String APP = "stateful_provisioning.app";

  private Path dir;
  private EmbeddedPostgresServer postgres;
  private int postgresPort;
  private EmbeddedKafka kafka;
  private HikariDataSource dataSource;
  private ActionResultListener listener;
  private EventPublisher executor;
  private KafkaConsumer<String, byte[]> stateEvents;
  private KafkaConsumer<String, byte[]> deadLetters;
  private final List<EventEnvelope> recorded = new ArrayList<>();
  private final List<ConsumerRecord<String, byte[]>> deadLettered = new ArrayList<>();
  private final EventCodec executorCodec = EventCodec.forSource("/test/executor");

  @BeforeAll
  void start() throws Exception {
    dir = Files.createTempDirectory(Path.of("target"), "listener-failures");
    postgres = EmbeddedPostgresServer.start(dir.resolve("pg").resolve("data"), 0);
    postgresPort = postgres.port();
    kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0);
    dataSource =
        Databases.migrateAndPool(
            postgres.jdbcUrl(),
            postgres.user(),
            postgres.password(),
            "state",
            "classpath:db/migration");
    dataSource.setConnectionTimeout(1_000); // fail fast while the database is down
    listener =
        new ActionResultListener(
            StateHistoryFactory.over(
                new StateStore(dataSource, Clock.systemUTC()), RunCredentialStore::refusal),
            new KafkaSettings(kafka.bootstrapServers()),
            "state-failures",
            Duration.ofSeconds(1));
    listener.start();
    KafkaSettings settings = new KafkaSettings(kafka.bootstrapServers());
    executor = new EventPublisher(settings, "test-executor");
    stateEvents =
        new KafkaConsumer<>(settings.consumer("test-" + UUID.randomUUID(), "test", "earliest"));
    stateEvents.subscribe(List.of(Topics.STATE_EVENTS));
    deadLetters =
        new KafkaConsumer<>(settings.consumer("dlq-" + UUID.randomUUID(), "test", "earliest"));
    deadLetters.subscribe(List.of(EventConsumer.DEAD_LETTER_TOPIC));
  }

  @AfterAll
  void stop() throws Exception {
    for (AutoCloseable c : new AutoCloseable[] {stateEvents, deadLetters, executor}) {
      if (c != null) {
        c.close();
      }
    }
    if (listener != null) {
      listener.stop(); // before the broker, or its clients retry for long
    }
    if (kafka != null) {
      kafka.close();
    }
    if (dataSource != null) {
      dataSource.close();
    }
    if (postgres != null) {
      postgres.close();
    }
    if (dir != null) {
      try (var paths = Files.walk(dir)) {
        paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  @Test
  void aResultTheDatabaseRefusesForGoodIsDeadLetteredWithTheReasonAndTheNextIsRecorded()
      throws Exception {
    // valid JSON and valid against its schema, but jsonb cannot hold U+0000: the outcome row with
    // this address is refused (SQLSTATE 22P05) on every attempt
    EventEnvelope poison = finished("poison", "act-1", APP + "\u0000");
    EventEnvelope next = finished("poison", "act-2", APP);
    executor.publish(poison, poison.workspaceKey());
    executor.publish(next, next.workspaceKey());

    ConsumerRecord<String, byte[]> dead = awaitDeadLetter(poison.id());
    assertThat(header(dead, "stagecraft-error"))
        .contains(poison.id())
        .contains("cannot be recorded")
        .contains("SQLSTATE 22P05");
    assertThat(header(dead, "stagecraft-origin")).startsWith(Topics.ACTION_EVENTS);
    assertThat(EventCodec.decode(dead.value()).id()).isEqualTo(poison.id());

    assertThat(awaitRecorded("act-2").outcome()).isNotBlank(); // the consumer went on
    assertThat(outcomes("poison")).containsExactly("act-2");
    assertThat(recordedFor("act-1")).isEmpty();
  }

  @Test
  void aDatabaseOutageIsRetriedUntilPostgresIsBackAndNothingIsDeadLettered() throws Exception {
    long failuresBefore = listener.transientFailures();
    postgres.close();
    postgres = null;
    EventEnvelope during = finished("outage", "act-3", APP);
    executor.publish(during, during.workspaceKey());

    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> listener.transientFailures() > failuresBefore);
    postgres = EmbeddedPostgresServer.start(dir.resolve("pg").resolve("data"), postgresPort);

    StateRecorded data = awaitRecorded("act-3");
    assertThat(data.runId()).isEqualTo("run-1");
    assertThat(outcomes("outage")).containsExactly("act-3");
    pollDeadLetters();
    assertThat(deadLettered)
        .extracting(r -> EventCodec.decode(r.value()).id())
        .doesNotContain(during.id());
  }

  // --- fixtures -----------------------------------------------------------------------------

  private EventEnvelope finished(String workspace, String actionId, String address) {
    return executorCodec.wrap(
        TENANT,
        workspace,
        "run-1",
        3,
        address,
        new ActionFinished(
            "run-1",
            actionId,
            address,
            "stateful_provisioning",
            "create",
            "succeeded",
            null,
            null,
            Map.of("id", "i-" + actionId),
            List.of(),
            1,
            "exec-1"));
  }

  private ConsumerRecord<String, byte[]> awaitDeadLetter(String eventId) {
    List<ConsumerRecord<String, byte[]>> found = new ArrayList<>();
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              pollDeadLetters();
              found.clear();
              for (ConsumerRecord<String, byte[]> r : deadLettered) {
                if (EventCodec.decode(r.value()).id().equals(eventId)) {
                  found.add(r);
                }
              }
              assertThat(found).isNotEmpty();
            });
    return found.get(0);
  }

  private void pollDeadLetters() {
    for (ConsumerRecord<String, byte[]> r : deadLetters.poll(Duration.ofMillis(200))) {
      deadLettered.add(r);
    }
  }

  private StateRecorded awaitRecorded(String actionId) {
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(() -> assertThat(recordedFor(actionId)).isNotEmpty());
    return recordedFor(actionId).get(0);
  }

  private List<StateRecorded> recordedFor(String actionId) {
    for (ConsumerRecord<String, byte[]> r : stateEvents.poll(Duration.ofMillis(100))) {
      recorded.add(EventCodec.decode(r.value()));
    }
    return recorded.stream()
        .map(e -> EventCodec.data(e, StateRecorded.class))
        .filter(d -> actionId.equals(d.actionId()))
        .toList();
  }

  private List<String> outcomes(String workspace) throws Exception {
    List<String> actions = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT action_id FROM state.action_outcomes WHERE tenant = ? AND workspace = ?"
                    + " ORDER BY action_id")) {
      ps.setString(1, TENANT);
      ps.setString(2, workspace);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          actions.add(rs.getString(1));
        }
      }
    }
    return actions;
  }

  private static String header(ConsumerRecord<String, byte[]> record, String name) {
    Header h = record.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }
}
