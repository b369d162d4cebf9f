package dev.stagecraft.executor.adapter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.executor.step.ActionRunner;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.EventSchemaValidator;
import dev.stagecraft.schemas.EventType;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.action.ProvisionerStep;
import dev.stagecraft.schemas.control.RunCancelRequested;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The executor as a running application against a real (embedded) Kafka broker. */
class ActionExecutionIntegrationTest {
  private static final String TENANT = "acme";
  private static final String WORKSPACE = "prod";
  private static final Duration WAIT = Duration.ofSeconds(60);

  @RegisterExtension
  static final KafkaTestBroker KAFKA =
      KafkaTestBroker.withExecutor(
          "executor-it-kafka",
          Map.of(
              "stagecraft.instance-id", "executor-it",
              "stagecraft.executor.concurrency", "4",
              "stagecraft.executor.heartbeat-interval", "200ms"));

  private final EventSchemaValidator validator = new EventSchemaValidator();
  private final EventCodec plannerCodec = EventCodec.forSource("/stagecraft/planner-service");
  private final List<EventEnvelope> received = new ArrayList<>();
  @TempDir Path work;

  @Test
  void servesHealth() throws Exception {
    HttpResponse<String> health = KAFKA.readyHealth();

    assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
    assertThat(health.body()).contains("UP");
  }

  @Test
  void reportsStartedThenEachLogLineThenFinishedInOrderAndValid() {
    ActionDispatched action =
        dispatched(
            "create",
            step("echo hello from executor; echo warning on stderr >&2; echo 'token=hunter2'"),
            List.of("hunter2"));

    dispatch(action, "run-a/" + action.actionId());
    List<EventEnvelope> mine = awaitFinished(action.actionId());

    assertThat(mine.getFirst().type()).isEqualTo(EventType.ACTION_STARTED.type());
    assertThat(mine.getLast().type()).isEqualTo(EventType.ACTION_FINISHED.type());
    assertThat(mine.subList(1, mine.size() - 1))
        .allMatch(
            e ->
                e.type().equals(EventType.ACTION_LOG.type())
                    || e.type().equals(EventType.ACTION_STEP.type())
                    || e.type().equals(EventType.ACTION_HEARTBEAT.type()));
    // the step is recorded as started before its first line and as ended after its last
    List<String> stepRecords =
        mine.stream()
            .filter(e -> e.type().equals(EventType.ACTION_STEP.type()))
            .map(e -> e.data().get("stepId").asText() + " " + e.data().get("status").asText())
            .toList();
    assertThat(stepRecords)
        .containsExactly(action.actionId() + "#0 started", action.actionId() + "#0 succeeded");
    int stepStarted = indexOfStep(mine, "started");
    int stepEnded = indexOfStep(mine, "succeeded");
    assertThat(mine.subList(0, stepStarted))
        .noneMatch(e -> e.type().equals(EventType.ACTION_LOG.type()));
    assertThat(mine.subList(stepEnded, mine.size()))
        .noneMatch(e -> e.type().equals(EventType.ACTION_LOG.type()));

    assertThat(mine.stream().mapToLong(EventEnvelope::sequence))
        .containsExactlyElementsOf(
            java.util.stream.LongStream.rangeClosed(1, mine.size()).boxed().toList());
    assertThat(mine)
        .allSatisfy(
            e -> {
              assertThat(e.tenant()).isEqualTo(TENANT);
              assertThat(e.workspace()).isEqualTo(WORKSPACE);
              assertThat(e.runid()).isEqualTo(action.runId());
              assertThat(e.subject()).isEqualTo(action.address());
              assertThat(e.source()).isEqualTo("/stagecraft/executor-service");
            });
    assertThat(mine.get(0).data().get("executorId").asText()).isEqualTo("executor-it");

    List<String> lines =
        mine.subList(1, mine.size() - 1).stream()
            .filter(e -> e.type().equals(EventType.ACTION_LOG.type()))
            .map(e -> e.data().get("stream").asText() + ": " + e.data().get("line").asText())
            .toList();
    assertThat(lines.getFirst()).startsWith("system: Executing: [\"/bin/sh\" \"-c\" ");
    assertThat(lines)
        .contains(
            "stdout: hello from executor",
            "stderr: warning on stderr",
            "stdout: token=(sensitive value)")
        .noneMatch(l -> l.contains("hunter2"));
    assertThat(lines.indexOf("stdout: hello from executor"))
        .isLessThan(lines.indexOf("stdout: token=(sensitive value)"));

    JsonNode finished = mine.getLast().data();
    assertThat(finished.get("outcome").asText()).isEqualTo("succeeded");
    assertThat(finished.get("action").asText()).isEqualTo("create");
    assertThat(finished.get("address").asText()).isEqualTo(action.address());
    assertThat(finished.get("resourceType").asText()).isEqualTo("stateful_provisioning");
    assertThat(finished.get("fencingToken").asLong()).isEqualTo(7);
    assertThat(finished.get("attributes").get("id").asText()).isEqualTo("app");
    assertThat(finished.get("dependencies").get(0).asText()).isEqualTo("stateful_provisioning.db");
    assertThat(finished.get("executorId").asText()).isEqualTo("executor-it");
  }

