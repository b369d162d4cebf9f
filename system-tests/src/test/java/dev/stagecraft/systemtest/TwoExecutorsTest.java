package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.Topics;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.systemtest.SharedStack.CliResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/**
 * Independent actions of one run are spread over every executor of the consumer group (killing one
 * of two mid-run: {@link ExecutorCrashTest}).
 */
class TwoExecutorsTest {

  @Test
  void independentActionsOfOneRunAreSharedByTwoExecutorProcesses() throws Exception {
    SharedStack stack = SharedStack.get();
    // with the stack's keyring: dispatches are sealed
    ExecutorProcess second = ExecutorProcess.start(stack, "second-executor", Map.of());
    try (Admin admin = Admin.create(stack.kafka("admin"))) {
      await()
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> {
                ConsumerGroupDescription group =
                    admin
                        .describeConsumerGroups(List.of("executors"))
                        .describedGroups()
                        .get("executors")
                        .get();
                return group.members().size() == 2
                    && group.members().stream()
                        .allMatch(m -> !m.assignment().topicPartitions().isEmpty());
              });

      StringBuilder config = new StringBuilder();
      for (int i = 0; i < 40; i++) {
        config.append(
            """
            resource "stateful_provisioning" "step%d" {
              state_key = "v1"
              provisioner "local-exec" {
                command = "echo step %d"
              }
            }
            """
                .formatted(i, i));
      }
      Path dir = stack.configDir("two-executors", config.toString());
      CliResult result = stack.cli(dir, "apply", "-workspace=two-executors", "-auto-approve");
      assertThat(result.exitCode()).as(result.all()).isZero();
      assertThat(result.out()).contains("Resources: 40 added");

      Set<String> executors = new HashSet<>();
      Properties p = stack.kafka("admin");
      p.put("group.id", "two-executors-" + UUID.randomUUID());
      p.put("auto.offset.reset", "earliest");
      try (KafkaConsumer<String, byte[]> consumer =
          new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
        consumer.subscribe(List.of(Topics.ACTION_EVENTS));
        int empty = 0;
        while (empty < 6) {
          var records = consumer.poll(Duration.ofMillis(500));
          empty = records.isEmpty() ? empty + 1 : 0;
          for (ConsumerRecord<String, byte[]> r : records) {
            EventEnvelope e = EventCodec.decode(r.value());
            if ("two-executors".equals(e.workspace())
                && e.type().equals("dev.stagecraft.action.started")) {
              executors.add(e.data().get("executorId").asText());
            }
          }
        }
      }
      assertThat(executors).hasSize(2).contains("second-executor");
    } finally {
      second.close();
    }
  }
}
