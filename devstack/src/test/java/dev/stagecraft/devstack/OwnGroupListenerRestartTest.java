package dev.stagecraft.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.platform.kafka.EventConsumer;
import dev.stagecraft.platform.kafka.KafkaSettings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * The planner's outcome listeners are consumers of a group of their own that start at the latest
 * offset and commit nothing ({@link EventConsumer#withoutOffsetCommits}). Across a broker restart
 * such a listener must go on from where it was: a record appended right after the broker is back is
 * delivered, not skipped by a reset to the latest offset.
 */
class OwnGroupListenerRestartTest {

  @Test
  void aListenerWithoutCommittedOffsetsSkipsNothingAcrossABrokerRestart() throws Exception {
    Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "kafka-listener");
    try (EmbeddedKafka kafka = EmbeddedKafka.start(dir, 0);
        Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic("t", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
      KafkaSettings settings = new KafkaSettings(kafka.bootstrapServers());
      List<String> seen = new CopyOnWriteArrayList<>();
      EventConsumer listener =
          EventConsumer.ofRecords(
                  settings,
                  "own-group",
                  "own",
                  "latest",
                  List.of("t"),
                  null,
                  r -> seen.add(new String(r.value(), StandardCharsets.UTF_8)))
              .withoutOffsetCommits()
              .start();
      try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(settings.producer("p"))) {
        assertThat(listener.awaitAssignment(Duration.ofSeconds(60))).isTrue();
        producer.send(record("1")).get(30, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(60)).until(() -> seen.contains("1"));

        kafka.stop();
        kafka.startAgain();
        producer.send(record("2")).get(30, TimeUnit.SECONDS); // before the listener is back
        producer.send(record("3")).get(30, TimeUnit.SECONDS);

        await().atMost(Duration.ofSeconds(90)).until(() -> seen.contains("3"));
        assertThat(seen).containsExactly("1", "2", "3");
      } finally {
        listener.close();
      }
    }
  }

  /**
   * The group drops the listener (here: a handler slower than the poll interval, as a broker that
   * was away longer than the session does) and assigns it its partition again. Without committed
   * offsets the reset would put it at the latest offset, past what was appended meanwhile: it must
   * go on where it was instead. (The chaos soak's kafka-restart fault left a run stuck: its planner
   * never saw the {@code state.recorded} appended while it rejoined.)
   */
  @Test
  void aListenerDroppedByItsGroupGoesOnWhereItWasWhenItsPartitionComesBack() throws Exception {
    Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "kafka-dropped");
    try (EmbeddedKafka kafka = EmbeddedKafka.start(dir, 0);
        Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic("t", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
      KafkaSettings settings = new KafkaSettings(kafka.bootstrapServers());
      java.util.Properties props = settings.consumer("dropped-group", "dropped", "latest");
      props.put("max.poll.interval.ms", 2000);
      List<String> seen = new CopyOnWriteArrayList<>();
      java.util.concurrent.CountDownLatch slowHandled = new java.util.concurrent.CountDownLatch(1);
      EventConsumer listener =
          EventConsumer.ofRecords(
                  props,
                  "dropped",
                  List.of("t"),
                  null,
                  r -> {
                    String value = new String(r.value(), StandardCharsets.UTF_8);
                    seen.add(value);
                    if (value.equals("slow")) {
                      // the fault: longer than max.poll.interval.ms, so the group drops the member
                      Thread.sleep(5000);
                      slowHandled.countDown();
                    }
                  })
              .withoutOffsetCommits()
              .start();
      try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(settings.producer("p"))) {
        assertThat(listener.awaitAssignment(Duration.ofSeconds(60))).isTrue();
        producer.send(record("slow")).get(30, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(60)).until(() -> seen.contains("slow"));
        producer.send(record("2")).get(30, TimeUnit.SECONDS); // while the handler is in "slow"
        assertThat(slowHandled.await(30, TimeUnit.SECONDS)).isTrue();
        producer.send(record("3")).get(30, TimeUnit.SECONDS);

        await().atMost(Duration.ofSeconds(90)).until(() -> seen.contains("3"));
        assertThat(seen).containsExactly("slow", "2", "3");
      } finally {
        listener.close();
      }
    }
  }

  private static ProducerRecord<String, byte[]> record(String value) {
    return new ProducerRecord<>("t", "k", value.getBytes(StandardCharsets.UTF_8));
  }
}