  @Test
  void noHeartbeatFollowsTheFinishedEventOfAnAction() {
    ActionDispatched action = dispatched("create", step("true"), List.of());
    ActionDispatched marker = dispatched("create", step("true"), List.of());
    EventCodec executorCodec = EventCodec.forSource("/stagecraft/executor-service");
    ActionEventEmitter events =
        new ActionEventEmitter(
            executorCodec,
            KAFKA.planner(),
            plannerCodec.wrap(TENANT, WORKSPACE, action.runId(), 1, action.address(), action),
            action,
            "executor-it");
    events.finished(dev.stagecraft.executor.step.ActionResult.succeeded());
    // the heartbeat timer took the action from the running ones just before it ended
    events.heartbeat();
    // same producer and key: once the marker is in, anything the action sent is in before it
    new ActionEventEmitter(
            executorCodec,
            KAFKA.planner(),
            plannerCodec.wrap(TENANT, WORKSPACE, marker.runId(), 1, marker.address(), marker),
            marker,
            "executor-it")
        .finished(dev.stagecraft.executor.step.ActionResult.succeeded());
    awaitFinished(marker.actionId());

    assertThat(eventsOf(action.actionId()))
        .extracting(EventEnvelope::type)
        .containsExactly(EventType.ACTION_FINISHED.type());
  }

  @Test
  void reportsAFailingCommandAsAFailedActionWithItsExitCode() {
    ActionDispatched action = dispatched("create", step("echo partial; exit 3"), List.of());

    dispatch(action, "run-b/" + action.actionId());
    JsonNode finished = awaitFinished(action.actionId()).getLast().data();

    assertThat(finished.get("outcome").asText()).isEqualTo("failed");
    assertThat(finished.get("exitCode").asInt()).isEqualTo(3);
    assertThat(finished.get("error").asText()).contains("exit status 3").contains("partial");
  }

  @Test
  void runsAnActionDeliveredTwiceOnlyOnce() throws Exception {
    Path counter = KAFKA.shared().resolve("counter");
    ActionDispatched action =
        dispatched("create", step("echo ran >> '" + counter + "'"), List.of());
    ActionDispatched marker = dispatched("create", step("echo marker"), List.of());
    String key = "run-c"; // one partition: the executor sees them in this order

    dispatch(action, key);
    awaitFinished(action.actionId());
    dispatch(action, key); // a redelivery: same action id, new envelope id
    dispatch(marker, key);
    awaitFinished(marker.actionId());

    assertThat(Files.readAllLines(counter)).containsExactly("ran");
    assertThat(eventsOf(action.actionId()))
        .filteredOn(e -> e.type().equals(EventType.ACTION_STARTED.type()))
        .hasSize(1);
  }

