package dev.stagecraft.planner.service.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The run lifecycle against in-memory lock and state ports and a recording outbox. */
class RunCoordinatorTest {
  static final String TWO_STEPS =
      """
      resource "stateful_provisioning" "db" {
        state_key = "v1"
        provisioner "local-exec" {
          command = "migrate"
        }
      }
      resource "stateful_provisioning" "app" {
        state_key = "v1"
        depends_on = [stateful_provisioning.db]
      }
      """;

  final Clock clock = Clock.fixed(Instant.parse("2026-11-21T10:00:00Z"), ZoneOffset.UTC);
  final FakeLocks locks = new FakeLocks();
  final FakeStates states = new FakeStates();
  final CoordinatorHarness harness = new CoordinatorHarness(locks, states, clock);
  final List<EventEnvelope> published = harness.published;
  final Path uploadRoot = harness.uploadRoot;
  final RunCoordinator coordinator = harness.coordinator;

  @AfterEach
  void deleteUploadRoot() {
    harness.close();
  }

  RunRequest request(String config, Long expectedSerial) {
    return new RunRequest(
        "acme",
        "prod",
        Map.of("main.tf", config),
        Map.of(),
        false,
        List.of(),
        expectedSerial,
        null,
        "tester",
        10);
  }

  List<ActionDispatched> dispatched() {
    return harness.dispatched();
  }

  List<String> statuses(Run run) {
    return harness.statuses(run);
  }

  void record(ActionDispatched action, String outcome) {
    harness.stateRecorded("acme", "prod", action, outcome, null, 1);
  }

  @Test
  void dispatchesTheDependentOnlyAfterItsDependencyIsRecordedThenReleasesTheLock() {
    Run run = coordinator.start(request(TWO_STEPS, null));
    await().atMost(Duration.ofSeconds(10)).until(() -> dispatched().size() == 1);
    ActionDispatched db = dispatched().get(0);
    assertThat(db.address()).isEqualTo("stateful_provisioning.db");
    assertThat(db.fencingToken()).isEqualTo(locks.lastToken);
    assertThat(db.provisioners()).extracting(p -> p.command()).containsExactly("migrate");
    assertThat(states.registeredTokens).containsExactly(locks.lastToken);
    record(db, "succeeded");
    assertThat(dispatched()).hasSize(2);
    record(dispatched().get(1), "succeeded");
    assertThat(run.summary().status()).isEqualTo("applied");
    assertThat(locks.released).containsExactly(locks.lastLockId);
    assertThat(statuses(run))
        .containsExactly("pending", "planning", "planned", "applying", "applied");
  }

  @Test
  void aRunWhoseLockLeaseExpiredIsEndedAndDispatchesNothingMore() {
    Run run = coordinator.start(request(TWO_STEPS, null));
    await().atMost(Duration.ofSeconds(10)).until(() -> dispatched().size() == 1);
    locks.leaseLost = true;

    coordinator.heartbeat(run);

    assertThat(run.summary().status()).isEqualTo("errored");
    assertThat(run.summary().message()).contains("lease was lost");
    record(dispatched().get(0), "succeeded");
    assertThat(dispatched()).as("nothing is dispatched after the lease is lost").hasSize(1);
  }

  @Test
  void aFailedActionStopsItsDependentsErrorsTheRunAndReleasesTheLock() {
    Run run = coordinator.start(request(TWO_STEPS, null));
    await().atMost(Duration.ofSeconds(10)).until(() -> dispatched().size() == 1);
    record(dispatched().get(0), "failed");
    assertThat(dispatched()).hasSize(1);
    assertThat(run.summary().status()).isEqualTo("errored");
    assertThat(run.summary().message()).contains("stateful_provisioning.db");
    assertThat(locks.released).containsExactly(locks.lastLockId);
  }

  @Test
  void refusesAnApprovedPlanWhenTheStateMovedSinceAndReleasesTheLock() {
    states.serial = 7;
    Run run = coordinator.start(request(TWO_STEPS, 6L));
    await().atMost(Duration.ofSeconds(10)).until(() -> run.summary().terminal());
    assertThat(run.summary().status()).isEqualTo("errored");
    assertThat(run.summary().message()).contains("stale").contains("6").contains("7");
    assertThat(dispatched()).isEmpty();
    assertThat(locks.released).containsExactly(locks.lastLockId);
  }

