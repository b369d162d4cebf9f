package dev.stagecraft.planner.service.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.planner.service.run.intake.ApiRequestKeys;
import dev.stagecraft.planner.service.run.intake.IdempotencyKey;
import dev.stagecraft.planner.service.run.intake.IntakeOutcome;
import dev.stagecraft.planner.service.run.intake.RunIntake;
import dev.stagecraft.planner.service.run.intake.Submission;
import dev.stagecraft.planner.service.run.intake.WorkspaceSettings;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link RunIntake}, the one way runs are submitted (the public API and chat-ops), against the
 * in-memory ports of {@link RunCoordinatorTest}: the configuration check, the workspace's settings,
 * and the public API's idempotency keys (chat-ops keys: {@link RunTriggerTest}).
 */
class RunIntakeTest {
  static final Instant NOW = Instant.parse("2026-11-21T10:00:00Z");
  final MovableClock clock = new MovableClock();
  final AtomicInteger ids = new AtomicInteger();
  final Path uploadRoot = CoordinatorHarness.newTempDirectory();
  final RunCoordinator coordinator =
      new RunCoordinator(
          new RunCoordinatorTest.FakeLocks(),
          new RunCoordinatorTest.FakeStates(),
          events -> {},
          new EventCodec("/test", Clock.fixed(NOW, ZoneOffset.UTC), () -> "e" + ids.get()),
          clock,
          () -> "id" + ids.incrementAndGet(),
          new UploadedFiles(uploadRoot));
  final Map<String, ApiRequestKeys.Recorded> recordedKeys = new ConcurrentHashMap<>();
  final ApiRequestKeys keys =
      new ApiRequestKeys() {
        @Override
        public Optional<Recorded> find(String tenant, String storedKey) {
          return Optional.ofNullable(recordedKeys.get(tenant + "/" + storedKey));
        }

        @Override
        public boolean record(
            String tenant,
            String storedKey,
            String runId,
            String workspace,
            String requestDigest,
            Instant expiredBefore) {
          Recorded now = new Recorded(runId, requestDigest, clock.instant());
          Recorded before =
              recordedKeys.compute(
                  tenant + "/" + storedKey,
                  (k, old) -> old == null || old.recordedAt().isBefore(expiredBefore) ? now : old);
          return before == now;
        }
      };
  final RunIntake intake =
      new RunIntake(coordinator, clock)
          .withWorkspaces((tenant, ws) -> new WorkspaceSettings(false, 3, true))
          .withApiKeys(
              keys, SecretsKeyring.parse(SecretsKeyring.generateEntry("k1")), Duration.ofHours(24));

  @AfterEach
  void cleanUp() {
    coordinator.close();
    UploadedFiles.delete(uploadRoot);
  }

  static Submission submission(String mainTf, IdempotencyKey key) {
    return new Submission(
        "acme",
        "prod",
        Map.of("main.tf", mainTf),
        null,
        Map.of(),
        Set.of(),
        false,
        List.of(),
        null,
        null,
        null,
        null,
        "deployer@acme",
        null,
        null,
        key);
  }

  static IdempotencyKey.Api apiKey(String key, String body) {
    return new IdempotencyKey.Api(key, body.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void startsARunWithTheWorkspacesSettingsAndAdoptsTheCheckedFiles() {
    var outcome =
        intake.accept(submission(RunCoordinatorTest.TWO_STEPS, new IdempotencyKey.None()));

    assertThat(outcome).isInstanceOf(IntakeOutcome.Started.class);
    Run run = ((IntakeOutcome.Started) outcome).run();
    assertThat(run.request().parallelism()).isEqualTo(3);
    assertThat(run.request().coalescingKey()).isEqualTo("run:default");
    // a workspace without auto-apply: the run waits for approval once planned
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> coordinator.approvalDeadline("acme", run.id()).isPresent());
    assertThat(run.summary().status()).isEqualTo("planned");
  }

  @Test
  void aConfigurationWithErrorsStartsNothingLeavesNoFilesAndUsesUpNoKey() throws Exception {
    var outcome = intake.accept(submission("resource \"x\" {", apiKey("k1", "{}")));

    assertThat(outcome).isInstanceOf(IntakeOutcome.Refused.class);
    assertThat(((IntakeOutcome.Refused) outcome).reason())
        .isInstanceOf(IntakeOutcome.InvalidConfiguration.class);
    assertThat(recordedKeys).isEmpty();
    assertThat(coordinator.runsOf("acme")).isEmpty();
    try (Stream<Path> left = Files.list(uploadRoot)) {
      assertThat(left.flatMap(RunIntakeTest::files)).isEmpty();
    }
  }

  @Test
  void anApiKeyReplaysItsRunForTheSameBodyAndRefusesAnotherBody() {
    var first = intake.accept(submission("", apiKey("k1", "{\"a\":1}")));
    String runId = ((IntakeOutcome.Started) first).run().id();

    var again = intake.accept(submission("", apiKey("k1", "{\"a\":1}")));
    var other = intake.accept(submission("", apiKey("k1", "{\"a\":2}")));

    assertThat(again).isInstanceOf(IntakeOutcome.Replayed.class);
    assertThat(((IntakeOutcome.Replayed) again).runId()).isEqualTo(runId);
    assertThat(other)
        .isEqualTo(new IntakeOutcome.Refused(new IntakeOutcome.KeyReused("k1", runId)));
    assertThat(coordinator.runsOf("acme")).hasSize(1);
  }

  @Test
  void anApiKeyIsForgottenAfterItsRetention() {
    var first = intake.accept(submission("", apiKey("k1", "{}")));
    clock.advance(Duration.ofHours(25));

    var later = intake.accept(submission("", apiKey("k1", "{\"other\":true}")));

    assertThat(later).isInstanceOf(IntakeOutcome.Started.class);
    assertThat(((IntakeOutcome.Started) later).run().id())
        .isNotEqualTo(((IntakeOutcome.Started) first).run().id());
  }

  private static Stream<Path> files(Path p) {
    try {
      return Files.isDirectory(p) ? Files.walk(p).filter(Files::isRegularFile) : Stream.of(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
