package dev.stagecraft.executor.adapter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.EventType;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.action.ProvisionerStep;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import io.micronaut.context.ApplicationContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Closing the application context lets running actions finish, within a bounded time. */
class GracefulShutdownIntegrationTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @RegisterExtension
  static final KafkaTestBroker KAFKA = KafkaTestBroker.withoutExecutor("executor-shutdown-kafka");

  private final List<EventEnvelope> received = new ArrayList<>();
  private ApplicationContext executor;

  @AfterEach
  void tearDown() {
    if (executor != null && executor.isRunning()) {
      executor.close();
    }
  }

  @Test
  void closingTheContextLetsARunningStepFinishAndReportsIt() throws Exception {
    executor = startExecutor("30s");
    Path gate = KAFKA.shared().resolve("gate");
    ActionDispatched action =
        dispatch("echo waiting; until [ -e '" + gate + "' ]; do sleep 0.01; done; echo done");
    awaitLog(action.actionId(), "waiting");

    CompletableFuture<Void> closing = CompletableFuture.runAsync(executor::close);
    await().during(Duration.ofMillis(500)).atMost(WAIT).until(() -> !closing.isDone());
    Files.createFile(gate);
    closing.get();

    JsonNode finished = awaitFinished(action.actionId());
    assertThat(finished.get("outcome").asText()).isEqualTo("succeeded");
    assertThat(linesOf(action.actionId())).contains("done");
  }

  @Test
  void stepStillRunningAfterTheGracePeriodIsKilledAndReportedInterrupted() {
    executor = startExecutor("500ms");
    ActionDispatched action = dispatch("echo waiting; exec sleep 600");
    awaitLog(action.actionId(), "waiting");

    executor.close();

    JsonNode finished = awaitFinished(action.actionId());
    assertThat(finished.get("outcome").asText()).isEqualTo("failed");
    assertThat(finished.get("error").asText()).contains("interrupted");
  }

  private ApplicationContext startExecutor(String grace) {
    return ApplicationContext.run(
        Map.of(
            "stagecraft.kafka",
            KAFKA.bootstrapServers(),
            "stagecraft.instance-id",
            "executor-" + UUID.randomUUID(),
            "stagecraft.executor.shutdown-grace",
            grace,
            "stagecraft.executor.sandbox.shared-paths",
            KAFKA.shared().toString(),
            "micronaut.server.port",
            "-1"));
  }

  private ActionDispatched dispatch(String command) {
    ActionDispatched action =
        new ActionDispatched(
            "run-" + UUID.randomUUID(),
            "action-" + UUID.randomUUID(),
            "stateful_provisioning.app",
            "stateful_provisioning",
            "create",
            Map.of(),
            List.of(),
            List.of(
                new ProvisionerStep(
                    "local-exec",
                    "create",
                    "fail",
                    command,
                    List.of(),
                    Map.of(),
                    null,
                    false,
                    false)),
            1,
            List.of());
    KAFKA
        .planner()
        .publish(
            EventCodec.forSource("/stagecraft/planner-service")
                .wrap("acme", "prod", action.runId(), 1, action.address(), action),
            action.runId());
    return action;
  }

  private void awaitLog(String actionId, String line) {
    await()
        .atMost(WAIT)
        .pollInSameThread()
        .until(
            () -> {
              pollEvents();
              return linesOf(actionId).contains(line);
            });
  }

  private JsonNode awaitFinished(String actionId) {
    await()
        .atMost(WAIT)
        .pollInSameThread()
        .until(
            () -> {
              pollEvents();
              return ofType(actionId, EventType.ACTION_FINISHED).findAny().isPresent();
            });
    return ofType(actionId, EventType.ACTION_FINISHED).findFirst().orElseThrow().data();
  }

  private void pollEvents() {
    for (ConsumerRecord<String, byte[]> record : KAFKA.events().poll(Duration.ofMillis(200))) {
      received.add(EventCodec.decode(record.value()));
    }
  }

  private Stream<EventEnvelope> ofType(String actionId, EventType type) {
    return received.stream()
        .filter(e -> e.type().equals(type.type()))
        .filter(e -> actionId.equals(e.data().path("actionId").asText()));
  }

  private List<String> linesOf(String actionId) {
    return ofType(actionId, EventType.ACTION_LOG).map(e -> e.data().get("line").asText()).toList();
  }
}
