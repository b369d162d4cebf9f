package dev.stagecraft.planner.service.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.seal.SealedValues;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The coordinator seals sensitive values inside dispatched attributes and opens them from the prior
 * state before planning (docs/adr/0024): the same secret again is "No changes.", and a state sealed
 * with a key the planner lacks errors the run naming the key id.
 */
class RunCoordinatorAttributeSealingTest {
  static final String SECRET = "attr-" + "Kq71z";
  static final String CONFIG =
      """
      variable "password" {
        type      = string
        sensitive = true
      }
      resource "null_resource" "app" {
        triggers = { pw = var.password, plain = "visible" }
      }
      """;

  final Clock clock = Clock.fixed(Instant.parse("2026-11-21T10:00:00Z"), ZoneOffset.UTC);
  final AtomicInteger ids = new AtomicInteger();
  final List<EventEnvelope> published = new CopyOnWriteArrayList<>();
  final Path uploadRoot = CoordinatorHarness.newTempDirectory();
  final String k1 = SecretsKeyring.generateEntry("k1");
  final RunCoordinatorTest.FakeStates states = new RunCoordinatorTest.FakeStates();
  RunCoordinator coordinator;

  @AfterEach
  void close() {
    if (coordinator != null) {
      coordinator.close();
    }
    UploadedFiles.delete(uploadRoot);
  }

  RunCoordinator coordinator(SecretsKeyring secrets) {
    return new RunCoordinator(
        new RunCoordinatorTest.FakeLocks(),
        states,
        events -> events.forEach(e -> published.add(e.envelope())),
        new EventCodec("/test", clock, () -> "e" + ids.incrementAndGet()),
        clock,
        () -> "id" + ids.incrementAndGet(),
        new UploadedFiles(uploadRoot),
        secrets);
  }

  Run start(String password) {
    return coordinator.start(
        new RunRequest(
            "acme",
            "prod",
            Map.of("main.tf", CONFIG),
            Map.of("password", password),
            false,
            List.of(),
            null,
            null,
            "tester",
            10));
  }

  EventEnvelope awaitDispatch() {
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                published.stream()
                    .anyMatch(e -> e.type().equals("dev.stagecraft.action.dispatched")));
    return published.stream()
        .filter(e -> e.type().equals("dev.stagecraft.action.dispatched"))
        .findFirst()
        .orElseThrow();
  }

  static String stateWith(Map<String, Object> attributes) {
    return EventCodec.mapper()
        .valueToTree(
            Map.of(
                "version",
                4,
                "serial",
                1,
                "lineage",
                "l-1",
                "resources",
                List.of(
                    Map.of(
                        "mode",
                        "managed",
                        "type",
                        "null_resource",
                        "name",
                        "app",
                        "instances",
                        List.of(Map.of("schema_version", 0, "attributes", attributes))))))
        .toString();
  }

  @Test
  @SuppressWarnings("unchecked")
  void dispatchesTheSecretSealedAndTheSameSecretAgainIsNoChange() throws Exception {
    coordinator = coordinator(SecretsKeyring.parse(k1));
    start(SECRET);

    EventEnvelope event = awaitDispatch();

    String wire = new String(EventCodec.encode(event), StandardCharsets.UTF_8);
    assertThat(wire).doesNotContain(SECRET).contains("visible");
    ActionDispatched sent = EventCodec.data(event, ActionDispatched.class);
    Map<String, Object> triggers = (Map<String, Object>) sent.attributes().get("triggers");
    assertThat((String) triggers.get("pw")).startsWith("stagecraft:sealed:v1:k1:");
    assertThat(
            SealedValues.open(
                SecretsKeyring.parse(k1),
                (String) triggers.get("pw"),
                SealedValues.context(
                    "acme", "prod", "null_resource.app", List.of("triggers", "pw"))))
        .isEqualTo(SECRET);

    states.json = stateWith(sent.attributes());
    Run again = start(SECRET);
    awaitEnd(again);
    synchronized (again) {
      assertThat(again.status).as(again.message).isEqualTo(RunStatus.PLANNED_AND_FINISHED);
    }
  }

  @Test
  void aStateSealedWithAMissingKeyErrorsTheRunNamingTheKeyId() {
    String sealed =
        SealedValues.seal(
            SecretsKeyring.parse(SecretsKeyring.generateEntry("gone")),
            SECRET,
            SealedValues.context("acme", "prod", "null_resource.app", List.of("triggers", "pw")));
    states.json = stateWith(Map.of("id", "i-1", "triggers", Map.of("pw", sealed)));
    coordinator = coordinator(SecretsKeyring.parse(k1));

    Run run = start(SECRET);

    awaitEnd(run);
    synchronized (run) {
      assertThat(run.status).isEqualTo(RunStatus.ERRORED);
      assertThat(run.message)
          .contains("'gone'")
          .contains("null_resource.app.triggers[\"pw\"]")
          .doesNotContain(SECRET);
    }
  }

  /** The run's fields are guarded by the run's monitor, as in the coordinator. */
  static void awaitEnd(Run run) {
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              synchronized (run) {
                return run.status.isTerminal();
              }
            });
  }
}
