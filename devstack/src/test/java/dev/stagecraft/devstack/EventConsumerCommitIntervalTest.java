package dev.stagecraft.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.platform.kafka.EventConsumer;
import dev.stagecraft.platform.kafka.EventPublisher;
import dev.stagecraft.platform.kafka.KafkaSettings;
import dev.stagecraft.platform.kafka.TopicBootstrap;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link EventConsumer#commitEvery}: handled offsets committed at most once per interval, and
 * always before a partition moves to another member or the consumer closes (ADR 0045). Real KRaft
 * broker; committed offsets are read back with the admin client, commits counted with the
 * consumer's before-commit hook (it runs before every commit).
 */
class EventConsumerCommitIntervalTest {
  static Path dir;
  static EmbeddedKafka kafka;
  static KafkaSettings settings;
  static EventPublisher deadLetters;
  static KafkaProducer<String, byte[]> producer;
  static Admin admin;

  @BeforeAll
  static void startKafka() throws Exception {
    dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "commit-interval");
    kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0);
    settings = new KafkaSettings(kafka.bootstrapServers());
    TopicBootstrap.ensureTopics(settings, 1, (short) 1); // the dead-letter topic
    deadLetters = new EventPublisher(settings, "commit-interval-test");
    producer = new KafkaProducer<>(settings.producer("commit-interval-records"));
    admin =
        Admin.create(
            Map.<String, Object>of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()));
  }

  @AfterAll
  static void stopKafka() {
    admin.close();
    producer.close();
    deadLetters.close();
    kafka.close();
  }

  @Test
  void recordsHandledWithinTheIntervalAreCommittedOnceWhenTheConsumerCloses() throws Exception {
    String topic = newTopic(2);
    List<String> sent = publish(topic, "r", 10);
    String group = "interval-close-" + UUID.randomUUID();
    List<String> handled = new CopyOnWriteArrayList<>();
    AtomicInteger commits = new AtomicInteger();
    EventConsumer consumer = consumer(group, topic, handled).beforeCommit(commits::incrementAndGet);
    consumer.commitEvery(Duration.ofHours(1));
    try (EventConsumer started = consumer.start()) {
      await().atMost(Duration.ofSeconds(60)).until(() -> handled.containsAll(sent));
      assertThat(commits.get()).as("commits while the interval runs").isZero();
      assertThat(committed(group)).isEmpty();
    }
    assertThat(commits.get()).as("commits on close").isEqualTo(1);
    assertThat(committed(group)).isEqualTo(endOffsets(topic, 2));
  }

  @Test
  void withoutAnIntervalEveryBatchIsCommittedWhileTheConsumerRuns() throws Exception {
    // the control for the test above: the default commits before the consumer closes
    handleAllAndAwaitTheirCommitWhileRunning(2, 10, Duration.ZERO);
  }

  @Test
  void anElapsedIntervalCommitsWithoutANewRecordOrAClose() throws Exception {
    // nothing more is published once they are handled: the empty polls commit once the interval
    // has passed
    handleAllAndAwaitTheirCommitWhileRunning(1, 3, Duration.ofMillis(300));
  }

  @Test
  void aMemberThatJoinsGetsNoRecordTheOldOwnerHandledBeforeTheRebalance() throws Exception {
    String topic = newTopic(2);
    List<String> first = publish(topic, "first", 10);
    String group = "interval-rebalance-" + UUID.randomUUID();
    List<String> byA = new CopyOnWriteArrayList<>();
    List<String> byB = new CopyOnWriteArrayList<>();
    AtomicInteger commitsOfA = new AtomicInteger();
    EventConsumer a = consumer(group, topic, byA).beforeCommit(commitsOfA::incrementAndGet);
    a.commitEvery(Duration.ofHours(1));
    try (EventConsumer startedA = a.start()) {
      await().atMost(Duration.ofSeconds(60)).until(() -> byA.containsAll(first));
      assertThat(commitsOfA.get()).isZero();
      EventConsumer b = consumer(group, topic, byB);
      b.commitEvery(Duration.ofHours(1));
      try (EventConsumer startedB = b.start()) {
        assertThat(startedB.awaitAssignment(Duration.ofSeconds(60))).isTrue();
        List<String> markers = publish(topic, "marker", 10);
        await().atMost(Duration.ofSeconds(60)).until(() -> union(byA, byB).containsAll(markers));
        assertThat(byB).as("B owns a partition and read it").isNotEmpty();
        // B got it after A gave it up, committing what it had handled
        assertThat(commitsOfA.get()).as("A's commit on revocation").isPositive();
      }
    }
    List<String> all = new ArrayList<>(byA);
    all.addAll(byB);
    assertThat(all.stream().filter(first::contains).toList())
        .as("each record handled before the rebalance, handled once")
        .containsExactlyInAnyOrderElementsOf(first);
  }

  @Test
  void aNegativeIntervalIsRefused() throws Exception {
    EventConsumer consumer =
        consumer("refused-" + UUID.randomUUID(), newTopic(1), new ArrayList<>());
    try {
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () -> consumer.commitEvery(Duration.ofMillis(-1)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("cannot be negative");
    } finally {
      consumer.start().close();
    }
  }

  // --- fixtures -----------------------------------------------------------------------------

  /**
   * Publishes {@code count} records to a new topic, consumes them with {@code interval}, and waits
   * (consumer still open) until the group's committed offsets reach the topic's end.
   */
  private static void handleAllAndAwaitTheirCommitWhileRunning(
      int partitions, int count, Duration interval) throws Exception {
    String topic = newTopic(partitions);
    List<String> sent = publish(topic, "r", count);
    String group = "interval-running-" + UUID.randomUUID();
    List<String> handled = new CopyOnWriteArrayList<>();
    EventConsumer consumer = consumer(group, topic, handled);
    consumer.commitEvery(interval);
    try (EventConsumer started = consumer.start()) {
      await().atMost(Duration.ofSeconds(60)).until(() -> handled.containsAll(sent));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> committed(group).equals(endOffsets(topic, partitions)));
    }
  }

  private static EventConsumer consumer(String group, String topic, List<String> handled) {
    return EventConsumer.ofRecords(
        settings,
        group,
        group + "-" + UUID.randomUUID(),
        "earliest",
        List.of(topic),
        deadLetters,
        record -> handled.add(new String(record.value(), StandardCharsets.UTF_8)));
  }

  private static String newTopic(int partitions) throws Exception {
    String topic = "commit-interval-" + UUID.randomUUID();
    admin
        .createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
        .all()
        .get(30, TimeUnit.SECONDS);
    // created is not yet known everywhere: the broker may answer a describe with "unknown topic"
    // for a moment (KRaft metadata propagation), so wait until every partition has a leader
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () ->
                admin
                    .describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get(topic)
                    .partitions()
                    .stream()
                    .allMatch(p -> p.leader() != null && !p.leader().isEmpty()));
    return topic;
  }

  /** Publishes {@code count} records spread over the topic's partitions, waiting for each. */
  private static List<String> publish(String topic, String prefix, int count) throws Exception {
    int partitions =
        admin
            .describeTopics(List.of(topic))
            .allTopicNames()
            .get(30, TimeUnit.SECONDS)
            .get(topic)
            .partitions()
            .size();
    List<String> values = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String value = prefix + "-" + i + "-" + UUID.randomUUID();
      producer
          .send(
              new ProducerRecord<>(
                  topic, i % partitions, "k", value.getBytes(StandardCharsets.UTF_8)))
          .get(30, TimeUnit.SECONDS);
      values.add(value);
    }
    return values;
  }

  private static Map<TopicPartition, Long> committed(String group) throws Exception {
    return admin
        .listConsumerGroupOffsets(group)
        .partitionsToOffsetAndMetadata()
        .get(30, TimeUnit.SECONDS)
        .entrySet()
        .stream()
        .filter(e -> e.getValue() != null)
        .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
  }

  private static Map<TopicPartition, Long> endOffsets(String topic, int partitions)
      throws Exception {
    Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> latest =
        new java.util.HashMap<>();
    for (int p = 0; p < partitions; p++) {
      latest.put(new TopicPartition(topic, p), org.apache.kafka.clients.admin.OffsetSpec.latest());
    }
    return admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).entrySet().stream()
        .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
  }

  private static List<String> union(Collection<String> a, Collection<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }
}
