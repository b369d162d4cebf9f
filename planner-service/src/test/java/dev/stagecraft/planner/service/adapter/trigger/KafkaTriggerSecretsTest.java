package dev.stagecraft.planner.service.adapter.trigger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stagecraft.devstack.EmbeddedKafka;
import dev.stagecraft.planner.service.trigger.TriggerSecrets;
import dev.stagecraft.platform.kafka.EventPublisher;
import dev.stagecraft.platform.kafka.KafkaSettings;
import dev.stagecraft.platform.kafka.TopicBootstrap;
import dev.stagecraft.schemas.Topics;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The trigger secrets on a real KRaft broker: what a planner wrote, a planner started afterwards (a
 * restart, or another instance) reads; secrets never sit in the topic in clear; rotation keeps the
 * previous secret for the grace period only.
 */
class KafkaTriggerSecretsTest {
  static Path dir;
  static EmbeddedKafka kafka;
  static KafkaSettings settings;
  static EventPublisher publisher;
  final SecretsKeyring keyring = SecretsKeyring.parse(SecretsKeyring.generateEntry("k1"));
  final MovableClock clock = new MovableClock(Instant.parse("2026-11-21T10:00:00Z"));

  @BeforeAll
  static void startKafka() throws Exception {
    dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "trigger-stores");
    kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0);
    settings = new KafkaSettings(kafka.bootstrapServers());
    TopicBootstrap.ensureTopics(settings, 2, (short) 1);
    publisher = new EventPublisher(settings, "trigger-stores-test");
  }

  @AfterAll
  static void stopKafka() {
    publisher.close();
    kafka.close();
  }

  CompactedTopicView view(String topic) {
    return new CompactedTopicView(settings, topic, "test-" + UUID.randomUUID(), publisher)
        .start(Duration.ofSeconds(60));
  }

  @Test
  void secretsAreStoredSealedAndSurviveARestart() {
    String tenant = "t-" + UUID.randomUUID();
    TriggerSecrets.Issued issued;
    try (KafkaTriggerSecrets secrets =
        new KafkaTriggerSecrets(
            view(Topics.TRIGGER_SECRETS), keyring, clock, Duration.ofHours(24))) {
      assertThat(secrets.verifying(tenant)).isEmpty();
      issued = secrets.rotate(tenant);
      assertThat(issued.secret()).startsWith("sct_").hasSizeGreaterThan(40);
      assertThat(issued.previousValidUntil()).isNull();
      assertThat(secrets.verifying(tenant)).containsExactly(issued.secret());
    }
    try (KafkaTriggerSecrets restarted =
        new KafkaTriggerSecrets(
            view(Topics.TRIGGER_SECRETS), keyring, clock, Duration.ofHours(24))) {
      assertThat(restarted.verifying(tenant)).containsExactly(issued.secret());
    }
    // another keyring (another deployment, or the key dropped) cannot open it
    try (KafkaTriggerSecrets otherKeys =
        new KafkaTriggerSecrets(
            view(Topics.TRIGGER_SECRETS),
            SecretsKeyring.parse(SecretsKeyring.generateEntry("k1")),
            clock,
            Duration.ofHours(24))) {
      assertThat(otherKeys.verifying(tenant)).isEmpty();
    }
    assertThat(rawValues(Topics.TRIGGER_SECRETS))
        .anyMatch(v -> v.contains(tenant))
        .noneMatch(v -> v.contains(issued.secret()));
  }

  @Test
  void aRotatedSecretKeepsThePreviousOneValidForTheGracePeriodOnly() {
    String tenant = "t-" + UUID.randomUUID();
    try (KafkaTriggerSecrets secrets =
        new KafkaTriggerSecrets(
            view(Topics.TRIGGER_SECRETS), keyring, clock, Duration.ofHours(1))) {
      String old = secrets.rotate(tenant).secret();
      TriggerSecrets.Issued rotated = secrets.rotate(tenant);
      assertThat(rotated.previousValidUntil()).isEqualTo(clock.instant().plus(Duration.ofHours(1)));
      assertThat(secrets.verifying(tenant)).containsExactly(rotated.secret(), old);
      clock.advance(Duration.ofMinutes(61));
      assertThat(secrets.verifying(tenant)).containsExactly(rotated.secret());
    }
  }

  @Test
  void theEchoOfAnEarlierWriteReadAfterALaterOneDoesNotBringTheEarlierValueBack() {
    String key = "k-" + UUID.randomUUID();
    try (CompactedTopicView view = view(Topics.TRIGGER_SECRETS)) {
      view.put(key, "first".getBytes(StandardCharsets.UTF_8));
      view.put(key, "second".getBytes(StandardCharsets.UTF_8));
      // what the view's consumer reads when the first write's echo arrives after the second write
      // was shown (the order a rotation twice in a row can see)
      view.received(read(0L, key, "first"));
      assertThat(view.get(key)).map(v -> new String(v, StandardCharsets.UTF_8)).contains("second");
      // a deletion read later than a value wins, and an older value does not bring the key back
      view.received(read(Long.MAX_VALUE - 1, key, null));
      view.received(read(1L, key, "first"));
      assertThat(view.get(key)).isEmpty();
    }
  }

  /** A record of the secrets topic at {@code offset}, as the view's consumer reads it. */
  static org.apache.kafka.clients.consumer.ConsumerRecord<String, byte[]> read(
      long offset, String key, String value) {
    return new org.apache.kafka.clients.consumer.ConsumerRecord<>(
        Topics.TRIGGER_SECRETS,
        0,
        offset,
        key,
        value == null ? null : value.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void withoutAKeyringNoSecretIsIssued() {
    try (KafkaTriggerSecrets secrets =
        new KafkaTriggerSecrets(
            view(Topics.TRIGGER_SECRETS), SecretsKeyring.none(), clock, Duration.ofHours(1))) {
      assertThatThrownBy(() -> secrets.rotate("acme"))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining(SecretsKeyring.ENV);
    }
  }

  static List<String> rawValues(String topic) {
    Properties p = new Properties();
    p.put("bootstrap.servers", kafka.bootstrapServers());
    List<String> out = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
      var partitions =
          consumer.partitionsFor(topic).stream()
              .map(i -> new org.apache.kafka.common.TopicPartition(topic, i.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      var end = consumer.endOffsets(partitions);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))
          && System.nanoTime() < deadline) {
        consumer
            .poll(Duration.ofMillis(200))
            .forEach(r -> out.add(new String(r.value(), StandardCharsets.UTF_8)));
      }
    }
    return out;
  }

  /** A clock tests move by hand. */
  static final class MovableClock extends Clock {
    private volatile Instant now;

    MovableClock(Instant now) {
      this.now = now;
    }

    void advance(Duration d) {
      now = now.plus(d);
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  }
}