  @Test
  void claimsTheDispatchBeforeRunningSendsHeartbeatsAndStopsTheCommandWhenTheRunIsCanceled()
      throws Exception {
    Path started = KAFKA.shared().resolve("started");
    Path done = KAFKA.shared().resolve("done");
    ActionDispatched action =
        dispatched(
            "create", step("touch '" + started + "'; sleep 600; touch '" + done + "'"), List.of());
    RecordMetadata where =
        KAFKA
            .planner()
            .send(
                plannerCodec.wrap(TENANT, WORKSPACE, action.runId(), 1, action.address(), action),
                "run-d")
            .get();

    await().atMost(WAIT).until(() -> Files.exists(started));
    // the command runs, so its dispatch was committed for the executors' group before it started
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", KAFKA.bootstrapServers()))) {
      OffsetAndMetadata committed =
          admin
              .listConsumerGroupOffsets("executors")
              .partitionsToOffsetAndMetadata()
              .get()
              .get(new TopicPartition(where.topic(), where.partition()));
      assertThat(committed).isNotNull();
      assertThat(committed.offset()).isGreaterThan(where.offset());
    }
    // it reports that it is alive, naming the step it runs
    await()
        .atMost(WAIT)
        .pollInSameThread()
        .until(
            () -> {
              pollEvents();
              return eventsOf(action.actionId()).stream()
                      .filter(e -> e.type().equals(EventType.ACTION_HEARTBEAT.type()))
                      .filter(e -> e.data().get("step").asInt() == 0)
                      .filter(e -> e.data().get("stepType").asText().equals("local-exec"))
                      .count()
                  >= 2;
            });

    KAFKA
        .planner()
        .publish(
            plannerCodec.wrap(
                TENANT,
                WORKSPACE,
                action.runId(),
                2,
                action.runId(),
                new RunCancelRequested(action.runId(), "canceled by deployer@acme")));
    // within the wait only if the command was killed (it sleeps for 600 s)
    JsonNode finished = awaitFinished(action.actionId()).getLast().data();