  @Test
  void aRunThatMustWaitIsQueuedWithItsPositionAndProceedsWhenGranted() {
    locks.queuedAnswers = 2;
    Run run = coordinator.start(request(TWO_STEPS, null));
    await().atMost(Duration.ofSeconds(10)).until(() -> dispatched().size() == 1);
    assertThat(statuses(run)).containsSubsequence("pending", "queued", "planning");
    assertThat(published.stream().map(EventEnvelope::data).map(Object::toString))
        .anySatisfy(d -> assertThat(d).contains("position 1 in the queue"));
  }

  @Test
  void refusesASavedPlanWhoseDigestNoLongerMatches() {
    RunRequest saved =
        new RunRequest(
            "acme",
            "prod",
            Map.of("main.tf", TWO_STEPS),
            Map.of(),
            false,
            List.of(),
            0L,
            "0000",
            "tester",
            10);
    Run run = coordinator.start(saved);
    await().atMost(Duration.ofSeconds(10)).until(() -> run.summary().terminal());
    assertThat(run.summary().status()).isEqualTo("errored");
    assertThat(run.summary().message()).contains("saved plan no longer matches");
    assertThat(dispatched()).isEmpty();
    assertThat(locks.released).containsExactly(locks.lastLockId);
  }

  @Test
  void aFailingPostconditionFailsTheActionAfterItWasRecorded() throws Exception {
    String config =
        """
        resource "stateful_provisioning" "db" {
          state_key = "v1"
          lifecycle {
            postcondition {
              condition     = self.id == "never"
              error_message = "The database id must be never."
            }
          }
        }
        resource "stateful_provisioning" "app" {
          state_key = "v1"
          depends_on = [stateful_provisioning.db]
        }
        """;
    Run run = coordinator.start(request(config, null));
    await().atMost(Duration.ofSeconds(10)).until(() -> dispatched().size() == 1);
    record(dispatched().get(0), "succeeded");
    assertThat(dispatched()).hasSize(1);
    assertThat(run.summary().status()).isEqualTo("errored");
    assertThat(run.journal().after(0, Duration.ZERO))
        .anySatisfy(e -> assertThat(e.message()).contains("The database id must be never."));
  }

  @Test
  void warningsFoundWhileResolvingStepsReachTheRunLog() throws Exception {
    String config =
        """
        resource "stateful_provisioning" "app" {
          state_key = "v1"
          provisioner "remote-exec" {
            inline = ["true"]
            connection {
              host         = "10.0.0.1"
              user         = "deploy"
              password     = "x"
              bastion_user = "jump"
            }
          }
        }
        """;
    Run run = coordinator.start(request(config, null));
    await().atMost(Duration.ofSeconds(10)).until(() -> dispatched().size() == 1);
    assertThat(run.journal().after(0, Duration.ZERO))
        .anySatisfy(
            e ->
                assertThat(e.message())
                    .startsWith("warning: ")
                    .contains("bastion_user")
                    .contains("bastion_host"));
  }

  @Test
  void carriesTheEffectiveCreateBeforeDestroyIntoTheDispatch() {
    String config =
        """
        resource "stateful_provisioning" "db" {
          state_key = "v1"
          lifecycle {
            create_before_destroy = true
          }
        }
        """;
    coordinator.start(request(config, null));
    await().atMost(Duration.ofSeconds(10)).until(() -> dispatched().size() == 1);
    assertThat(dispatched().get(0).createBeforeDestroy()).isTrue();
    assertThat(dispatched().get(0).skipDestroy()).isFalse();
  }

  @Test
  void aRunWithoutChangesEndsPlannedAndFinishedWithoutDispatching() {
    states.json =
        """
        {"version":4,"serial":3,"lineage":"l","resources":[
          {"mode":"managed","type":"stateful_provisioning","name":"db","instances":[{"attributes":{"id":"1","state_key":"v1"}}]},
          {"mode":"managed","type":"stateful_provisioning","name":"app","instances":[{"attributes":{"id":"2","state_key":"v1"}}]}]}
        """;
    Run run = coordinator.start(request(TWO_STEPS, null));
    await().atMost(Duration.ofSeconds(10)).until(() -> run.summary().terminal());
    assertThat(run.summary().status()).isEqualTo("planned_and_finished");
    assertThat(dispatched()).isEmpty();
    assertThat(locks.released).hasSize(1);
  }

