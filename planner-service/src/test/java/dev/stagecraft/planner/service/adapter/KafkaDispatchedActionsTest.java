package dev.stagecraft.planner.service.adapter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stagecraft.devstack.EmbeddedKafka;
import dev.stagecraft.planner.service.run.recovery.DispatchedActions;
import dev.stagecraft.platform.kafka.KafkaSettings;
import dev.stagecraft.platform.kafka.TopicBootstrap;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.Topics;
import dev.stagecraft.schemas.action.ActionDispatched;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A restarted planner learns from {@code stagecraft.actions} itself (a real KRaft broker) which of
 * its unfinished runs dispatched an action, however their records lag (docs/adr/0029).
 */
class KafkaDispatchedActionsTest {
  static EmbeddedKafka kafka;
  static KafkaSettings settings;

  @BeforeAll
  static void startKafka() throws Exception {
    Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "dispatched-actions");
    kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0);
    settings = new KafkaSettings(kafka.bootstrapServers());
    // returns once every partition is led: a first idempotent batch is not met by NOT_LEADER
    TopicBootstrap.ensureTopics(settings, 3, (short) 1);
  }

  @AfterAll
  static void stopKafka() {
    kafka.close();
  }

  @Test
  void findsTheRunsWithADispatchSinceTheGivenTimeAndOnlyThose() throws Exception {
    Instant now = Instant.now();
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(settings.producer("dispatch-writer"))) {
      byte[] value = "{}".getBytes(StandardCharsets.UTF_8);
      // before the window: an older run of the same id space must not count
      producer.send(record("run-early/stateful_provisioning.app", now.minus(Duration.ofHours(1))));
      producer.send(record("run-a/stateful_provisioning.db", now));
      producer.send(record("run-a/stateful_provisioning.app", now));
      producer.send(record("run-other/stateful_provisioning.app", now));
      producer.send(new ProducerRecord<>(Topics.ACTIONS, null, now.toEpochMilli(), null, value));
      producer.flush();
    }
    KafkaDispatchedActions dispatched = new KafkaDispatchedActions(settings, "recovery-test");

    Set<String> found =
        dispatched.runsWithDispatches(
            List.of("run-a", "run-b", "run-early"), now.minus(Duration.ofMinutes(10)));

    assertThat(found).containsExactly("run-a");
    assertThat(dispatched.runsWithDispatches(List.of("run-early"), now.minus(Duration.ofHours(2))))
        .containsExactly("run-early");
    assertThat(dispatched.runsWithDispatches(List.of(), now)).isEmpty();
  }

  @Test
  void keepsTheFoundRunsDispatchesEachActionOnceAndRefusesToGuessAnUnreadableOne()
      throws Exception {
    // older than what the other test reads from, so its window does not see these records
    Instant now = Instant.now().minus(Duration.ofHours(3));
    EventCodec codec = EventCodec.forSource("/test/planner");
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(settings.producer("dispatch-writer-2"))) {
      for (String address : List.of("stateful_provisioning.db", "stateful_provisioning.app")) {
        ActionDispatched d = dispatch("run-k", address);
        byte[] value =
            EventCodec.encode(
                codec.wrapWithId(d.actionId(), "acme", "prod", "run-k", 1, address, d));
        producer.send(
            new ProducerRecord<>(
                Topics.ACTIONS, null, now.toEpochMilli(), "run-k/" + address, value));
      }
      ActionDispatched again = dispatch("run-k", "stateful_provisioning.db");
      producer.send(
          new ProducerRecord<>(
              Topics.ACTIONS,
              null,
              now.toEpochMilli(),
              "run-k/stateful_provisioning.db",
              EventCodec.encode(
                  codec.wrapWithId(
                      again.actionId(), "acme", "prod", "run-k", 2, again.address(), again))));
      producer.send(record("run-broken/stateful_provisioning.app", now));
      producer.flush();
    }
    KafkaDispatchedActions dispatched = new KafkaDispatchedActions(settings, "recovery-test-2");

    assertThat(
            dispatched.runsWithDispatches(
                List.of("run-k", "run-broken", "run-none"), now.minus(Duration.ofMinutes(10))))
        .containsExactlyInAnyOrder("run-k", "run-broken");

    assertThat(dispatched.dispatchesOf("run-k"))
        .extracting(d -> d.action().actionId())
        .containsExactlyInAnyOrder(
            "run-k/stateful_provisioning.db", "run-k/stateful_provisioning.app");
    assertThat(dispatched.dispatchesOf("run-none")).isEmpty();
    assertThatThrownBy(() -> dispatched.dispatchesOf("run-broken"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("could not be read");
  }

  @Test
  void aDispatchTheExecutorsCommittedPastIsTakenAndOneAfterTheirOffsetIsNot() throws Exception {
    Instant now = Instant.now().minus(Duration.ofHours(5));
    EventCodec codec = EventCodec.forSource("/test/planner");
    TopicPartition partition = new TopicPartition(Topics.ACTIONS, 0);
    long[] offsets = new long[2];
    List<String> addresses = List.of("stateful_provisioning.db", "stateful_provisioning.app");
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(settings.producer("dispatch-writer-3"))) {
      for (int i = 0; i < 2; i++) {
        ActionDispatched d = dispatch("run-t", addresses.get(i));
        byte[] value =
            EventCodec.encode(
                codec.wrapWithId(d.actionId(), "acme", "prod", "run-t", i + 1, d.address(), d));
        offsets[i] =
            producer
                .send(
                    new ProducerRecord<>(
                        Topics.ACTIONS, 0, now.toEpochMilli(), "run-t/" + d.address(), value))
                .get()
                .offset();
      }
    }
    KafkaDispatchedActions dispatched = new KafkaDispatchedActions(settings, "recovery-test-3");
    dispatched.runsWithDispatches(List.of("run-t"), now.minus(Duration.ofMinutes(10)));
    assertThat(dispatched.dispatchesOf("run-t"))
        .as("no executor committed anything yet")
        .noneMatch(DispatchedActions.Dispatched::taken);

    // an executor claims the first dispatch: the group's offset moves just past it (ADR 0007)
    try (KafkaConsumer<String, byte[]> executor =
        new KafkaConsumer<>(
            settings.consumer(Topics.EXECUTORS_GROUP, "executor-test", "earliest"))) {
      executor.assign(List.of(partition));
      executor.commitSync(Map.of(partition, new OffsetAndMetadata(offsets[0] + 1)));
    }
    dispatched.runsWithDispatches(List.of("run-t"), now.minus(Duration.ofMinutes(10)));

    assertThat(dispatched.dispatchesOf("run-t"))
        .extracting(d -> d.action().address() + " " + d.taken())
        .containsExactly("stateful_provisioning.db true", "stateful_provisioning.app false");
  }

  private static ActionDispatched dispatch(String run, String address) {
    return new ActionDispatched(
        run,
        run + "/" + address,
        address,
        "stateful_provisioning",
        "create",
        Map.of("state_key", "v1"),
        List.of(),
        List.of(),
        3,
        List.of(),
        false,
        false);
  }

  private static ProducerRecord<String, byte[]> record(String key, Instant at) {
    return new ProducerRecord<>(
        Topics.ACTIONS, null, at.toEpochMilli(), key, "{}".getBytes(StandardCharsets.UTF_8));
  }
}
