package dev.stagecraft.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.platform.kafka.EventConsumer;
import dev.stagecraft.platform.kafka.KafkaSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;

/**
 * A consumer notes when it was last without any connection to the broker ({@link
 * EventConsumer#lastOutage}): the planner's action leases wait a lease past it, so a broker restart
 * does not make running steps look interrupted. Against a real broker stopped and started again on
 * the same port.
 */
class BrokerOutageTest {

  @Test
  void aConsumerNotesTheBrokersOutageAndNothingWhileItIsConnected() throws Exception {
    Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "kafka-outage");
    try (EmbeddedKafka kafka = EmbeddedKafka.start(dir, 0);
        Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic("t", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
      EventConsumer listener =
          EventConsumer.ofRecords(
                  new KafkaSettings(kafka.bootstrapServers()),
                  "outage-group",
                  "outage",
                  "latest",
                  List.of("t"),
                  null,
                  r -> {})
              .withoutOffsetCommits()
              .start();
      try {
        assertThat(listener.awaitAssignment(Duration.ofSeconds(60))).isTrue();
        Instant connected = Instant.now();
        // its polls go on against a live broker (a few, 0.5 s apart): no outage is noted
        await()
            .during(Duration.ofSeconds(2))
            .atMost(Duration.ofSeconds(5))
            .until(() -> listener.lastOutage().isBefore(connected));

        kafka.stop();
        Instant stopped = Instant.now();
        await().atMost(Duration.ofSeconds(30)).until(() -> listener.lastOutage().isAfter(stopped));

        kafka.startAgain();
        Instant back = Instant.now();
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> listener.lastOutage().isBefore(Instant.now().minusSeconds(3)));
        assertThat(listener.lastOutage()).as("noted while the broker was away").isAfter(stopped);
        assertThat(listener.lastOutage())
            .as("and no longer than until the consumer was connected again")
            .isBefore(back.plusSeconds(60));
      } finally {
        listener.close();
      }
    }
  }
}