  static final String REMOTE =
      """
      resource "stateful_provisioning" "app" {
        state_key = "v1"
        connection {
          host         = "WEB.example"
          user         = "deploy"
          password     = "pw"
          bastion_host = "jump"
          bastion_port = 2222
        }
        provisioner "remote-exec" {
          inline = ["true"]
        }
      }
      """;

  @Test
  void attachesTheWorkspacesKnownHostKeysToEachDispatchedConnectionAndBastion() {
    states.hostKeys =
        dev.stagecraft.planner.apply.KnownHostKeys.builder()
            .add("web.example", 22, "ssh-ed25519 AAAAweb first use in workspace prod")
            .add("jump", 2222, "ssh-ed25519 AAAAjump tenant known hosts")
            .add("other", 22, "ssh-ed25519 AAAAother tenant known hosts")
            .build();

    coordinator.start(request(REMOTE, null));
    await().atMost(Duration.ofSeconds(10)).until(() -> dispatched().size() == 1);

    var connection = dispatched().get(0).provisioners().get(0).connection();
    assertThat(connection.knownHostKeys())
        .containsExactly("ssh-ed25519 AAAAweb first use in workspace prod");
    assertThat(connection.bastions().get(0).knownHostKeys())
        .containsExactly("ssh-ed25519 AAAAjump tenant known hosts");
  }

  @Test
  void aRunWhoseKnownHostKeysCannotBeReadFailsInsteadOfTrustingEveryHost() {
    states.hostKeysFailure = new IllegalStateException("state-service answered 503");

    Run run = coordinator.start(request(REMOTE, null));
    await().atMost(Duration.ofSeconds(10)).until(() -> run.summary().terminal());

    assertThat(run.summary().status()).isEqualTo("errored");
    assertThat(dispatched()).isEmpty();
    assertThat(locks.released).hasSize(1);
  }

  @Test
  void supportFilesAreWrittenForTheRunReadAtDispatchAndDeletedWhenItEnds() throws Exception {
    String config =
        """
        resource "stateful_provisioning" "db" {
          state_key = file("message.txt")
        }
        resource "stateful_provisioning" "app" {
          state_key  = filemd5("scripts/deploy.sh")
          depends_on = [stateful_provisioning.db]
          connection {
            host = "h"
          }
          provisioner "remote-exec" {
            script = "scripts/deploy.sh"
          }
        }
        """;
    Run run =
        coordinator.start(
            new RunRequest(
                "acme",
                "prod",
                Map.of("main.tf", config),
                Map.of(
                    "message.txt",
                    "hello".getBytes(StandardCharsets.UTF_8),
                    "scripts/deploy.sh",
                    "#!/bin/sh\necho deploy\n".getBytes(StandardCharsets.UTF_8)),
                Map.of(),
                false,
                List.of(),
                null,
                null,
                "tester",
                10));
    await().atMost(Duration.ofSeconds(10)).until(() -> dispatched().size() == 1);
    assertThat(run.request().supportFiles()).as("not kept in memory").isEmpty();
    Path dir;
    synchronized (run) {
      dir = run.filesDir;
    }
    assertThat(dir).startsWith(uploadRoot.resolve("acme"));
    assertThat(dir.resolve("scripts/deploy.sh")).hasContent("#!/bin/sh\necho deploy");
    assertThat(dir.resolve("main.tf")).exists();
    assertThat(dispatched().get(0).attributes()).containsEntry("state_key", "hello");
    assertThat(run.summary().planText()).doesNotContain(dir.toString());
    record(dispatched().get(0), "succeeded");
    // the dependent's script is read when it is dispatched, after the first action was recorded
    assertThat(dispatched()).hasSize(2);
    assertThat(dispatched().get(1).provisioners().get(0).scripts())
        .containsExactly("#!/bin/sh\necho deploy\n");
    assertThat(dir).exists();
    record(dispatched().get(1), "succeeded");
    assertThat(run.summary().status()).isEqualTo("applied");
    assertThat(dir).doesNotExist();
    try (var left = Files.list(uploadRoot.resolve("acme"))) {
      assertThat(left).isEmpty();
    }
  }

