package dev.stagecraft.planner.service.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.planner.service.trigger.RunTrigger;
import dev.stagecraft.planner.service.trigger.TriggerSecrets;
import dev.stagecraft.planner.service.trigger.TriggerSignature;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.EventSchemaValidator;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.run.RunTransitioned;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Triggers and keyed starts against the in-memory ports of {@link RunCoordinatorTest} (it lives in
 * this package to share them): signature checks, idempotency, and that nothing refused starts.
 */
class RunTriggerTest {
  static final Instant NOW = Instant.parse("2026-11-21T10:00:00Z");
  final Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
  final AtomicInteger ids = new AtomicInteger();
  final List<EventEnvelope> published = new CopyOnWriteArrayList<>();
  final Path uploadRoot = CoordinatorHarness.newTempDirectory();
  final IdempotencyKeys keys = IdempotencyKeys.inMemory();
  final RunCoordinator coordinator = coordinator(keys);
  final TriggerSecrets secrets =
      new TriggerSecrets() {
        @Override
        public List<String> verifying(String tenant) {
          return "acme".equals(tenant) ? List.of("sct_acme") : List.of();
        }

        @Override
        public Issued rotate(String tenant) {
          throw new UnsupportedOperationException();
        }
      };
  final RunTrigger trigger =
      new RunTrigger(coordinator, secrets, new EventSchemaValidator(), clock);

  RunCoordinator coordinator(IdempotencyKeys keys) {
    return new RunCoordinator(
            new RunCoordinatorTest.FakeLocks(),
            new RunCoordinatorTest.FakeStates(),
            events -> events.forEach(e -> published.add(e.envelope())),
            new EventCodec("/test", clock, () -> "e" + ids.incrementAndGet()),
            clock,
            () -> "id" + ids.incrementAndGet(),
            new UploadedFiles(uploadRoot))
        .withIdempotencyKeys(keys);
  }

  @AfterEach
  void cleanUp() {
    coordinator.close();
    UploadedFiles.delete(uploadRoot);
  }

  static String event(String tenant, String key) {
    return """
        {"specversion":"1.0","id":"evt-1","source":"/bots/slack","type":"dev.stagecraft.run.requested",
         "tenant":"%s","data":{"workspace":"prod","configuration":{"files":{"main.tf":""}},
         "requested_by":"alice","message":"deploy rev abc","idempotency_key":"%s"}}
        """
        .formatted(tenant, key);
  }

