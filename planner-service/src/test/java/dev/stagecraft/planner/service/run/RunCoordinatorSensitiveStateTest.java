package dev.stagecraft.planner.service.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.planner.plan.AttributeSealing;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.seal.SealedValues;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A run planned against a state holding sealed values carries none of them in clear in anything it
 * publishes or records: its transitions (with the plan text), its dispatches, its journal, its
 * message and its summary ({@code runs show}) — when the configuration keeps them with {@code
 * ignore_changes}, copies them into another resource, outputs them, or explains a failed condition
 * with them (docs/planning.md "Sensitive values from state").
 */
class RunCoordinatorSensitiveStateTest {
  static final String SECRET = "state-secret-" + "Qm27x";
  static final String KEY = SecretsKeyring.generateEntry("k1");
  static final String KEEPING =
      """
      resource "terraform_data" "a" {
        input = "configured"
        lifecycle {
          ignore_changes = all
        }
      }
      resource "stateful_provisioning" "s" {
        state_key = "k"
        triggers  = { pw = "configured" }
        tags      = { v = "2" }
        lifecycle {
          ignore_changes = [triggers]
        }
      }
      """;

  final Clock clock = Clock.fixed(Instant.parse("2026-12-02T10:00:00Z"), ZoneOffset.UTC);
  final RunCoordinatorTest.FakeStates states = new RunCoordinatorTest.FakeStates();
  final CoordinatorHarness harness =
      new CoordinatorHarness(
          new RunCoordinatorTest.FakeLocks(), states, clock, SecretsKeyring.parse(KEY));

  @AfterEach
  void close() {
    harness.close();
  }

  /**
   * The state a sealing planner wrote: {@code terraform_data.a} holds the secret in {@code input}
   * and {@code output}, {@code stateful_provisioning.s} in {@code triggers.pw}.
   */
  static String sealedState() {
    AttributeSealing sealing = AttributeSealing.of(SecretsKeyring.parse(KEY), "acme", "prod");
    List<Object> resources = new ArrayList<>();
    resources.add(
        resource(
            sealing,
            "terraform_data",
            "a",
            Map.of("id", "a-1", "input", SECRET, "output", SECRET),
            List.of(List.of("input"), List.of("output"))));
    resources.add(
        resource(
            sealing,
            "stateful_provisioning",
            "s",
            Map.of(
                "id",
                "s-1",
                "state_key",
                "k",
                "triggers",
                Map.of("pw", SECRET),
                "tags",
                Map.of("v", "1")),
            List.of(List.of("triggers", "pw"))));
    return EventCodec.mapper()
        .valueToTree(Map.of("version", 4, "serial", 3, "lineage", "l-1", "resources", resources))
        .toString();
  }

  private static Map<String, Object> resource(
      AttributeSealing sealing,
      String type,
      String name,
      Map<String, Object> attributes,
      List<List<Object>> paths) {
    Map<String, Object> instance = new LinkedHashMap<>();
    instance.put("schema_version", 0);
    instance.put("attributes", sealing.seal(type + "." + name, attributes, paths));
    return Map.of("mode", "managed", "type", type, "name", name, "instances", List.of(instance));
  }

  Run start(String mainTf) {
    states.json = sealedState();
    states.serial = 3;
    return harness.coordinator.start(CoordinatorHarness.request("acme", "prod", mainTf));
  }