    assertThat(finished.get("outcome").asText()).isEqualTo("canceled");
    assertThat(finished.get("error").asText()).startsWith("canceled (canceled by deployer@acme)");
    assertThat(done).doesNotExist();
  }

  @Test
  void aCancelNamingTheRunUnderAnotherTenantStopsNothing() throws Exception {
    ActionDispatched action =
        dispatched("create", step("echo waiting; sleep 3; echo finished"), List.of());
    dispatch(action, "run-x/" + action.actionId());
    await()
        .atMost(WAIT)
        .pollInSameThread()
        .until(
            () -> {
              pollEvents();
              return eventsOf(action.actionId()).stream()
                  .anyMatch(
                      e ->
                          e.type().equals(EventType.ACTION_LOG.type())
                              && e.data().get("line").asText().equals("waiting"));
            });

    KAFKA
        .planner()
        .publish(
            plannerCodec.wrap(
                "intruder",
                WORKSPACE,
                action.runId(),
                2,
                action.runId(),
                new RunCancelRequested(action.runId(), "canceled by someone else")));

    // refused while the action ran: dead-lettered with the reason, and the action went on
    try (var deadLetters =
        new org.apache.kafka.clients.consumer.KafkaConsumer<String, byte[]>(
            new dev.stagecraft.platform.kafka.KafkaSettings(KAFKA.bootstrapServers())
                .consumer("test-" + UUID.randomUUID(), "test-dead-letters", "earliest"))) {
      deadLetters.subscribe(List.of(dev.stagecraft.platform.kafka.EventConsumer.DEAD_LETTER_TOPIC));
      List<String> reasons = new ArrayList<>();
      await()
          .atMost(WAIT)
          .pollInSameThread()
          .until(
              () -> {
                for (var r : deadLetters.poll(Duration.ofMillis(200))) {
                  var header = r.headers().lastHeader("stagecraft-error");
                  if (header != null) {
                    reasons.add(new String(header.value(), StandardCharsets.UTF_8));
                  }
                }
                return reasons.stream()
                    .anyMatch(
                        reason ->
                            reason.contains("run.cancel-requested for run " + action.runId())
                                && reason.contains("came as tenant intruder"));
              });
    }
    JsonNode finished = awaitFinished(action.actionId()).getLast().data();
    assertThat(finished.get("outcome").asText()).isEqualTo("succeeded");
  }

  @Test
  void aDispatchWhoseClaimFailsOrThatExpiredIsNotRun() throws Exception {
    Path counter = work.resolve("claim-counter");
    ActionDispatched action =
        dispatched("create", step("echo ran >> '" + counter + "'"), List.of());
    EventEnvelope envelope =
        plannerCodec.wrap(TENANT, WORKSPACE, action.runId(), 1, action.address(), action);

    DispatchedActionHandler unclaimed =
        new DispatchedActionHandler(new ActionRunner(work), KAFKA.planner(), "claim-test", 1)
            .claimWith(() -> false);
    unclaimed.handle(envelope);
    assertThat(unclaimed.awaitRunning(WAIT)).isTrue();
    assertThat(counter).as("not claimed: not run").doesNotExist();

    DispatchedActionHandler late =
        new DispatchedActionHandler(new ActionRunner(work), KAFKA.planner(), "expiry-test", 1)
            .claimWith(() -> true)
            .withLiveness(
                Duration.ofSeconds(1),
                Duration.ofMinutes(5),
                java.time.Clock.fixed(
                    envelope.time().plus(Duration.ofMinutes(6)), java.time.ZoneOffset.UTC));
    late.handle(envelope);
    assertThat(late.awaitRunning(WAIT)).isTrue();
    assertThat(counter).as("expired: not run").doesNotExist();

    // the same dispatch, claimed and fresh, does run: the two above would have run it
    DispatchedActionHandler claimed =
        new DispatchedActionHandler(new ActionRunner(work), KAFKA.planner(), "claimed-test", 1)
            .claimWith(() -> true);
    claimed.handle(envelope);
    assertThat(claimed.awaitRunning(WAIT)).isTrue();
    assertThat(Files.readAllLines(counter)).containsExactly("ran");
  }

  private void pollEvents() {
    for (ConsumerRecord<String, byte[]> record : KAFKA.events().poll(Duration.ofMillis(200))) {
      received.add(EventCodec.decode(record.value()));
    }
  }

  private ActionDispatched dispatched(
      String kind, ProvisionerStep step, List<String> sensitiveValues) {
    return new ActionDispatched(
        "run-" + UUID.randomUUID(),
        "action-" + UUID.randomUUID(),
        "stateful_provisioning.app",
        "stateful_provisioning",
        kind,
        Map.of("id", "app"),
        List.of("stateful_provisioning.db"),
        List.of(step),
        7,
        sensitiveValues);
  }

  private static ProvisionerStep step(String command) {
    return new ProvisionerStep(
        "local-exec", "create", "fail", command, List.of(), Map.of(), null, false, false);
  }

  private void dispatch(ActionDispatched action, String key) {
    EventEnvelope envelope =
        plannerCodec.wrap(TENANT, WORKSPACE, action.runId(), 1, action.address(), action);
    assertThat(validator.validate(new String(EventCodec.encode(envelope), StandardCharsets.UTF_8)))
        .isEmpty();
    KAFKA.planner().publish(envelope, key);
  }

  /** Every event of the action up to and including its action.finished, each schema-valid. */
  private List<EventEnvelope> awaitFinished(String actionId) {
    await()
        .atMost(WAIT)
        .pollInSameThread()
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              for (ConsumerRecord<String, byte[]> record :
                  KAFKA.events().poll(Duration.ofMillis(200))) {
                String json = new String(record.value(), StandardCharsets.UTF_8);
                assertThat(validator.validate(json)).as(json).isEmpty();
                assertThat(record.key()).isEqualTo(TENANT + "/" + WORKSPACE);
                received.add(EventCodec.decode(record.value()));
              }
              return eventsOf(actionId).stream()
                  .anyMatch(e -> e.type().equals(EventType.ACTION_FINISHED.type()));
            });
    return eventsOf(actionId);
  }

  private static int indexOfStep(List<EventEnvelope> events, String status) {
    for (int i = 0; i < events.size(); i++) {
      if (events.get(i).type().equals(EventType.ACTION_STEP.type())
          && events.get(i).data().get("status").asText().equals(status)) {
        return i;
      }
    }
    throw new AssertionError("no step record " + status);
  }

  private List<EventEnvelope> eventsOf(String actionId) {
    return received.stream()
        .filter(e -> actionId.equals(e.data().path("actionId").asText()))
        .toList();
  }
}
