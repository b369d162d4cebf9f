package dev.stagecraft.devstack;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.platform.kafka.EventConsumer;
import dev.stagecraft.platform.kafka.KafkaSettings;
import dev.stagecraft.platform.kafka.TopicBootstrap;
import dev.stagecraft.schemas.Topics;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.junit.jupiter.api.Test;

/** Topics as every service creates them at start-up, on a real KRaft broker. */
class TopicBootstrapTest {

  /**
   * A new partition is led by its broker a moment after the topic is created. An idempotent
   * producer whose first batch meets that moment gets NOT_LEADER_OR_FOLLOWER and retries (the
   * batches behind it OUT_OF_ORDER_SEQUENCE_NUMBER, and a record was once lost that way), so
   * ensureTopics returns only once every partition answers from its leader.
   */
  @Test
  void everyPartitionTakesAnIdempotentWriteWithoutARetryOnceTheTopicsAreEnsured() throws Exception {
    Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "topic-bootstrap");
    try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0)) {
      KafkaSettings settings = new KafkaSettings(kafka.bootstrapServers());
      TopicBootstrap.ensureTopics(settings, 8, (short) 1);

      List<String> topics = new ArrayList<>(Topics.ALL);
      topics.add(EventConsumer.DEAD_LETTER_TOPIC);
      List<Future<RecordMetadata>> sent = new ArrayList<>();
      try (KafkaProducer<String, byte[]> producer =
          new KafkaProducer<>(settings.producer("first-writes"))) {
        for (String topic : topics) {
          for (int partition = 0; partition < 8; partition++) {
            sent.add(
                producer.send(
                    new ProducerRecord<>(
                        topic, partition, "k", "{}".getBytes(StandardCharsets.UTF_8))));
          }
        }
        producer.flush();
        for (Future<RecordMetadata> f : sent) {
          assertThat(f.get().hasOffset()).isTrue();
        }
        assertThat(metric(producer, "record-retry-total")).as("records retried").isZero();
        assertThat(metric(producer, "record-error-total")).as("records failed").isZero();
      }
      assertThat(sent).hasSize(topics.size() * 8);

      // a second call (every service makes one) finds them all and changes nothing
      TopicBootstrap.ensureTopics(settings, 8, (short) 1);
    }
  }

  private static double metric(KafkaProducer<?, ?> producer, String name) {
    for (var e : producer.metrics().entrySet()) {
      MetricName n = e.getKey();
      if (n.name().equals(name) && n.group().equals("producer-metrics")) {
        Metric m = e.getValue();
        return ((Number) m.metricValue()).doubleValue();
      }
    }
    throw new AssertionError("no producer metric " + name);
  }
}
