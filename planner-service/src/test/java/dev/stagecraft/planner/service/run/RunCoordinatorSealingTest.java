package dev.stagecraft.planner.service.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.action.DispatchSealing;
import dev.stagecraft.schemas.envelope.EventEnvelope;
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

/** With a secrets keyring, the coordinator publishes dispatches whose secrets are sealed. */
class RunCoordinatorSealingTest {
  static final String SECRET = "pa55-" + "Zq81x";
  static final String CONFIG =
      """
      variable "password" {
        type      = string
        sensitive = true
      }
      resource "stateful_provisioning" "app" {
        state_key = "v1"
        provisioner "local-exec" {
          command     = "echo ${var.password}"
          environment = { PASSWORD = var.password }
        }
      }
      """;

  final Clock clock = Clock.fixed(Instant.parse("2026-11-21T10:00:00Z"), ZoneOffset.UTC);
  final AtomicInteger ids = new AtomicInteger();
  final List<EventEnvelope> published = new CopyOnWriteArrayList<>();
  final Path uploadRoot = CoordinatorHarness.newTempDirectory();
  final SecretsKeyring keyring = SecretsKeyring.parse(SecretsKeyring.generateEntry("k1"));
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
        new RunCoordinatorTest.FakeStates(),
        events -> events.forEach(e -> published.add(e.envelope())),
        new EventCodec("/test", clock, () -> "e" + ids.incrementAndGet()),
        clock,
        () -> "id" + ids.incrementAndGet(),
        new UploadedFiles(uploadRoot),
        secrets);
  }

  EventEnvelope awaitDispatch() {
    coordinator.start(
        new RunRequest(
            "acme",
            "prod",
            Map.of("main.tf", CONFIG),
            Map.of("password", SECRET),
            false,
            List.of(),
            null,
            null,
            "tester",
            10));
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

  @Test
  void sealsTheProvisionersAndSensitiveValuesOfEveryDispatch() throws Exception {
    coordinator = coordinator(keyring);

    EventEnvelope event = awaitDispatch();

    String wire = new String(EventCodec.encode(event), StandardCharsets.UTF_8);
    assertThat(wire).doesNotContain(SECRET).doesNotContain("echo ");
    ActionDispatched sent = EventCodec.data(event, ActionDispatched.class);
    assertThat(sent.provisioners()).isEmpty();
    assertThat(sent.sensitiveValues()).isEmpty();
    assertThat(sent.sealed().kid()).isEqualTo("k1");
    ActionDispatched opened = DispatchSealing.open(sent, keyring, "acme", "prod");
    assertThat(opened.provisioners().getFirst().command()).isEqualTo("echo " + SECRET);
    assertThat(opened.provisioners().getFirst().environment()).containsEntry("PASSWORD", SECRET);
    assertThat(opened.sensitiveValues()).contains(SECRET);
  }

  @Test
  void withoutAKeyringTheDispatchTravelsInClearAsBefore() {
    coordinator = coordinator(SecretsKeyring.none());

    ActionDispatched sent = EventCodec.data(awaitDispatch(), ActionDispatched.class);

    assertThat(sent.sealed()).isNull();
    assertThat(sent.provisioners().getFirst().command()).isEqualTo("echo " + SECRET);
  }
}