  @Test
  void theFilesOfARunThatFailsToPlanAreDeletedToo() throws Exception {
    Run run =
        coordinator.start(
            new RunRequest(
                "acme",
                "prod",
                Map.of(
                    "main.tf",
                    "resource \"null_resource\" \"a\" {\n  triggers = { x = file(\"../x\") }\n}\n"),
                Map.of("x", new byte[] {1}),
                Map.of(),
                false,
                List.of(),
                null,
                null,
                "tester",
                10));
    await().atMost(Duration.ofSeconds(10)).until(() -> run.summary().terminal());
    assertThat(run.summary().status()).isEqualTo("errored");
    assertThat(run.summary().message()).contains("outside the configuration directory");
    try (var left = Files.list(uploadRoot.resolve("acme"))) {
      assertThat(left).isEmpty();
    }
  }

  /** Grants with growing tokens after {@code queuedAnswers} "queued"; records who asked. */
  static final class FakeLocks implements WorkspaceLocks {
    final List<String> released = Collections.synchronizedList(new ArrayList<>());
    final List<String> holders = Collections.synchronizedList(new ArrayList<>());
    final List<String> infos = Collections.synchronizedList(new ArrayList<>());
    volatile int queuedAnswers;
    volatile long lastToken;
    volatile String lastLockId;
    private long tokens = 40;

    @Override
    public synchronized Acquisition acquire(
        String tenant, String workspace, String holder, int lease, int wait, String info) {
      holders.add(holder);
      infos.add(info);
      if (queuedAnswers > 0) {
        queuedAnswers--;
        return new Queued(1);
      }
      lastToken = ++tokens;
      lastLockId = "lock-" + lastToken;
      return new Granted(lastLockId, lastToken);
    }

    /** When set, heartbeats answer that the lease is lost (the lock service's 410). */
    volatile boolean leaseLost;

    @Override
    public boolean heartbeat(String tenant, String workspace, String lockId) {
      return !leaseLost;
    }

    @Override
    public void release(String tenant, String workspace, String lockId) {
      released.add(lockId);
    }
  }

  /**
   * The state service in memory: a read answer, the registered fencing tokens, and instances by
   * address with their taint mark (changed as the state service would).
   */
  static final class FakeStates implements WorkspaceStates {
    final List<Long> registeredTokens = new CopyOnWriteArrayList<>();
    final Map<String, Boolean> tainted = new java.util.concurrent.ConcurrentHashMap<>();
    final List<String> taintCalls = new CopyOnWriteArrayList<>();
    volatile long serial;
    volatile String json;
    volatile RuntimeException failure;

    @Override
    public synchronized TaintChange changeTaint(
        String tenant,
        String workspace,
        String address,
        boolean taint,
        long fencingToken,
        String actor) {
      taintCalls.add(address + " " + taint + " token " + fencingToken + " by " + actor);
      if (failure != null) {
        throw failure;
      }
      Boolean current = tainted.get(address);
      if (current == null) {
        return new TaintRefused(Refusal.NO_SUCH_INSTANCE, "No such resource instance: " + address);
      }
      if (!taint && !current) {
        return new TaintRefused(Refusal.NOT_TAINTED, address + " is not currently tainted");
      }
      if (current != taint) {
        tainted.put(address, taint);
        serial++;
      }
      return new TaintChanged(serial);
    }

    volatile dev.stagecraft.planner.apply.KnownHostKeys hostKeys =
        dev.stagecraft.planner.apply.KnownHostKeys.NONE;
    volatile RuntimeException hostKeysFailure;

    @Override
    public dev.stagecraft.planner.apply.KnownHostKeys knownHostKeys(
        String tenant, String workspace) {
      if (hostKeysFailure != null) {
        throw hostKeysFailure;
      }
      return hostKeys;
    }

    @Override
    public String read(String tenant, String workspace) {
      return json != null ? json : "{\"version\":4,\"serial\":" + serial + ",\"resources\":[]}";
    }

    @Override
    public void registerFencingToken(String tenant, String workspace, long token) {
      registeredTokens.add(token);
    }
  }
}
