package dev.stagecraft.planner.service.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.planner.service.adapter.clients.HttpWorkspaceLocks;
import dev.stagecraft.planner.service.run.intake.WorkspaceSettings;
import dev.stagecraft.planner.service.trigger.RunTrigger;
import dev.stagecraft.planner.service.trigger.TriggerSecrets;
import dev.stagecraft.planner.service.trigger.TriggerSignature;
import dev.stagecraft.schemas.EventSchemaValidator;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A run's lock request carries its coalescing key, and a run the lock service reports superseded (a
 * newer run with the same key took its place in the queue) ends {@code canceled}, naming the newer
 * run, without having held the lock. (Against the real lock service: system-tests {@code
 * RunCoalescingAndIdempotencyTest}.)
 */
class RunCoalescingTest {
  final Clock clock = Clock.fixed(Instant.parse("2026-11-21T10:00:00Z"), ZoneOffset.UTC);
  final CoalescingLocks locks = new CoalescingLocks();
  final CoordinatorHarness harness =
      new CoordinatorHarness(locks, new RunCoordinatorTest.FakeStates(), clock);
  final RunCoordinator coordinator = harness.coordinator;

  @AfterEach
  void close() {
    harness.close();
  }

  RunRequest request() {
    return CoordinatorHarness.twoSteps("prod");
  }

  @Test
  void aQueuedRunReportedSupersededEndsCanceledNamingTheNewerRunAndNeverTakesTheLock() {
    Run run = coordinator.start(request().withCoalescingKey("run:default"));
    await().atMost(Duration.ofSeconds(10)).until(() -> "queued".equals(run.summary().status()));

    locks.supersede(run.id(), "run-newer");

    await().atMost(Duration.ofSeconds(30)).until(() -> run.summary().terminal());
    assertThat(run.summary().status()).isEqualTo("canceled");
    assertThat(run.summary().message())
        .startsWith("Superseded by run run-newer")
        .contains("'run:default'")
        .contains("nothing was planned or applied");
    assertThat(locks.keys).isNotEmpty().allMatch("run:default"::equals);
    assertThat(locks.released).as("it never held the lock").isEmpty();
    assertThat(harness.statuses(run)).containsExactly("pending", "queued", "canceled");
    assertThat(harness.dispatched()).isEmpty();
  }

  @Test
  void aRunWithoutACoalescingKeyAsksForTheLockWithoutOne() {
    locks.queueFirst = false;
    Run run = coordinator.start(request());
    await().atMost(Duration.ofSeconds(10)).until(() -> !harness.dispatched().isEmpty());
    assertThat(locks.keys).containsExactly("(none)");
    assertThat(run.summary().status()).isEqualTo("applying");
  }

  @Test
  void aTriggersRunAsksWithTheDefaultKeyOnlyOnAWorkspaceThatCoalesces() {
    locks.queueFirst = false;
    RunTrigger trigger =
        new RunTrigger(
                coordinator,
                new TriggerSecrets() {
                  @Override
                  public List<String> verifying(String tenant) {
                    return List.of("sct_acme");
                  }

                  @Override
                  public Issued rotate(String tenant) {
                    throw new UnsupportedOperationException();
                  }
                },
                new EventSchemaValidator(),
                clock)
            .withWorkspaces(
                (tenant, workspace) -> new WorkspaceSettings(true, 10, workspace.equals("prod")));

    for (String workspace : List.of("prod", "stage")) {
      byte[] body =
          """
          {"specversion":"1.0","id":"evt-%s","source":"/bots/ci","type":"dev.stagecraft.run.requested",
           "tenant":"acme","data":{"workspace":"%s","configuration":{"files":{"main.tf":""}},
           "idempotency_key":"ci-%s"}}
          """
              .formatted(workspace, workspace, workspace)
              .getBytes(StandardCharsets.UTF_8);
      long now = clock.instant().getEpochSecond();
      var outcome =
          trigger.handle(
              body,
              Long.toString(now),
              TriggerSignature.sign("sct_acme", now, body),
              Duration.ofMinutes(5));
      assertThat(outcome).isInstanceOf(RunTrigger.Accepted.class);
      Run run = ((RunTrigger.Accepted) outcome).start().run().orElseThrow();
      await().atMost(Duration.ofSeconds(10)).until(() -> run.summary().terminal());
    }
    assertThat(locks.keys).containsExactly("run:default", "(none)");
  }

  @Test
  void theNewerHolderIsReadFromTheLockServicesSupersededDetail() {
    assertThat(
            HttpWorkspaceLocks.supersedingHolder(
                "the queued request of 'run-a' was replaced by a newer request from 'run-b' with"
                    + " the same coalescing key 'run:default': it is no longer queued; stop"
                    + " waiting (the newer request does the work)"))
        .isEqualTo("run-b");
    assertThat(HttpWorkspaceLocks.supersedingHolder("something else")).isEqualTo("a newer request");
  }

  /**
   * Queues every holder (when {@link #queueFirst}) until it is marked superseded, records the
   * coalescing key of every ask ("(none)" for null), grants otherwise.
   */
  static final class CoalescingLocks implements WorkspaceLocks {
    final List<String> keys = Collections.synchronizedList(new ArrayList<>());
    final List<String> released = Collections.synchronizedList(new ArrayList<>());
    final Map<String, String> superseded = new ConcurrentHashMap<>();
    volatile boolean queueFirst = true;

    @Override
    public Acquisition acquire(
        String tenant, String workspace, String holder, int lease, int wait, String info) {
      return acquire(tenant, workspace, holder, lease, wait, info, null);
    }

    @Override
    public Acquisition acquire(
        String tenant,
        String workspace,
        String holder,
        int lease,
        int wait,
        String info,
        String coalescingKey) {
      keys.add(coalescingKey == null ? "(none)" : coalescingKey);
      if (!queueFirst) {
        return new Granted("lock-1", 1);
      }
      // like the lock service: a queued ask waits up to `wait` seconds for news of its holder
      long deadline = System.nanoTime() + Duration.ofSeconds(wait).toNanos();
      synchronized (this) {
        while (!superseded.containsKey(holder) && System.nanoTime() < deadline) {
          try {
            wait(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            break;
          }
        }
      }
      String by = superseded.get(holder);
      return by != null ? new Superseded(by) : new Queued(1);
    }

    /** The lock service's news: a newer request with the same key replaced {@code holder}. */
    synchronized void supersede(String holder, String byHolder) {
      superseded.put(holder, byHolder);
      notifyAll();
    }

    @Override
    public boolean heartbeat(String tenant, String workspace, String lockId) {
      return true;
    }

    @Override
    public void release(String tenant, String workspace, String lockId) {
      released.add(lockId);
    }
  }
}
