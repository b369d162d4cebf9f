package dev.stagecraft.executor.adapter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.EventType;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.action.DispatchSealing;
import dev.stagecraft.schemas.action.ProvisionerStep;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.seal.SealedBox;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An executor with a keyring of two keys (after a rotation) against a real broker: it opens
 * dispatches sealed with either key and runs them; one it cannot open (unknown key id, sealed for
 * another tenant) is reported failed with a clear error and without any secret, and the executor
 * goes on with the next.
 */
class SealedDispatchIntegrationTest {
  private static final String TENANT = "acme";
  private static final String WORKSPACE = "prod";
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String SECRET = "pw-" + UUID.randomUUID();
  private static final String NEW_KEY = SecretsKeyring.generateEntry("k2");
  private static final String OLD_KEY = SecretsKeyring.generateEntry("k1");

  @RegisterExtension
  static final KafkaTestBroker KAFKA =
      KafkaTestBroker.withExecutor(
          "executor-sealed-kafka",
          Map.of(
              "stagecraft.instance-id",
              "executor-sealed",
              "stagecraft.secrets-keys",
              NEW_KEY + "," + OLD_KEY,
              "stagecraft.secrets-required",
              "true"));

  private final EventCodec plannerCodec = EventCodec.forSource("/stagecraft/planner-service");
  private final List<EventEnvelope> received = new ArrayList<>();
  private final List<String> rawRecords = new ArrayList<>();

  @Test
  void runsDispatchesSealedWithTheNewOrTheOldKeyAndRedactsTheirOutput() {
    ActionDispatched withNew = dispatched("echo secret=" + SECRET);
    ActionDispatched withOld = dispatched("echo again=$PASSWORD");

    publish(DispatchSealing.seal(withNew, SecretsKeyring.parse(NEW_KEY), TENANT, WORKSPACE));
    publish(DispatchSealing.seal(withOld, SecretsKeyring.parse(OLD_KEY), TENANT, WORKSPACE));

    assertThat(finished(withNew).get("outcome").asText()).isEqualTo("succeeded");
    assertThat(finished(withOld).get("outcome").asText()).isEqualTo("succeeded");
    assertThat(logLines(withNew)).contains("secret=(sensitive value)");
    assertThat(logLines(withOld)).contains("again=(sensitive value)");
    assertNoSecretInAnyRecord();
  }

  @Test
  void failsADispatchSealedWithAnUnknownKeyClearlyAndGoesOn() {
    ActionDispatched unknown = dispatched("echo must-not-run " + SECRET);
    ActionDispatched next = dispatched("echo next");

    publish(
        DispatchSealing.seal(
            unknown, SecretsKeyring.parse(SecretsKeyring.generateEntry("k9")), TENANT, WORKSPACE));
    publish(DispatchSealing.seal(next, SecretsKeyring.parse(NEW_KEY), TENANT, WORKSPACE));

    JsonNode failed = finished(unknown);
    assertThat(failed.get("outcome").asText()).isEqualTo("failed");
    assertThat(failed.get("error").asText())
        .contains("cannot open the sealed provisioners")
        .contains("key id 'k9'");
    assertThat(logLines(unknown)).noneMatch(l -> l.contains("must-not-run"));
    assertThat(finished(next).get("outcome").asText()).isEqualTo("succeeded");
    assertNoSecretInAnyRecord();
  }

  @Test
  void refusesADispatchInClearThatAnyoneOnTheTopicCouldHaveWritten() {
    ActionDispatched forged =
        dispatched("-")
            .withSecrets(
                List.of(
                    new ProvisionerStep(
                        "local-exec",
                        "create",
                        "fail",
                        "echo forged-ran",
                        List.of(),
                        Map.of(),
                        null,
                        false,
                        false)),
                List.of(),
                null);

    publish(forged);

    JsonNode failed = finished(forged);
    assertThat(failed.get("outcome").asText()).isEqualTo("failed");
    assertThat(failed.get("error").asText())
        .contains("is not sealed, but this executor has a keyring");
    assertThat(logLines(forged)).noneMatch(l -> l.contains("forged-ran"));
  }

