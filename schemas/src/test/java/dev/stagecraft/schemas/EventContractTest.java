package dev.stagecraft.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.schemas.action.ActionHeartbeat;
import dev.stagecraft.schemas.action.ActionLog;
import dev.stagecraft.schemas.action.ActionStarted;
import dev.stagecraft.schemas.action.ActionStep;
import dev.stagecraft.schemas.action.LearnedHostKey;
import dev.stagecraft.schemas.action.ProvisionerStep;
import dev.stagecraft.schemas.action.SshConnection;
import dev.stagecraft.schemas.control.RunCancelRequested;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.lock.LockForceUnlocked;
import dev.stagecraft.schemas.lock.LockLeaseExpired;
import dev.stagecraft.schemas.run.RunDecisionRequested;
import dev.stagecraft.schemas.run.RunRequested;
import dev.stagecraft.schemas.run.RunTransitioned;
import dev.stagecraft.schemas.state.StateRecorded;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class EventContractTest {
  private final AtomicInteger ids = new AtomicInteger();
  private final EventCodec codec =
      new EventCodec(
          "/stagecraft/test",
          Clock.fixed(Instant.parse("2026-11-21T10:00:00Z"), ZoneOffset.UTC),
          () -> "id-" + ids.incrementAndGet());
  private final EventSchemaValidator validator = new EventSchemaValidator();

  static List<Object> oneOfEachType() {
    ProvisionerStep step =
        new ProvisionerStep(
            "local-exec",
            "create",
            "fail",
            "echo hi",
            List.of(),
            Map.of("A", "b"),
            null,
            false,
            false);
    return List.of(
        new ActionDispatched(
            "r1",
            "r1/a",
            "stateful_provisioning.app",
            "stateful_provisioning",
            "create",
            Map.of("id", "123", "state_key", "r1"),
            List.of(),
            List.of(step),
            7,
            List.of()),
        new ActionStarted("r1", "r1/a", "stateful_provisioning.app", "executor-1"),
        new ActionLog("r1", "r1/a", "stateful_provisioning.app", 0, "stdout", "hi"),
        new ActionStep(
            "r1",
            "r1/a",
            "stateful_provisioning.app",
            "executor-1",
            ActionStep.stepId("r1/a", 0),
            0,
            "remote-exec",
            "deploy@10.0.0.5:22",
            ActionStep.STARTED,
            null),
        new ActionHeartbeat(
            "r1", "r1/a", "stateful_provisioning.app", "executor-1", 0, "local-exec", null),
        new RunCancelRequested("r1", "canceled by alice"),
        new ActionFinished(
            "r1",
            "r1/a",
            "stateful_provisioning.app",
            "stateful_provisioning",
            "create",
            "succeeded",
            0,
            null,
            Map.of("id", "123"),
            List.of(),
            7,
            "executor-1"),
        new StateRecorded("r1", "r1/a", "stateful_provisioning.app", "succeeded", null, 3, "123"),
        new RunTransitioned("r1", "applied", null),
        new RunTransitioned("r1", "planned", "Plan: 1 to add", "9f2c", "2026-11-21T11:00:00Z"),
        new RunRequested(
            "prod",
            new RunRequested.Configuration(Map.of("main.tf", "# empty"), null),
            Map.of("revision", "abc"),
            "deploy app rev abc to prod",
            "alice",
            "slack-1234"),
        new RunDecisionRequested(
            "run-42", RunDecisionRequested.APPROVE, "sha256:ab12", "alice", "looks good"),
        new LockForceUnlocked(
            "5c1a", "terraform:5c1a", 4, "api-token:ab12", "holder crashed", "rest"),
        new LockLeaseExpired("7d2e", "run-42", 5, Instant.parse("2026-11-21T10:00:01Z")));
  }

  @Test
  void everyEventTypeRoundTripsAndValidatesAgainstItsSchema() {
    for (Object data : oneOfEachType()) {
      EventEnvelope envelope = codec.wrap("acme", "prod", "r1", 1, "subject", data);
      byte[] bytes = EventCodec.encode(envelope);
      EventEnvelope decoded = EventCodec.decode(bytes);
      assertThat(EventCodec.data(decoded, data.getClass())).isEqualTo(data);
      assertThat(decoded.tenant()).isEqualTo("acme");
      assertThat(validator.validate(new String(bytes, StandardCharsets.UTF_8)))
          .as(decoded.type())
          .isEmpty();
    }
  }

  @Test
  void aRunRequestNeedsAnIdempotencyKeyAndSpeaksSnakeCase() {
    String valid =
        "{\"specversion\":\"1.0\",\"id\":\"e1\",\"source\":\"/bot\","
            + "\"type\":\"dev.stagecraft.run.requested\",\"tenant\":\"acme\","
            + "\"data\":{\"workspace\":\"prod\",\"configuration\":{\"files\":{\"main.tf\":\"\"}},"
            + "\"requested_by\":\"alice\",\"idempotency_key\":\"k1\"}}";
    assertThat(validator.validate(valid)).isEmpty();
    assertThat(
            EventCodec.data(
                    EventCodec.decode(valid.getBytes(StandardCharsets.UTF_8)), RunRequested.class)
                .idempotencyKey())
        .isEqualTo("k1");
    assertThat(validator.validate(valid.replace(",\"idempotency_key\":\"k1\"", "")))
        .anyMatch(e -> e.contains("idempotency_key"));
  }

  @Test
  void aDecisionNamesItsRunAndAnApprovalNamesThePlanItApproves() {
    String approve =
        "{\"specversion\":\"1.0\",\"id\":\"e2\",\"source\":\"/bot\","
            + "\"type\":\"dev.stagecraft.run.decision-requested\",\"tenant\":\"acme\","
            + "\"data\":{\"run_id\":\"run-42\",\"decision\":\"approve\","
            + "\"plan_digest\":\"sha256:ab12\",\"requested_by\":\"alice\"}}";
    assertThat(validator.validate(approve)).isEmpty();
    RunDecisionRequested decoded =
        EventCodec.data(
            EventCodec.decode(approve.getBytes(StandardCharsets.UTF_8)),
            RunDecisionRequested.class);
    assertThat(decoded.runId()).isEqualTo("run-42");
    assertThat(decoded.planDigest()).isEqualTo("sha256:ab12");
    // approving needs the digest of what was shown; discarding does not
    assertThat(validator.validate(approve.replace(",\"plan_digest\":\"sha256:ab12\"", "")))
        .anyMatch(e -> e.contains("plan_digest"));
    assertThat(
            validator.validate(
                approve
                    .replace(",\"plan_digest\":\"sha256:ab12\"", "")
                    .replace("\"approve\"", "\"discard\"")))
        .isEmpty();
    assertThat(validator.validate(approve.replace("\"approve\"", "\"apply\"")))
        .anyMatch(e -> e.contains("decision"));
    assertThat(validator.validate(approve.replace("\"run_id\":\"run-42\",", "")))
        .anyMatch(e -> e.contains("run_id"));
  }

  @Test
  void everyEventTypeHasASchemaFile() {
    for (EventType type : EventType.values()) {
      assertThat(getClass().getClassLoader().getResource(type.schemaResource()))
          .as(type.schemaResource())
          .isNotNull();
    }
  }

  @Test
  void pinsTheWireFormatOfTheEnvelope() {
    EventEnvelope envelope =
        codec.wrap("acme", "prod", "r1", 4, "s", new RunTransitioned("r1", "applied", null));
    assertThat(new String(EventCodec.encode(envelope), StandardCharsets.UTF_8))
        .isEqualTo(
            "{\"specversion\":\"1.0\",\"id\":\"id-1\",\"source\":\"/stagecraft/test\","
                + "\"type\":\"dev.stagecraft.run.transitioned\",\"subject\":\"s\","
                + "\"time\":\"2026-11-21T10:00:00Z\",\"datacontenttype\":\"application/json\","
                + "\"tenant\":\"acme\",\"workspace\":\"prod\",\"runid\":\"r1\",\"sequence\":4,"
                + "\"schemaversion\":\"1\",\"data\":{\"runId\":\"r1\",\"status\":\"applied\","
                + "\"message\":null}}");
  }

  @Test
  void anInterruptedOrCanceledOutcomeIsPartOfTheContract() {
    for (String outcome : List.of(ActionFinished.INTERRUPTED, ActionFinished.CANCELED, "lost")) {
      ActionFinished finished =
          new ActionFinished(
              "r1",
              "r1/a",
              "x.a",
              "x",
              "create",
              outcome,
              null,
              "why",
              Map.of(),
              List.of(),
              7,
              "executor-1");
      List<String> errors =
          validator.validate(
              new String(
                  EventCodec.encode(codec.wrap("acme", "prod", "r1", 1, "x.a", finished)),
                  StandardCharsets.UTF_8));
      if (outcome.equals("lost")) {
        assertThat(errors).as(outcome).isNotEmpty();
      } else {
        assertThat(errors).as(outcome).isEmpty();
      }
    }
  }

  @Test
  void rejectsAnEventThatViolatesItsSchema() {
    EventEnvelope envelope =
        codec.wrap("acme", "prod", "r1", 1, "s", new RunTransitioned("r1", "exploded", null));
    assertThat(validator.validate(new String(EventCodec.encode(envelope), StandardCharsets.UTF_8)))
        .isNotEmpty()
        .anySatisfy(error -> assertThat(error).contains("status"));
  }

  @Test
  void rejectsBytesThatAreNotAnEnvelopeAsMalformed() {
    assertThatThrownBy(() -> EventCodec.decode("{not json".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(EventCodec.MalformedEventException.class);
    assertThatThrownBy(
            () -> EventCodec.decode("{\"id\":\"x\",\"type\":\"t\",\"tenant\":\"a\"}".getBytes()))
        .isInstanceOf(EventCodec.MalformedEventException.class)
        .hasMessageContaining("no data");
  }

  @Test
  void hostKeysTravelInDispatchAndFinishAndValidate() {
    String key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKqo";
    SshConnection connection =
        new SshConnection(
                "10.0.0.5",
                22,
                "deploy",
                null,
                null,
                null,
                null,
                30,
                List.of(new SshConnection.Bastion("jump", 2222, "ops", null, null, null)))
            .withKnownHostKeys(List.of(key + " first use in workspace prod"));
    connection =
        connection.withBastions(
            List.of(connection.bastions().getFirst().withKnownHostKeys(List.of(key))));
    ProvisionerStep step =
        new ProvisionerStep(
            "remote-exec",
            "create",
            "fail",
            null,
            null,
            null,
            null,
            false,
            false,
            connection,
            List.of("true"),
            null,
            null,
            null,
            null,
            0,
            0);
    ActionDispatched dispatched =
        new ActionDispatched(
            "r1", "r1/a", "x.a", "x", "create", Map.of(), List.of(), List.of(step), 7, List.of());
    ActionFinished finished = finishedLearning(new LearnedHostKey("jump", 2222, key, "SHA256:abc"));
    for (Object data : List.of(dispatched, finished)) {
      byte[] bytes = EventCodec.encode(codec.wrap("acme", "prod", "r1", 1, "x.a", data));
      assertThat(EventCodec.data(EventCodec.decode(bytes), data.getClass())).isEqualTo(data);
      assertThat(validator.validate(new String(bytes, StandardCharsets.UTF_8))).isEmpty();
    }
    String json = new String(EventCodec.encode(codec.wrap("a", "w", "r", 1, "s", finished)));
    assertThat(json)
        .contains(
            "\"learnedHostKeys\":[{\"host\":\"jump\",\"port\":2222,\"publicKey\":\""
                + key
                + "\",\"fingerprint\":\"SHA256:abc\"}]");
  }

  @Test
  void rejectsALearnedHostKeyWithoutAFingerprint() {
    String json =
        new String(
                EventCodec.encode(
                    codec.wrap(
                        "acme",
                        "prod",
                        "r1",
                        1,
                        "x.a",
                        finishedLearning(new LearnedHostKey("h", 22, "ssh-ed25519 AAAA", null)))),
                StandardCharsets.UTF_8)
            .replace(",\"fingerprint\":null", "");
    assertThat(validator.validate(json)).isNotEmpty();
  }

  /** Action {@code r1/a} ({@code x.a}) created successfully, having learned {@code key}. */
  private static ActionFinished finishedLearning(LearnedHostKey key) {
    return new ActionFinished(
        "r1",
        "r1/a",
        "x.a",
        "x",
        "create",
        "succeeded",
        null,
        null,
        Map.of(),
        List.of(),
        7,
        "executor-1",
        false,
        false,
        List.of(key));
  }
}
