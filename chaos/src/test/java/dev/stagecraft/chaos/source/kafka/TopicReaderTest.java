package dev.stagecraft.chaos.source.kafka;

import static dev.stagecraft.chaos.Fixtures.t;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.chaos.Fixtures;
import dev.stagecraft.chaos.history.EventSighting;
import dev.stagecraft.chaos.invariant.NoLostEvents;
import dev.stagecraft.chaos.invariant.Violation;
import dev.stagecraft.devstack.EmbeddedKafka;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.run.RunTransitioned;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

class TopicReaderTest {

  static byte[] event(String id, long at) {
    EventEnvelope e =
        new EventCodec("planner-1", Clock.fixed(t(at), ZoneOffset.UTC), () -> id)
            .wrap("acme", "web", "r-1", at, "run", new RunTransitioned("r-1", "applied", "done"));
    return EventCodec.encode(e);
  }

  @Test
  void readsEveryPartitionToItsEndAndPairsWithWhatWasCommittedUpstream() throws Exception {
    Path dir = Files.createTempDirectory(Path.of("target"), "topic-reader");
    try (EmbeddedKafka kafka = EmbeddedKafka.start(dir, 0)) {
      readAndPair(kafka);
    } finally {
      try (var files = Files.walk(dir)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private static void readAndPair(EmbeddedKafka kafka) throws Exception {
    {
      Map<String, Object> client = Map.of("bootstrap.servers", kafka.bootstrapServers());
      try (Admin admin = Admin.create(client)) {
        admin
            .createTopics(List.of(new NewTopic("stagecraft.run-events", 2, (short) 1)))
            .all()
            .get();
      }
      try (KafkaProducer<byte[], byte[]> producer =
          new KafkaProducer<>(client, new ByteArraySerializer(), new ByteArraySerializer())) {
        producer
            .send(new ProducerRecord<>("stagecraft.run-events", 1, null, event("e-2", 2)))
            .get();
        producer
            .send(new ProducerRecord<>("stagecraft.run-events", 0, null, event("e-1", 1)))
            .get();
        producer
            .send(
                new ProducerRecord<>(
                    "stagecraft.run-events", 0, null, "not json".getBytes(StandardCharsets.UTF_8)))
            .get();
      }

      TopicReader.Reading reading =
          TopicReader.read(client, "stagecraft.run-events", Duration.ofSeconds(30));

      assertThat(reading.envelopes()).extracting(EventEnvelope::id).containsExactly("e-1", "e-2");
      assertThat(reading.problems())
          .singleElement()
          .satisfies(
              p -> assertThat(p).startsWith("stagecraft.run-events-0@1: not a Stagecraft event"));

      var history =
          Fixtures.history(100)
              .events(reading.downstream())
              .event(
                  new EventSighting(
                      "stagecraft.run-events", "e-1", EventSighting.Side.UPSTREAM, t(1)))
              .event(
                  new EventSighting(
                      "stagecraft.run-events", "e-3", EventSighting.Side.UPSTREAM, t(3)))
              .build();
      assertThat(new NoLostEvents().check(history))
          .extracting(Violation::ids)
          .containsExactly(List.of("stagecraft.run-events", "e-3"));
    }
  }
}
