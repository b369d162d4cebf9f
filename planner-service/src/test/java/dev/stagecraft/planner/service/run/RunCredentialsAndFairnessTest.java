package dev.stagecraft.planner.service.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.planner.service.run.admission.TenantAdmission;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.run.RunTransitioned;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Per-run state credentials (ADR 0013) and fair sharing between tenants, in the coordinator. */
class RunCredentialsAndFairnessTest {
  static final String ONE_STEP =
      """
      resource "stateful_provisioning" "app" {
        state_key = "v1"
        provisioner "local-exec" {
          command = "deploy"
        }
      }
      """;

  final Clock clock = Clock.fixed(Instant.parse("2026-11-21T10:00:00Z"), ZoneOffset.UTC);
  final RunCoordinatorTest.FakeLocks locks = new RunCoordinatorTest.FakeLocks();
  final CredentialStates states = new CredentialStates();
  final CoordinatorHarness harness = new CoordinatorHarness(locks, states, clock);
  final List<EventEnvelope> published = harness.published;
  final RunCoordinator coordinator = harness.coordinator;

  @AfterEach
  void close() {
    harness.close();
  }

  @Test
  void runUsesItsOwnCredentialAndRevokesItBeforeItsEndIsAnnounced() {
    Run run = coordinator.start(request("acme", "prod"));
    await().atMost(Duration.ofSeconds(10)).until(() -> dispatched().size() == 1);
    ActionDispatched action = dispatched().getFirst();

    String minted = states.minted.get(run.id());
    assertThat(minted).startsWith("scr_");
    assertThat(states.mintedWithToken).containsExactly(locks.lastToken);
    assertThat(states.readWith)
        .containsExactly(minted); // state read with it, not the service token
    assertThat(action.runCredential()).isEqualTo(minted); // unsealed here: no secrets key
    assertThat(action.toString()).doesNotContain(minted);
    assertThat(states.revokedWhileStatus).isEmpty();

    record(action, "succeeded");

    assertThat(run.summary().status()).isEqualTo("applied");
    // revoked once, while the run's last announced status was still applying
    assertThat(states.revokedWhileStatus).containsExactly(run.id() + ":applying");
  }

  @Test
  void canceledQueuedRunNeitherMintsNorKeepsASlot() {
    coordinator.withAdmission(new TenantAdmission(1, Map.of(), 0));
    Run first = coordinator.start(request("acme", "w1"));
    // the first holds the tenant's one slot before the second asks (each run is admitted on its
    // own thread: started together, either could be first)
    await().atMost(Duration.ofSeconds(10)).until(() -> dispatched().size() == 1);
    Run second = coordinator.start(request("acme", "w2"));
    await().atMost(Duration.ofSeconds(10)).until(() -> statuses(second).contains("queued"));
    coordinator.cancel("acme", second.id(), "tester");
    assertThat(second.summary().status()).isEqualTo("canceled");
    record(dispatched().getFirst(), "succeeded");
    assertThat(first.summary().status()).isEqualTo("applied");

    Run third = coordinator.start(request("acme", "w3"));
    await().atMost(Duration.ofSeconds(10)).until(() -> statuses(third).contains("applying"));
    assertThat(states.minted).doesNotContainKey(second.id());
  }

  @Test
  void oneTenantsBurstDoesNotDelayAnotherTenantsRun() {
    coordinator.withAdmission(new TenantAdmission(4, Map.of(), 0));
    List<Run> burst = new java.util.ArrayList<>();
    for (int i = 0; i < 50; i++) {
      burst.add(coordinator.start(request("tenant-a", "ws-" + i)));
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                burst.stream().filter(r -> statuses(r).contains("queued")).count() == 46
                    && burst.stream().filter(r -> statuses(r).contains("applying")).count() == 4);
    Run other = coordinator.start(request("tenant-b", "ws-b"));
    await().atMost(Duration.ofSeconds(10)).until(() -> statuses(other).contains("applying"));

    assertThat(burst.stream().filter(r -> statuses(r).contains("applying"))).hasSize(4);
    assertThat(
            burst.stream()
                .filter(r -> statuses(r).contains("queued"))
                .map(r -> r.summary().message()))
        .containsOnly("waiting: tenant has 4 active runs (cap 4)");

    // drain tenant A's backlog: record every dispatched action until all 50 ran
    Set<String> recorded = new HashSet<>();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              for (ActionDispatched a : dispatched()) {
                if (recorded.add(a.actionId())) {
                  record(a, "succeeded");
                }
              }
              return burst.stream().allMatch(r -> "applied".equals(r.summary().status()));
            });
    // from the recorded transition order: B applied before A's backlog drained
    int bApplying = indexOf(other, "applying");
    int lastAApplying = burst.stream().mapToInt(r -> indexOf(r, "applying")).max().orElseThrow();
    assertThat(bApplying).isLessThan(lastAApplying);
    assertThat(transitionsOf(burst)).filteredOn("applying"::equals).hasSize(50);
  }

  private RunRequest request(String tenant, String workspace) {
    return CoordinatorHarness.request(tenant, workspace, ONE_STEP);
  }

  private List<ActionDispatched> dispatched() {
    return harness.dispatched();
  }

  private List<String> statuses(Run run) {
    return harness.statuses(run);
  }

  private List<String> transitionsOf(List<Run> runs) {
    return runs.stream().flatMap(r -> statuses(r).stream()).toList();
  }

  private int indexOf(Run run, String status) {
    for (int i = 0; i < published.size(); i++) {
      EventEnvelope e = published.get(i);
      if (e.type().equals("dev.stagecraft.run.transitioned")
          && run.id().equals(e.runid())
          && status.equals(EventCodec.data(e, RunTransitioned.class).status())) {
        return i;
      }
    }
    throw new AssertionError(run.id() + " never became " + status);
  }

  private void record(ActionDispatched action, String outcome) {
    harness.stateRecorded(action, outcome, null, 1);
  }

  /** The state service's credential endpoints in memory; the state is always empty. */
  final class CredentialStates implements WorkspaceStates {
    final Map<String, String> minted = new java.util.concurrent.ConcurrentHashMap<>();
    final List<Long> mintedWithToken = new CopyOnWriteArrayList<>();
    final List<String> readWith = new CopyOnWriteArrayList<>();
    final List<String> revokedWhileStatus = new CopyOnWriteArrayList<>();

    @Override
    public String read(String tenant, String workspace) {
      readWith.add("service-token");
      return null;
    }

    @Override
    public String read(String tenant, String workspace, String runCredential) {
      readWith.add(runCredential);
      return null;
    }

    @Override
    public String mintRunCredential(
        String tenant, String workspace, String runId, long fencingToken) {
      mintedWithToken.add(fencingToken);
      String credential = dev.stagecraft.schemas.action.RunCredentialProof.newCredential();
      minted.put(runId, credential);
      return credential;
    }

    @Override
    public void revokeRunCredential(String tenant, String workspace, String runId) {
      List<String> seen =
          published.stream()
              .filter(e -> e.type().equals("dev.stagecraft.run.transitioned"))
              .filter(e -> runId.equals(e.runid()))
              .map(e -> EventCodec.data(e, RunTransitioned.class).status())
              .toList();
      revokedWhileStatus.add(runId + ":" + seen.getLast());
    }

    @Override
    public void registerFencingToken(String tenant, String workspace, long token) {}

    @Override
    public TaintChange changeTaint(
        String tenant,
        String workspace,
        String address,
        boolean tainted,
        long fencingToken,
        String actor) {
      throw new UnsupportedOperationException();
    }
  }
}