  @Test
  void failsADispatchWhoseBoxWasSealedForAnotherTenant() {
    ActionDispatched action = dispatched("echo must-not-run " + SECRET);
    SealedBox foreign =
        DispatchSealing.seal(action, SecretsKeyring.parse(NEW_KEY), "other-tenant", WORKSPACE)
            .sealed();

    publish(action.withSecrets(List.of(), List.of(), foreign));

    JsonNode failed = finished(action);
    assertThat(failed.get("outcome").asText()).isEqualTo("failed");
    assertThat(failed.get("error").asText()).contains("tampered with, or sealed for another");
    assertNoSecretInAnyRecord();
  }

  @Test
  void healthSaysSealingIsOnWithTheKeyIdsOnly() throws Exception {
    HttpResponse<String> health = KAFKA.readyHealth();

    assertThat(health.statusCode()).isEqualTo(200);
    JsonNode secrets = EventCodec.mapper().readTree(health.body()).at("/details/secrets/details");
    assertThat(secrets.get("sealing").asText()).isEqualTo("on");
    assertThat(secrets.get("sealingKeyId").asText()).isEqualTo("k2");
    assertThat(health.body())
        .doesNotContain(NEW_KEY.substring(3))
        .doesNotContain(OLD_KEY.substring(3));
  }

  private static ActionDispatched dispatched(String command) {
    return new ActionDispatched(
        "run-" + UUID.randomUUID(),
        "action-" + UUID.randomUUID(),
        "stateful_provisioning.app",
        "stateful_provisioning",
        "create",
        Map.of("id", "app"),
        List.of(),
        List.of(
            new ProvisionerStep(
                "local-exec",
                "create",
                "fail",
                command,
                List.of(),
                Map.of("PASSWORD", SECRET),
                null,
                false,
                true)),
        7,
        List.of(SECRET));
  }

  private void publish(ActionDispatched action) {
    EventEnvelope envelope =
        plannerCodec.wrapWithId(
            action.actionId(), TENANT, WORKSPACE, action.runId(), 1, action.address(), action);
    assertThat(new String(EventCodec.encode(envelope), StandardCharsets.UTF_8))
        .doesNotContain(SECRET);
    KAFKA.planner().publish(envelope, TENANT + "/" + WORKSPACE);
  }

  private JsonNode finished(ActionDispatched action) {
    await()
        .atMost(WAIT)
        .pollInSameThread()
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              for (ConsumerRecord<String, byte[]> record :
                  KAFKA.events().poll(Duration.ofMillis(200))) {
                rawRecords.add(new String(record.value(), StandardCharsets.UTF_8));
                received.add(EventCodec.decode(record.value()));
              }
              return eventsOf(action).stream()
                  .anyMatch(e -> e.type().equals(EventType.ACTION_FINISHED.type()));
            });
    return eventsOf(action).stream()
        .filter(e -> e.type().equals(EventType.ACTION_FINISHED.type()))
        .findFirst()
        .orElseThrow()
        .data();
  }

  private List<String> logLines(ActionDispatched action) {
    return eventsOf(action).stream()
        .filter(e -> e.type().equals(EventType.ACTION_LOG.type()))
        .map(e -> e.data().get("line").asText())
        .toList();
  }

  private List<EventEnvelope> eventsOf(ActionDispatched action) {
    return received.stream()
        .filter(e -> action.actionId().equals(e.data().path("actionId").asText()))
        .toList();
  }

  private void assertNoSecretInAnyRecord() {
    String b64 = Base64.getEncoder().encodeToString(SECRET.getBytes(StandardCharsets.UTF_8));
    assertThat(rawRecords).isNotEmpty().noneMatch(r -> r.contains(SECRET) || r.contains(b64));
  }
}