  ActionDispatched awaitDispatch(String address) {
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> harness.dispatched().stream().anyMatch(d -> d.address().equals(address)));
    return harness.dispatched().stream()
        .filter(d -> d.address().equals(address))
        .findFirst()
        .orElseThrow();
  }

  /** Everything the run published and recorded, as text. */
  String everything(Run run) throws Exception {
    StringBuilder all = new StringBuilder();
    for (EventEnvelope e : harness.published) {
      all.append(new String(EventCodec.encode(e), StandardCharsets.UTF_8)).append('\n');
    }
    all.append(EventCodec.mapper().writeValueAsString(run.journal().after(0, Duration.ZERO)));
    all.append(EventCodec.mapper().writeValueAsString(run.summary()));
    synchronized (run) {
      all.append(run.message).append(run.planText);
    }
    return all.toString();
  }

  @Test
  void aRunKeepingSecretsFromStateAppliesWithoutCarryingThemInClear() throws Exception {
    Run run =
        start(
            KEEPING
                + """
                resource "terraform_data" "r" {
                  input = stateful_provisioning.s.triggers["pw"]
                }
                output "kept" {
                  value     = terraform_data.a.output
                  sensitive = true
                }
                """);

    ActionDispatched s = awaitDispatch("stateful_provisioning.s");
    harness.stateRecorded("acme", "prod", s, "succeeded", null, 4);
    ActionDispatched r = awaitDispatch("terraform_data.r");
    harness.stateRecorded("acme", "prod", r, "succeeded", null, 5);
    RunCoordinatorAttributeSealingTest.awaitEnd(run);

    synchronized (run) {
      assertThat(run.status).as(run.message).isEqualTo(RunStatus.APPLIED);
      assertThat(run.planText)
          .contains("triggers  = (sensitive value)")
          .contains("kept = (sensitive value)");
    }
    // the kept secret goes out sealed, and so does its copy in another resource
    @SuppressWarnings("unchecked")
    Map<String, Object> triggers = (Map<String, Object>) s.attributes().get("triggers");
    assertThat(SealedValues.isSealed(triggers.get("pw"))).isTrue();
    assertThat(SealedValues.isSealed(r.attributes().get("input"))).isTrue();
    assertThat(SealedValues.isSealed(r.attributes().get("output"))).isTrue();
    assertThat(harness.statuses(run)).contains("planned", "applying", "applied");
    assertThat(everything(run)).doesNotContain(SECRET);
  }

  @Test
  void aRunWhoseOutputOrConditionMessageRefersToASecretFromStateErrorsWithoutShowingIt()
      throws Exception {
    Run run =
        start(
            KEEPING
                + """
                resource "terraform_data" "c" {
                  input = "x"
                  lifecycle {
                    precondition {
                      condition     = terraform_data.a.input == "expected"
                      error_message = "a holds ${terraform_data.a.input}"
                    }
                  }
                }
                """);
    RunCoordinatorAttributeSealingTest.awaitEnd(run);
    Run output =
        start(
            KEEPING
                + """
                output "leak" {
                  value = stateful_provisioning.s.triggers
                }
                """);
    RunCoordinatorAttributeSealingTest.awaitEnd(output);

    synchronized (run) {
      assertThat(run.status).isEqualTo(RunStatus.ERRORED);
      assertThat(run.message)
          .contains("The error message included a sensitive value, so it will not be displayed.")
          .contains("Error message refers to sensitive values");
    }
    synchronized (output) {
      assertThat(output.status).isEqualTo(RunStatus.ERRORED);
      assertThat(output.message).contains("Output refers to sensitive values");
    }
    assertThat(harness.statuses(run)).contains("errored");
    assertThat(harness.statuses(output)).contains("errored");
    assertThat(harness.dispatched()).isEmpty();
    assertThat(everything(run) + everything(output)).doesNotContain(SECRET);
  }

  @Test
  void aPostconditionFailingAfterApplyReportsTheActionWithoutTheSecret() throws Exception {
    Run run =
        start(
            """
            resource "terraform_data" "n" {
              input = "new"
            }
            resource "stateful_provisioning" "s" {
              state_key = "k"
              triggers  = { pw = "configured" }
              tags      = { v = "2" }
              lifecycle {
                ignore_changes = [triggers]
                postcondition {
                  condition     = self.triggers["pw"] == terraform_data.n.id
                  error_message = "pw is ${self.triggers["pw"]}"
                }
              }
            }
            """);

    // terraform_data.a, no longer configured, is deleted meanwhile
    for (String address :
        List.of("terraform_data.a", "terraform_data.n", "stateful_provisioning.s")) {
      harness.stateRecorded("acme", "prod", awaitDispatch(address), "succeeded", null, 4);
    }
    RunCoordinatorAttributeSealingTest.awaitEnd(run);

    synchronized (run) {
      assertThat(run.status).as(run.message).isEqualTo(RunStatus.ERRORED);
    }
    assertThat(run.journal().after(0, Duration.ZERO))
        .anySatisfy(
            e ->
                assertThat(e.message())
                    .startsWith("failed:")
                    .contains("Resource postcondition failed")
                    .contains(
                        "The error message included a sensitive value, so it will not be"
                            + " displayed."));
    assertThat(everything(run)).doesNotContain(SECRET);
  }
}