  RunTrigger.Outcome post(String body, String secret, long timestamp, Duration maxAge) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    return trigger.handle(
        bytes, Long.toString(timestamp), TriggerSignature.sign(secret, timestamp, bytes), maxAge);
  }

  long pendingTransitions() {
    return published.stream()
        .filter(e -> e.type().equals("dev.stagecraft.run.transitioned"))
        .map(e -> EventCodec.data(e, RunTransitioned.class))
        .filter(t -> t.status().equals("pending"))
        .count();
  }

  @Test
  void aSignedTriggerStartsARunWhoseIdFollowsFromTenantAndKey() {
    RunTrigger.Outcome outcome =
        post(event("acme", "slack-1"), "sct_acme", NOW.getEpochSecond(), Duration.ofMinutes(5));

    assertThat(outcome).isInstanceOf(RunTrigger.Accepted.class);
    RunCoordinator.KeyedStart start = ((RunTrigger.Accepted) outcome).start();
    assertThat(start.duplicate()).isFalse();
    assertThat(start.runId()).isEqualTo(RunCoordinator.runIdFor("acme", "slack-1"));
    assertThat(start.run().orElseThrow().summary().tenant()).isEqualTo("acme");
    assertThat(keys.runFor("acme", "slack-1")).contains(start.runId());
    assertThat(pendingTransitions()).isEqualTo(1);
  }

  @Test
  void aConfigurationWithErrorsIsRefusedWithWhereAndStartsNothingNorUsesUpTheKey()
      throws Exception {
    String broken =
        event("acme", "fix-me")
            .replace(
                "\"main.tf\":\"\"", "\"main.tf\":\"resource \\\"stateful_provisioning\\\" {\"");

    assertRefused(
        post(broken, "sct_acme", NOW.getEpochSecond(), null),
        RunTrigger.Refusal.MALFORMED,
        "main.tf:1:");
    assertThat(pendingTransitions()).isZero();
    assertThat(keys.runFor("acme", "fix-me")).isEmpty();
    try (var left = java.nio.file.Files.walk(uploadRoot)) {
      assertThat(left.filter(java.nio.file.Files::isRegularFile)).as("files left behind").isEmpty();
    }

    // fixed and sent again with the same key: it runs
    assertThat(post(event("acme", "fix-me"), "sct_acme", NOW.getEpochSecond(), null))
        .isInstanceOf(RunTrigger.Accepted.class);
    assertThat(pendingTransitions()).isEqualTo(1);
  }

  @Test
  void theSameKeyTwiceMakesOneRunAndTheSecondRefersToTheFirst() {
    RunTrigger.Accepted first =
        (RunTrigger.Accepted) post(event("acme", "k"), "sct_acme", NOW.getEpochSecond(), null);
    RunTrigger.Accepted second =
        (RunTrigger.Accepted) post(event("acme", "k"), "sct_acme", NOW.getEpochSecond(), null);

    assertThat(second.start().duplicate()).isTrue();
    assertThat(second.start().runId()).isEqualTo(first.start().runId());
    assertThat(second.start().run()).containsSame(first.start().run().orElseThrow());
    assertThat(coordinator.runsOf("acme")).hasSize(1);
    assertThat(pendingTransitions()).isEqualTo(1);
  }

  @Test
  void aKeyRecordedBeforeARestartStartsNothingOnTheNewInstance() {
    RunTrigger.Accepted first =
        (RunTrigger.Accepted) post(event("acme", "k"), "sct_acme", NOW.getEpochSecond(), null);
    RunCoordinator restarted = coordinator(keys); // same durable keys, no runs in memory
    try {
      RunCoordinator.KeyedStart again =
          restarted.start(
              new RunRequest(
                  "acme", "prod", Map.of("main.tf", ""), null, false, null, null, null, "alice", 1),
              "k",
              null);
      assertThat(again.duplicate()).isTrue();
      assertThat(again.runId()).isEqualTo(first.start().runId());
      assertThat(restarted.runsOf("acme")).isEmpty();
    } finally {
      restarted.close();
    }
  }

  /** Durable keys as another planner instance left them: {@code k} recorded, claims answered. */
  static IdempotencyKeys recordedElsewhere(IdempotencyKeys.Claim claim) {
    IdempotencyKeys keys = IdempotencyKeys.inMemory();
    keys.record("acme", "k", RunCoordinator.runIdFor("acme", "k"), "prod");
    return new IdempotencyKeys() {
      @Override
      public Optional<String> runFor(String tenant, String idempotencyKey) {
        return keys.runFor(tenant, idempotencyKey);
      }

      @Override
      public boolean record(String tenant, String idempotencyKey, String runId, String workspace) {
        return keys.record(tenant, idempotencyKey, runId, workspace);
      }

      @Override
      public Claim claimUnrecorded(String tenant, String idempotencyKey) {
        return claim;
      }
    };
  }

  RunTrigger.Outcome postTo(RunCoordinator target, String body) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    long timestamp = NOW.getEpochSecond();
    return new RunTrigger(target, secrets, new EventSchemaValidator(), clock)
        .handle(
            bytes,
            Long.toString(timestamp),
            TriggerSignature.sign("sct_acme", timestamp, bytes),
            null);
  }

  @Test
  void aRedeliveredTriggerWhoseRunALivePlannerHasNotRecordedYetIsRefusedForNow() {
    RunCoordinator other = coordinator(recordedElsewhere(IdempotencyKeys.Claim.NOT_YET));
    try {
      RunTrigger.Outcome outcome = postTo(other, event("acme", "k"));

      assertRefused(outcome, RunTrigger.Refusal.UNAVAILABLE, "has no record yet");
      assertThat(other.runsOf("acme")).as("nothing started twice").isEmpty();
      assertThat(pendingTransitions()).isZero();
    } finally {
      other.close();
    }
  }

  @Test
  void aRedeliveredTriggerWhoseRecorderDiedBeforeTheRunsFirstRecordStartsTheRun() {
    RunCoordinator other = coordinator(recordedElsewhere(IdempotencyKeys.Claim.TAKEN_OVER));
    try {
      RunTrigger.Outcome outcome = postTo(other, event("acme", "k"));

      assertThat(outcome).isInstanceOf(RunTrigger.Accepted.class);
      RunCoordinator.KeyedStart start = ((RunTrigger.Accepted) outcome).start();
      assertThat(start.duplicate()).isFalse();
      assertThat(start.runId()).isEqualTo(RunCoordinator.runIdFor("acme", "k"));
      assertThat(other.runsOf("acme")).hasSize(1);
      assertThat(pendingTransitions()).isEqualTo(1);
    } finally {
      other.close();
    }
  }

  @Test
  void aConfigurationVersionIdRunsThatVersionsFiles() {
    RunTrigger withVersions =
        new RunTrigger(
            coordinator,
            secrets,
            new EventSchemaValidator(),
            clock,
            (tenant, id) ->
                "acme".equals(tenant) && "cv-1".equals(id)
                    ? java.util.Optional.of(
                        new dev.stagecraft.planner.service.config.ConfigurationContent(
                            Map.of("main.tf", "# from cv-1"), Map.of()))
                    : java.util.Optional.empty());
    byte[] body =
        event("acme", "k")
            .replace("{\"files\":{\"main.tf\":\"\"}}", "{\"version_id\":\"cv-1\"}")
            .getBytes(StandardCharsets.UTF_8);
    long now = NOW.getEpochSecond();
    RunTrigger.Outcome outcome =
        withVersions.handle(
            body, Long.toString(now), TriggerSignature.sign("sct_acme", now, body), null);

    assertThat(outcome).isInstanceOf(RunTrigger.Accepted.class);
    Run run = ((RunTrigger.Accepted) outcome).start().run().orElseThrow();
    assertThat(run.request.files()).containsEntry("main.tf", "# from cv-1");
  }

  @Test
  void aConfigurationVersionThatCannotBeOpenedIsRefusedWithTheReasonAndStartsNothing() {
    RunTrigger withVersions =
        new RunTrigger(
            coordinator,
            secrets,
            new EventSchemaValidator(),
            clock,
            (tenant, id) -> {
              throw new IllegalStateException(
                  "configuration version cv-1 is sealed with key k-old, which this planner does"
                      + " not have.");
            });
    byte[] body =
        event("acme", "k")
            .replace("{\"files\":{\"main.tf\":\"\"}}", "{\"version_id\":\"cv-1\"}")
            .getBytes(StandardCharsets.UTF_8);
    long now = NOW.getEpochSecond();

    assertRefused(
        withVersions.handle(
            body, Long.toString(now), TriggerSignature.sign("sct_acme", now, body), null),
        RunTrigger.Refusal.MALFORMED,
        "sealed with key k-old");
    assertThat(coordinator.runsOf("acme")).isEmpty();
  }

  @Test
  void theSameKeyOfAnotherTenantIsAnotherRun() {
    assertThat(RunCoordinator.runIdFor("acme", "k"))
        .isNotEqualTo(RunCoordinator.runIdFor("globex", "k"));
    assertThat(RunCoordinator.runIdFor("acme", "k"))
        .isEqualTo(RunCoordinator.runIdFor("acme", "k"));
  }

  @Test
  void aWrongSecretAnotherTenantsSecretOrNoSignatureStartsNothing() {
    assertRefused(
        post(event("acme", "k"), "sct_guess", NOW.getEpochSecond(), null),
        RunTrigger.Refusal.UNAUTHORIZED,
        "does not verify for tenant acme");
    // signed with acme's secret but claiming to be globex: the tenant field is not trusted
    assertRefused(
        post(event("globex", "k"), "sct_acme", NOW.getEpochSecond(), null),
        RunTrigger.Refusal.UNAUTHORIZED,
        "does not verify for tenant globex");
    assertRefused(
        trigger.handle(event("acme", "k").getBytes(StandardCharsets.UTF_8), null, null, null),
        RunTrigger.Refusal.UNAUTHORIZED,
        "not signed");
    assertThat(coordinator.runsOf("acme")).isEmpty();
    assertThat(coordinator.runsOf("globex")).isEmpty();
    assertThat(published).isEmpty();
  }

  @Test
  void anOldTimestampIsRefusedWhereAMaximumAgeApplies() {
    long old = NOW.minus(Duration.ofMinutes(6)).getEpochSecond();
    assertRefused(
        post(event("acme", "k"), "sct_acme", old, Duration.ofMinutes(5)),
        RunTrigger.Refusal.UNAUTHORIZED,
        "replay protection");
    assertThat(published).isEmpty();
  }

  /** Signed for {@code tenant} as the stagecraft-tenant header says. */
  RunTrigger.Outcome postAs(String tenant, byte[] body, String secret) {
    long timestamp = NOW.getEpochSecond();
    return trigger.handle(
        body,
        tenant,
        Long.toString(timestamp),
        TriggerSignature.sign(secret, timestamp, body),
        null,
        null);
  }

  @Test
  void malformedTriggersSayWhatIsWrongAndStartNothing() {
    assertRefused(
        postAs("acme", "not json".getBytes(StandardCharsets.UTF_8), "sct_acme"),
        RunTrigger.Refusal.MALFORMED,
        "Not a CloudEvent");
    assertRefused(
        post(
            event("acme", "k").replace(",\"idempotency_key\":\"k\"", ""),
            "sct_acme",
            NOW.getEpochSecond(),
            null),
        RunTrigger.Refusal.MALFORMED,
        "idempotency_key");
    assertRefused(
        post(
            event("acme", "k")
                .replace("{\"files\":{\"main.tf\":\"\"}}", "{\"version_id\":\"cv-1\"}"),
            "sct_acme",
            NOW.getEpochSecond(),
            null),
        RunTrigger.Refusal.MALFORMED,
        "does not have: upload it");
    assertRefused(
        post(
            event("acme", "k").replace("run.requested", "run.transitioned"),
            "sct_acme",
            NOW.getEpochSecond(),
            null),
        RunTrigger.Refusal.MALFORMED,
        "must be of type dev.stagecraft.run.requested");
    assertThat(published).isEmpty();
  }

  @Test
  void theSignatureIsCheckedBeforeAnythingOfTheBodyIsDecoded() {
    // not JSON at all: refused as unsigned, not as malformed JSON
    RunTrigger.Outcome notJson =
        trigger.handle(
            "\u0000garbage{{".getBytes(StandardCharsets.UTF_8),
            Long.toString(NOW.getEpochSecond()),
            "sha256=00",
            null);
    assertRefused(notJson, RunTrigger.Refusal.UNAUTHORIZED, "signature");
    assertThat(((RunTrigger.Refused) notJson).reason()).doesNotContain("Not a CloudEvent");
    // an event that violates its schema, wrongly signed: the signature is what is refused
    String invalid = event("acme", "k").replace("\"workspace\":\"prod\"", "\"workspace\":42");
    assertRefused(
        post(invalid, "sct_wrong", NOW.getEpochSecond(), null),
        RunTrigger.Refusal.UNAUTHORIZED,
        "signature does not verify");
    // a megabyte of nested arrays before the tenant: the scan for it gives up at 64 levels
    String nested = "{\"x\":" + "[".repeat(500_000) + "]".repeat(500_000) + ",\"tenant\":\"acme\"}";
    assertRefused(
        post(nested, "sct_acme", NOW.getEpochSecond(), null),
        RunTrigger.Refusal.UNAUTHORIZED,
        "names no tenant");
    assertThat(published).isEmpty();
  }

  @Test
  void aTriggerOverTheSizeLimitIsRefusedUnread() {
    byte[] huge = new byte[RunTrigger.MAX_BODY_BYTES + 1];
    assertRefused(
        postAs("acme", huge, "sct_acme"), RunTrigger.Refusal.TOO_LARGE, "limit of 1048576 bytes");
    assertThat(published).isEmpty();
  }

  @Test
  void theTenantHeaderNamesTheSigningTenantAndTheEventMustNameTheSame() {
    byte[] acme = event("acme", "hdr-1").getBytes(StandardCharsets.UTF_8);
    assertThat(postAs("acme", acme, "sct_acme")).isInstanceOf(RunTrigger.Accepted.class);
    byte[] other = event("other", "hdr-2").getBytes(StandardCharsets.UTF_8);
    assertRefused(
        postAs("acme", other, "sct_acme"),
        RunTrigger.Refusal.UNAUTHORIZED,
        "signed for tenant acme but the event names tenant other");
    // a second tenant member, after the one the signature was checked for, changes nothing
    String twice =
        event("acme", "hdr-3")
            .replace("\"tenant\":\"acme\",", "\"tenant\":\"acme\",\"tenant\":\"other\",");
    RunTrigger.Outcome outcome = post(twice, "sct_acme", NOW.getEpochSecond(), null);
    assertThat(outcome).isInstanceOf(RunTrigger.Refused.class);
    assertThat(keys.runFor("other", "hdr-3")).isEmpty();
    assertThat(pendingTransitions()).isEqualTo(1);
  }

  private static void assertRefused(
      RunTrigger.Outcome outcome, RunTrigger.Refusal kind, String reasonContains) {
    assertThat(outcome).isInstanceOf(RunTrigger.Refused.class);
    RunTrigger.Refused refused = (RunTrigger.Refused) outcome;
    assertThat(refused.kind()).isEqualTo(kind);
    assertThat(refused.reason()).contains(reasonContains);
  }
}
