package dev.stagecraft.planner.service.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.planner.service.run.RunCoordinatorTest.FakeLocks;
import dev.stagecraft.planner.service.run.RunCoordinatorTest.FakeStates;
import dev.stagecraft.planner.service.run.intake.WorkspaceSettings;
import dev.stagecraft.planner.service.trigger.RunTrigger;
import dev.stagecraft.planner.service.trigger.RunTrigger.Refusal;
import dev.stagecraft.planner.service.trigger.TriggerSecrets;
import dev.stagecraft.planner.service.trigger.TriggerSignature;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.EventSchemaValidator;
import dev.stagecraft.schemas.action.ActionDispatched;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Chat-ops decisions on runs waiting for approval (docs/adr/0054): a signed {@code
 * dev.stagecraft.run.decision-requested} approves exactly the plan it names or discards the run;
 * anything refused leaves the run waiting; a run this instance does not drive goes to {@link
 * RunTrigger.Decisions#elsewhere} with the event as it was signed.
 */
class RunDecisionTriggerTest {
  final MovableClock clock = new MovableClock();
  final FakeLocks locks = new FakeLocks();
  final CoordinatorHarness harness = new CoordinatorHarness(locks, new FakeStates(), clock);
  final RunCoordinator coordinator =
      harness.coordinator.withApprovalTimeout(Duration.ofMinutes(30));
  final List<String> approvals = new CopyOnWriteArrayList<>();
  final List<RunTrigger.Decision> forwarded = new CopyOnWriteArrayList<>();
  final Map<String, RunTrigger.Decided> records = new ConcurrentHashMap<>();
  final AtomicBoolean recordsReadable = new AtomicBoolean(true);
  final RunTrigger trigger = newTrigger();

  /** A trigger with its own memory (a planner instance, or the same one restarted). */
  RunTrigger newTrigger() {
    return new RunTrigger(
            coordinator,
            new TriggerSecrets() {
              @Override
              public List<String> verifying(String tenant) {
                return "acme".equals(tenant) ? List.of("sct_acme") : List.of("sct_globex");
              }

              @Override
              public Issued rotate(String tenant) {
                throw new UnsupportedOperationException();
              }
            },
            new EventSchemaValidator(),
            clock)
        .withDecisions(
            new RunTrigger.Decisions() {
              @Override
              public void approved(String tenant, String runId, String by) {
                approvals.add(tenant + "/" + runId + " by " + by);
              }

              @Override
              public RunTrigger.Outcome elsewhere(RunTrigger.Decision d) {
                forwarded.add(d);
                return new RunTrigger.Refused(Refusal.NOT_FOUND, "no run " + d.runId());
              }
            },
            Duration.ofMinutes(5))
        .withDecisionRecords(
            new RunTrigger.DecisionRecords() {
              @Override
              public Optional<RunTrigger.Decided> find(
                  String tenant, String source, String eventId) {
                if (!recordsReadable.get()) {
                  throw new IllegalStateException("database down");
                }
                return Optional.ofNullable(records.get(tenant + " " + source + " " + eventId));
              }

              @Override
              public void record(String source, RunTrigger.Decided d) {
                records.putIfAbsent(d.tenant() + " " + source + " " + d.eventId(), d);
              }
            });
  }

  @AfterEach
  void cleanUp() {
    harness.close();
  }

  Run planned() {
    Run run = coordinator.startAwaitingApproval(CoordinatorHarness.twoSteps("prod"));
    await().atMost(Duration.ofSeconds(10)).until(() -> run.summary().status().equals("planned"));
    return run;
  }

  static String decision(String tenant, String runId, String decision, String digest) {
    return decision("evt-" + java.util.UUID.randomUUID(), tenant, runId, decision, digest);
  }

  static String decision(
      String eventId, String tenant, String runId, String decision, String digest) {
    return """
        {"specversion":"1.0","id":"%s","source":"/bots/slack","type":"dev.stagecraft.run.decision-requested",
         "tenant":"%s","data":{"run_id":"%s","decision":"%s"%s,"requested_by":"alice"}}
        """
        .formatted(
            eventId,
            tenant,
            runId,
            decision,
            digest == null ? "" : ",\"plan_digest\":\"" + digest + "\"");
  }

  /** Posted on the trigger topic (no maximum age given), signed {@code signedAgo} before now. */
  RunTrigger.Outcome onTopic(String body, String secret, Duration signedAgo) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    long at = clock.instant().minus(signedAgo).getEpochSecond();
    return trigger.handle(
        bytes, Long.toString(at), TriggerSignature.sign(secret, at, bytes), null, null);
  }

  /** One signed copy of an event, to be sent again as it was. */
  record Signed(byte[] body, String timestamp, String signature) {
    RunTrigger.Outcome sendTo(RunTrigger trigger) {
      return trigger.handle(body, timestamp, signature, null, null);
    }
  }

  Signed signed(String body, String secret) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    long at = clock.instant().getEpochSecond();
    return new Signed(bytes, Long.toString(at), TriggerSignature.sign(secret, at, bytes));
  }

  long dispatched() {
    return harness.published.stream()
        .filter(e -> e.type().equals("dev.stagecraft.action.dispatched"))
        .map(e -> EventCodec.data(e, ActionDispatched.class))
        .count();
  }

  @Test
  void anApprovalOfTheShownDigestAppliesThatPlanAndRecordsWhoApproved() {
    Run run = planned();
    String digest = run.summary().planDigest();

    String event = decision("evt-approve-1", "acme", run.id(), "approve", digest);
    RunTrigger.Outcome outcome = onTopic(event, "sct_acme", Duration.ZERO);

    assertThat(outcome).isInstanceOf(RunTrigger.Decided.class);
    RunTrigger.Decided decided = (RunTrigger.Decided) outcome;
    assertThat(decided.runId()).isEqualTo(run.id());
    assertThat(decided.decision()).isEqualTo("approve");
    await().atMost(Duration.ofSeconds(10)).until(() -> dispatched() == 1);
    assertThat(run.summary().message()).startsWith("Approved by alice via /bots/slack@acme.");
    assertThat(approvals).containsExactly("acme/" + run.id() + " by alice via /bots/slack@acme");
    // the same event again (a redelivery, a webhook retry) gets the same answer and decides nothing
    assertThat(onTopic(event, "sct_acme", Duration.ZERO)).isEqualTo(decided);
    // another approval (a new event) is refused: the run no longer waits
    assertRefused(
        onTopic(decision("acme", run.id(), "approve", digest), "sct_acme", Duration.ZERO),
        Refusal.CONFLICT,
        "is not waiting for approval");
    assertThat(approvals).hasSize(1);
  }

  @Test
  void aDecisionTakenBeforeARestartIsAnsweredAsItWasAfterItHoweverLateItsCopyComes() {
    Run run = planned();
    String digest = run.summary().planDigest();
    Signed approval = signed(decision("evt-7", "acme", run.id(), "approve", digest), "sct_acme");
    RunTrigger.Outcome first = approval.sendTo(trigger);
    assertThat(first).isInstanceOf(RunTrigger.Decided.class);
    await().atMost(Duration.ofSeconds(10)).until(() -> dispatched() == 1);

    // the planner restarted (nothing remembered in memory) and the copy comes after the tolerance
    RunTrigger restarted = newTrigger();
    clock.advance(Duration.ofMinutes(10));
    assertThat(approval.sendTo(restarted)).isEqualTo(first);
    assertThat(approvals).hasSize(1);
    assertThat(dispatched()).isEqualTo(1);
    // a new event as late is refused as too old; another source's event with the same id is
    // another event: it is decided on its own (the run no longer waits)
    assertRefused(
        signedAt(decision("evt-8", "acme", run.id(), "approve", digest), Duration.ofMinutes(10))
            .sendTo(restarted),
        Refusal.UNAUTHORIZED,
        "replay protection");
    assertRefused(
        signed(
                decision("evt-7", "acme", run.id(), "approve", digest)
                    .replace("/bots/slack", "/bots/teams"),
                "sct_acme")
            .sendTo(restarted),
        Refusal.CONFLICT,
        "is not waiting for approval");
    assertThat(approvals).hasSize(1);
  }

  @Test
  void aDecisionWhoseRecordsCannotBeReadDecidesNothingAndIsToBeSentAgain() {
    Run run = planned();
    String digest = run.summary().planDigest();
    recordsReadable.set(false);

    assertRefused(
        onTopic(decision("evt-9", "acme", run.id(), "approve", digest), "sct_acme", Duration.ZERO),
        Refusal.UNAVAILABLE,
        "Send it again later");
    assertThat(run.summary().status()).isEqualTo("planned");
    assertThat(approvals).isEmpty();

    recordsReadable.set(true);
    assertThat(
            onTopic(
                decision("evt-9", "acme", run.id(), "approve", digest), "sct_acme", Duration.ZERO))
        .isInstanceOf(RunTrigger.Decided.class);
    assertThat(records).containsKey("acme /bots/slack evt-9");
  }

  /** A copy of {@code body} signed {@code ago} before now with acme's secret. */
  Signed signedAt(String body, Duration ago) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    long at = clock.instant().minus(ago).getEpochSecond();
    return new Signed(bytes, Long.toString(at), TriggerSignature.sign("sct_acme", at, bytes));
  }

  @Test
  void aTriggeredRunOnAWorkspaceWithoutAutoApplyWaitsForADecisionWithTheWorkspacesParallelism() {
    trigger.withWorkspaces(
        (tenant, workspace) ->
            workspace.equals("prod")
                ? new WorkspaceSettings(false, 3, false)
                : WorkspaceSettings.DEFAULTS);
    String request =
        """
        {"specversion":"1.0","id":"evt-r1","source":"/bots/slack","type":"dev.stagecraft.run.requested",
         "tenant":"acme","data":{"workspace":"prod","configuration":{"files":{"main.tf":%s}},
         "requested_by":"alice","idempotency_key":"deploy-1"}}
        """
            .formatted(EventCodec.toJson(RunCoordinatorTest.TWO_STEPS));

    RunTrigger.Outcome started = onTopic(request, "sct_acme", Duration.ZERO);

    assertThat(started).isInstanceOf(RunTrigger.Accepted.class);
    Run run = ((RunTrigger.Accepted) started).start().run().orElseThrow();
    await().atMost(Duration.ofSeconds(10)).until(() -> run.summary().status().equals("planned"));
    assertThat(run.request.parallelism()).isEqualTo(3);
    assertThat(coordinator.approvalDeadline("acme", run.id())).isPresent();
    assertThat(dispatched()).isZero();

    RunTrigger.Outcome approved =
        onTopic(
            decision("acme", run.id(), "approve", run.summary().planDigest()),
            "sct_acme",
            Duration.ZERO);
    assertThat(approved).isInstanceOf(RunTrigger.Decided.class);
    await().atMost(Duration.ofSeconds(10)).until(() -> dispatched() == 1);
  }

  @Test
  void anotherPlansDigestIsRefusedAndTheRunStillWaitsUntilDiscarded() {
    Run run = planned();

    assertRefused(
        onTopic(decision("acme", run.id(), "approve", "sha256:other"), "sct_acme", Duration.ZERO),
        Refusal.CONFLICT,
        "is not the plan of run " + run.id());
    assertThat(run.summary().status()).isEqualTo("planned");
    assertThat(dispatched()).isZero();
    assertThat(approvals).isEmpty();

    RunTrigger.Outcome discarded =
        onTopic(decision("acme", run.id(), "discard", null), "sct_acme", Duration.ZERO);
    assertThat(discarded).isInstanceOf(RunTrigger.Decided.class);
    assertThat(((RunTrigger.Decided) discarded).status()).isEqualTo("discarded");
    assertThat(run.summary().status()).isEqualTo("discarded");
    assertThat(run.summary().message()).contains("discarded by alice via /bots/slack@acme");
    assertThat(locks.released).containsExactly(locks.lastLockId);
    assertThat(dispatched()).isZero();
  }

  @Test
  void aDecisionSignedLongerAgoThanTheToleranceIsRefusedOnTheTopicToo() {
    Run run = planned();
    String digest = run.summary().planDigest();

    assertRefused(
        onTopic(decision("acme", run.id(), "approve", digest), "sct_acme", Duration.ofMinutes(6)),
        Refusal.UNAUTHORIZED,
        "replay protection");
    assertThat(run.summary().status()).isEqualTo("planned");
    assertThat(dispatched()).isZero();
    // within the tolerance it is taken
    assertThat(
            onTopic(
                decision("acme", run.id(), "approve", digest), "sct_acme", Duration.ofMinutes(4)))
        .isInstanceOf(RunTrigger.Decided.class);
  }

  @Test
  void anotherTenantsDecisionNeverReachesTheRunAndAWrongSignatureIsRefused() {
    Run run = planned();
    String digest = run.summary().planDigest();

    // globex, correctly signed with its own secret: acme's run is none of globex's
    assertRefused(
        onTopic(decision("globex", run.id(), "discard", null), "sct_globex", Duration.ZERO),
        Refusal.NOT_FOUND,
        "no run " + run.id());
    assertThat(forwarded)
        .singleElement()
        .satisfies(d -> assertThat(d.tenant()).isEqualTo("globex"));
    // acme's tenant name signed with another secret
    assertRefused(
        onTopic(decision("acme", run.id(), "approve", digest), "sct_globex", Duration.ZERO),
        Refusal.UNAUTHORIZED,
        "does not verify");
    assertThat(run.summary().status()).isEqualTo("planned");
    assertThat(approvals).isEmpty();
  }

  @Test
  void aRunThisInstanceDoesNotDriveGoesElsewhereAsItWasSigned() {
    String body = decision("acme", "run-elsewhere", "discard", null);
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    long at = clock.instant().getEpochSecond();
    String signature = TriggerSignature.sign("sct_acme", at, bytes);

    trigger.handle(bytes, Long.toString(at), signature, Duration.ofMinutes(5), "planner-b");

    assertThat(forwarded).hasSize(1);
    RunTrigger.Decision d = forwarded.get(0);
    assertThat(d.runId()).isEqualTo("run-elsewhere");
    assertThat(d.decision()).isEqualTo("discard");
    assertThat(d.body()).isEqualTo(bytes);
    assertThat(d.timestamp()).isEqualTo(Long.toString(at));
    assertThat(d.signature()).isEqualTo(signature);
    assertThat(d.forwardedBy()).isEqualTo("planner-b");
  }

  @Test
  void anApprovalWithoutADigestOrAnUnknownDecisionIsMalformed() {
    Run run = planned();

    assertRefused(
        onTopic(decision("acme", run.id(), "approve", null), "sct_acme", Duration.ZERO),
        Refusal.MALFORMED,
        "plan_digest");
    assertRefused(
        onTopic(decision("acme", run.id(), "apply", "sha256:x"), "sct_acme", Duration.ZERO),
        Refusal.MALFORMED,
        "decision");
    assertThat(run.summary().status()).isEqualTo("planned");
    assertThat(forwarded).isEmpty();
  }

  private static void assertRefused(
      RunTrigger.Outcome outcome, Refusal kind, String reasonContains) {
    assertThat(outcome).isInstanceOf(RunTrigger.Refused.class);
    RunTrigger.Refused refused = (RunTrigger.Refused) outcome;
    assertThat(refused.kind()).isEqualTo(kind);
    assertThat(refused.reason()).contains(reasonContains);
  }
}
