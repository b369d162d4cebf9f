package dev.stagecraft.planner.service.adapter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.devstack.EmbeddedKafka;
import dev.stagecraft.platform.kafka.EventConsumer;
import dev.stagecraft.platform.kafka.EventPublisher;
import dev.stagecraft.platform.kafka.KafkaSettings;
import dev.stagecraft.platform.kafka.TopicBootstrap;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.Topics;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.lock.LockLeaseExpired;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The planner's listeners (state events, action events, lock events) read with a group of their own
 * from the latest offset, so they commit no offsets ({@link EventConsumer#withoutOffsetCommits}):
 * no broker round trip per batch on the poll thread. Real KRaft broker; the group's committed
 * offsets are read back with the admin client.
 */
class ListenerOffsetCommitsTest {
  static Path dir;
  static EmbeddedKafka kafka;
  static KafkaSettings settings;
  static EventPublisher publisher;
  final AtomicInteger ids = new AtomicInteger();
  final EventCodec codec =
      new EventCodec(
          "/stagecraft/lock-service",
          Clock.fixed(Instant.parse("2026-11-21T10:00:00Z"), ZoneOffset.UTC),
          () -> "e" + ids.incrementAndGet());

  @BeforeAll
  static void startKafka() throws Exception {
    dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "offset-commits");
    kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0);
    settings = new KafkaSettings(kafka.bootstrapServers());
    TopicBootstrap.ensureTopics(settings, 2, (short) 1);
    publisher = new EventPublisher(settings, "offset-commits-test");
  }

  @AfterAll
  static void stopKafka() {
    publisher.close();
    kafka.close();
  }

  @Test
  void aListenerWithoutOffsetCommitsHandlesEveryEventAndCommitsNothing() throws Exception {
    String group = "planner-test-" + UUID.randomUUID();
    assertThat(handleTwoEventsAndReadCommittedOffsets(group, false)).isEmpty();
  }

  @Test
  void aConsumerWithCommitsCommitsWhatItHandled() throws Exception {
    // the control: the same two events through a committing consumer leave committed offsets
    String group = "committing-test-" + UUID.randomUUID();
    assertThat(handleTwoEventsAndReadCommittedOffsets(group, true)).isNotEmpty();
  }

  @Test
  void aListenerWithoutOffsetCommitsCannotClaimARecord() throws Exception {
    List<Throwable> refused = new CopyOnWriteArrayList<>();
    EventConsumer[] holder = new EventConsumer[1];
    holder[0] =
        new EventConsumer(
                settings,
                "planner-test-" + UUID.randomUUID(),
                "claim-test",
                "latest",
                List.of(Topics.LOCK_EVENTS),
                publisher,
                event -> {
                  try {
                    holder[0].commitThroughCurrent();
                  } catch (IllegalStateException e) {
                    refused.add(e);
                  }
                })
            .withoutOffsetCommits();
    try (EventConsumer consumer = holder[0].start()) {
      assertThat(consumer.awaitAssignment(Duration.ofSeconds(60))).isTrue();
      // "latest" is resolved after the assignment: publish until one arrives
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> {
                publish("ws-claim");
                return !refused.isEmpty();
              });
      assertThat(refused.get(0)).hasMessageContaining("does not commit offsets");
    }
    assertThatThrownBy(() -> holder[0].commitThroughCurrent())
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aClaimedRecordIsCommittedOnceNotAgainWithItsBatch() throws Exception {
    String group = "claiming-test-" + UUID.randomUUID();
    AtomicInteger claims = new AtomicInteger();
    AtomicInteger commits = new AtomicInteger();
    List<String> handled = new CopyOnWriteArrayList<>();
    EventConsumer[] holder = new EventConsumer[1];
    holder[0] =
        new EventConsumer(
                settings,
                group,
                group,
                "latest",
                List.of(Topics.LOCK_EVENTS),
                publisher,
                event -> {
                  if (holder[0].commitThroughCurrent()) {
                    claims.incrementAndGet();
                  }
                  handled.add(event.id());
                })
            .beforeCommit(commits::incrementAndGet);
    try (EventConsumer consumer = holder[0].start()) {
      assertThat(consumer.awaitAssignment(Duration.ofSeconds(60))).isTrue();
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> {
                publish("ws-claimed");
                return !handled.isEmpty();
              });
      String last = publish("ws-claimed");
      await().atMost(Duration.ofSeconds(30)).until(() -> handled.contains(last));
    } // closing finishes the batch in hand (and would commit what it left uncommitted)
    assertThat(claims.get()).isEqualTo(handled.size());
    assertThat(commits.get())
        .as("one commit per claim, none at the end of a batch")
        .isEqualTo(claims.get());
  }

  /**
   * Handles events until one arrived, then one more: a consumer commits a batch before it polls the
   * next, so once the last is handled the commits of the batches before it (if any) have been made.
   */
  private Map<TopicPartition, OffsetAndMetadata> handleTwoEventsAndReadCommittedOffsets(
      String group, boolean commits) throws Exception {
    List<String> handled = new CopyOnWriteArrayList<>();
    EventConsumer consumer =
        new EventConsumer(
            settings,
            group,
            group,
            "latest",
            List.of(Topics.LOCK_EVENTS),
            publisher,
            event -> handled.add(event.id()));
    if (!commits) {
      consumer.withoutOffsetCommits();
    }
    try (EventConsumer started = consumer.start()) {
      assertThat(started.awaitAssignment(Duration.ofSeconds(60))).isTrue();
      // "latest" is resolved after the assignment: publish until one arrives
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> {
                publish("ws-a");
                return !handled.isEmpty();
              });
      String second = publish("ws-a");
      await().atMost(Duration.ofSeconds(30)).until(() -> handled.contains(second));
    }
    try (Admin admin =
        Admin.create(
            Map.<String, Object>of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
      return admin
          .listConsumerGroupOffsets(group)
          .partitionsToOffsetAndMetadata()
          .get(30, TimeUnit.SECONDS);
    }
  }

  private String publish(String workspace) {
    EventEnvelope event =
        codec.wrap(
            "acme",
            workspace,
            null,
            1,
            "lock-1",
            new LockLeaseExpired("lock-1", "run-x", 1, Instant.parse("2026-11-21T10:00:00Z")));
    publisher.publish(event, "one-partition");
    return event.id();
  }
}
