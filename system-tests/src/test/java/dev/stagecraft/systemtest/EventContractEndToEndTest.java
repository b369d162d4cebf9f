package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.EventSchemaValidator;
import dev.stagecraft.schemas.Topics;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.systemtest.SharedStack.CliResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every event the services emitted during a real run validates against its JSON Schema, carries the
 * tenant, and the run's transitions arrive in order.
 */
class EventContractEndToEndTest {
  static SharedStack stack;

  @BeforeAll
  static void start() throws Exception {
    stack = SharedStack.get();
  }

  @Test
  void everyEventOfARunValidatesAgainstItsSchemaAndCarriesTheTenant() throws Exception {
    Path dir =
        stack.configDir(
            "events",
            """
            variable "secret" {
              default = "s3cr3t-value"
              sensitive = true
            }
            resource "stateful_provisioning" "a" {
              state_key = "v1"
              provisioner "local-exec" {
                command = "echo using ${var.secret}"
              }
            }
            resource "stateful_provisioning" "b" {
              state_key = stateful_provisioning.a.id
            }
            """);
    CliResult result = stack.cli(dir, "apply", "-workspace=events", "-auto-approve");
    assertThat(result.exitCode()).as(result.all()).isZero();
    assertThat(result.all()).doesNotContain("s3cr3t-value").contains("(sensitive value)");

    List<String> values = new ArrayList<>();
    Properties p = stack.kafka("admin"); // reads every topic
    p.put("group.id", "contract-test-" + UUID.randomUUID());
    p.put("auto.offset.reset", "earliest");
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(
          List.of(Topics.ACTIONS, Topics.ACTION_EVENTS, Topics.STATE_EVENTS, Topics.RUN_EVENTS));
      int emptyPolls = 0;
      while (emptyPolls < 6) {
        var records = consumer.poll(Duration.ofMillis(500));
        emptyPolls = records.isEmpty() ? emptyPolls + 1 : 0;
        for (ConsumerRecord<String, byte[]> r : records) {
          values.add(new String(r.value(), StandardCharsets.UTF_8));
        }
      }
    }
    List<EventEnvelope> events =
        values.stream()
            .map(v -> EventCodec.decode(v.getBytes(StandardCharsets.UTF_8)))
            .filter(e -> "events".equals(e.workspace()))
            .toList();
    Set<String> types = events.stream().map(EventEnvelope::type).collect(Collectors.toSet());
    assertThat(types)
        .contains(
            "dev.stagecraft.action.dispatched",
            "dev.stagecraft.action.started",
            "dev.stagecraft.action.log",
            "dev.stagecraft.action.step",
            "dev.stagecraft.action.finished",
            "dev.stagecraft.state.recorded",
            "dev.stagecraft.run.transitioned");
    EventSchemaValidator validator = new EventSchemaValidator();
    for (String value : values) {
      EventEnvelope e = EventCodec.decode(value.getBytes(StandardCharsets.UTF_8));
      assertThat(validator.validate(value)).as(value).isEmpty();
      assertThat(e.tenant()).isNotBlank();
    }
    List<String> statuses =
        events.stream()
            .filter(e -> e.type().equals("dev.stagecraft.run.transitioned"))
            .map(e -> e.data().get("status").asText())
            .toList();
    assertThat(statuses)
        .containsSubsequence("pending", "planning", "planned", "applying", "applied");
    assertThat(values.stream().filter(v -> v.contains("\"workspace\":\"events\"")))
        .noneMatch(v -> v.contains("\"line\":\"using s3cr3t-value\""));
  }
}
