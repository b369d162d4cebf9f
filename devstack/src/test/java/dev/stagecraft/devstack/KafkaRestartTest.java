package dev.stagecraft.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.platform.kafka.KafkaSettings;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;

/**
 * The dev stack's broker restart ({@link DevStack#stopKafka}, {@link DevStack#startKafka}, here on
 * {@link DevKafka} itself, which they call): clients made before the stop, with a service's
 * settings, carry on by themselves once it is back on the same address.
 */
class KafkaRestartTest {
  private static final String TOPIC = "restart-probe";

  @Test
  void clientsCarryOnAcrossABrokerRestartOnTheSamePortAndNothingIsLost() throws Exception {
    Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "kafka-restart");
    try (DevKafka kafka = DevKafka.start(new DevStackLayout(dir), 0)) {
      String bootstrap = kafka.bootstrapServers();
      KafkaSettings admin = kafka.settings(StackPrincipal.ADMIN);
      try (Admin client = Admin.create(admin.client())) {
        client
            .createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1)))
            .all()
            .get(30, TimeUnit.SECONDS);
      }
      List<String> seen = new ArrayList<>();
      try (KafkaProducer<String, byte[]> producer =
              new KafkaProducer<>(admin.producer("restart-producer"));
          KafkaConsumer<String, byte[]> consumer =
              new KafkaConsumer<>(
                  admin.consumer(
                      "restart-group", "restart-consumer", "earliest", Duration.ofSeconds(6)))) {
        producer.send(record("before")).get(30, TimeUnit.SECONDS);
        consumer.subscribe(List.of(TOPIC));
        pollUntil(consumer, seen, List.of("before"));
        consumer.commitSync(Duration.ofSeconds(30));

        kafka.stop();
        int port = Integer.parseInt(bootstrap.substring(bootstrap.lastIndexOf(':') + 1));
        try (ServerSocket probe = new ServerSocket()) { // the client port is released
          probe.bind(new InetSocketAddress("127.0.0.1", port));
        }
        assertThatThrownBy(kafka::stop).hasMessageContaining("already stopped");
        // sent while the broker is down: the producer holds it and delivers it once it is back.
        // From another thread: a send whose metadata the shutdown emptied blocks its caller until
        // the broker answers again, and this thread is the one that starts it again.
        CompletableFuture<Future<RecordMetadata>> during =
            CompletableFuture.supplyAsync(() -> producer.send(record("during")));

        kafka.startAgain();
        assertThat(kafka.bootstrapServers()).isEqualTo(bootstrap);
        during.get(90, TimeUnit.SECONDS).get(60, TimeUnit.SECONDS);
        producer.send(record("after")).get(30, TimeUnit.SECONDS);
        // the same consumer goes on from its committed offset: nothing again, nothing missing
        pollUntil(consumer, seen, List.of("before", "during", "after"));
        consumer.commitSync(Duration.ofSeconds(30));
      }
      // the log from before the restart is still there, in order, exactly once
      List<String> all = new ArrayList<>();
      try (KafkaConsumer<String, byte[]> fresh =
          new KafkaConsumer<>(admin.consumer("restart-reader", "restart-reader", "earliest"))) {
        fresh.subscribe(List.of(TOPIC));
        pollUntil(fresh, all, List.of("before", "during", "after"));
      }
      assertThatThrownBy(kafka::startAgain).hasMessageContaining("running");
    }
  }

  private static ProducerRecord<String, byte[]> record(String value) {
    return new ProducerRecord<>(TOPIC, "k", value.getBytes(StandardCharsets.UTF_8));
  }

  /** Polls until {@code seen} is {@code expected}; fails on anything else (a duplicate, a gap). */
  private static void pollUntil(
      KafkaConsumer<String, byte[]> consumer, List<String> seen, List<String> expected) {
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                seen.add(new String(r.value(), StandardCharsets.UTF_8));
              }
              assertThat(expected).startsWith(seen.toArray(String[]::new));
              assertThat(seen).isEqualTo(expected);
            });
  }
}
