package dev.stagecraft.planner.service.adapter.clients;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stagecraft.planner.service.run.WorkspaceLocks;
import dev.stagecraft.servicekit.http.InternalHttp;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The planner's lock client asks the quick route first and long-polls on the waiting route only
 * when queued (or when the quick route answers 503). Lock-service is an HTTP stand-in that answers
 * each request with the next scripted answer (as lock-service answers, docs/internal-api.md) and
 * records what it was asked.
 */
class HttpWorkspaceLocksTest {
  private static final String WAITING = "/internal/v1/tenants/acme/workspaces/prod/lock";
  private static final String QUICK = "/internal/v1/quick/tenants/acme/workspaces/prod/lock";

  private ScriptedService service;
  private List<ScriptedService.Seen> seen;
  private HttpWorkspaceLocks locks;

  @BeforeEach
  void start() throws IOException {
    service = ScriptedService.start();
    seen = service.seen();
    locks =
        new HttpWorkspaceLocks(
            new InternalHttp(service.url(), "token"), Duration.ofSeconds(5), Duration.ofMillis(1));
  }

  @AfterEach
  void stop() {
    service.close();
  }

  private void script(int status, String body) {
    service.script(status, body);
  }

  @Test
  void aFreeLockIsGrantedInOneRequestOnTheQuickRoute() {
    script(200, "{\"lockId\":\"l-1\",\"fencingToken\":7,\"leaseExpiresAt\":\"x\"}");

    WorkspaceLocks.Acquisition a = locks.acquire("acme", "prod", "run-1", 30, 10, "info");

    assertThat(a).isEqualTo(new WorkspaceLocks.Granted("l-1", 7));
    assertThat(seen).hasSize(1);
    assertThat(seen.get(0).path()).isEqualTo(QUICK);
    assertThat(seen.get(0).body().get("waitSeconds").asInt()).isZero();
    assertThat(seen.get(0).body().get("holder").asText()).isEqualTo("run-1");
  }

  @Test
  void aBusyLockIsQueuedOnTheQuickRouteThenLongPolledOnTheWaitingRouteWithItsPosition() {
    // first ask (the coordinator's wait 0): queued, position shown at once, no long poll
    script(202, "{\"queued\":true,\"position\":2}");
    assertThat(locks.acquire("acme", "prod", "run-1", 30, 0, "info", "apply:prod"))
        .isEqualTo(new WorkspaceLocks.Queued(2));
    assertThat(seen).extracting(ScriptedService.Seen::path).containsExactly(QUICK);

    // next ask waits: quick says queued (position 1 now), the waiting route waits and grants
    script(202, "{\"queued\":true,\"position\":1}");
    script(200, "{\"lockId\":\"l-2\",\"fencingToken\":9,\"leaseExpiresAt\":\"x\"}");
    assertThat(locks.acquire("acme", "prod", "run-1", 30, 10, "info", "apply:prod"))
        .isEqualTo(new WorkspaceLocks.Granted("l-2", 9));
    assertThat(seen).extracting(ScriptedService.Seen::path).containsExactly(QUICK, QUICK, WAITING);
    ScriptedService.Seen poll = seen.get(2);
    assertThat(poll.method()).isEqualTo("POST");
    assertThat(poll.body().get("holder").asText()).as("same holder: place kept").isEqualTo("run-1");
    assertThat(poll.body().get("waitSeconds").asInt()).isEqualTo(10);
    assertThat(poll.body().get("coalescingKey").asText()).isEqualTo("apply:prod");
    assertThat(seen.get(1).body().get("waitSeconds").asInt()).isZero();
  }

  @Test
  void aLongPollThatEndsQueuedReportsTheWaitingRoutesPosition() {
    script(202, "{\"queued\":true,\"position\":3}");
    script(202, "{\"queued\":true,\"position\":2}");
    assertThat(locks.acquire("acme", "prod", "run-1", 30, 10, "info"))
        .isEqualTo(new WorkspaceLocks.Queued(2));
    assertThat(seen).extracting(ScriptedService.Seen::path).containsExactly(QUICK, WAITING);
  }

  @Test
  void a503FromTheQuickRouteIsRetriedOnceOnTheWaitingRoute() {
    String unavailable =
        "{\"type\":\"https://stagecraft.dev/problems/quick-path-unavailable\",\"status\":503}";
    script(503, unavailable);
    script(200, "{\"lockId\":\"l-3\",\"fencingToken\":11,\"leaseExpiresAt\":\"x\"}");
    assertThat(locks.acquire("acme", "prod", "run-1", 30, 0, "info"))
        .isEqualTo(new WorkspaceLocks.Granted("l-3", 11));
    assertThat(seen).extracting(ScriptedService.Seen::path).containsExactly(QUICK, WAITING);
    assertThat(seen.get(1).body().get("waitSeconds").asInt()).isZero();

    script(503, unavailable);
    script(200, "{\"leaseExpiresAt\":\"x\"}");
    assertThat(locks.heartbeat("acme", "prod", "l-3")).isTrue();
    script(503, unavailable);
    script(200, "{\"released\":\"l-3\"}");
    locks.release("acme", "prod", "l-3");
    assertThat(seen)
        .extracting(s -> s.method() + " " + s.path())
        .containsExactly(
            "POST " + QUICK,
            "POST " + WAITING,
            "POST " + QUICK + "/l-3/heartbeat",
            "POST " + WAITING + "/l-3/heartbeat",
            "DELETE " + QUICK + "/l-3",
            "DELETE " + WAITING + "/l-3");
  }

  private static final String DATABASE_DOWN =
      "{\"type\":\"https://stagecraft.dev/problems/database-unavailable\",\"status\":503}";

  @Test
  void anAcquireAndAReleaseRepeatA503FromTheWaitingRouteUntilTheLockServiceAnswers() {
    // the lock service's database restarts: both routes answer 503 for a while
    script(503, DATABASE_DOWN);
    script(503, DATABASE_DOWN);
    script(503, DATABASE_DOWN);
    script(200, "{\"lockId\":\"l-5\",\"fencingToken\":12,\"leaseExpiresAt\":\"x\"}");
    assertThat(locks.acquire("acme", "prod", "run-1", 30, 0, "info"))
        .isEqualTo(new WorkspaceLocks.Granted("l-5", 12));
    assertThat(seen)
        .extracting(ScriptedService.Seen::path)
        .containsExactly(QUICK, WAITING, WAITING, WAITING);
    assertThat(seen)
        .extracting(s -> s.body().get("holder").asText())
        .as("the same holder each time: acquire is idempotent by holder")
        .containsOnly("run-1");

    script(503, DATABASE_DOWN);
    script(503, DATABASE_DOWN);
    script(200, "{\"released\":\"l-5\"}");
    locks.release("acme", "prod", "l-5");
    assertThat(seen).hasSize(7);
  }

  @Test
  void anAcquireWaitsForALockServiceThatCannotBeReachedYet() throws Exception {
    // one try per request: only the lock client's own repetition can ride out the restart
    HttpWorkspaceLocks once =
        new HttpWorkspaceLocks(
            new InternalHttp(service.url(), "token", 1),
            Duration.ofSeconds(10),
            Duration.ofMillis(50));
    service.goDown(); // lock-service restarts: its connections are cut for a while
    java.util.concurrent.CompletableFuture<WorkspaceLocks.Acquisition> acquisition =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () -> once.acquire("acme", "prod", "run-1", 30, 0, "info"));
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> service.connectionsCut() > 0);
    script(200, "{\"lockId\":\"l-6\",\"fencingToken\":13,\"leaseExpiresAt\":\"x\"}");
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> acquisition.isDone() || service.listenAgain());
    assertThat(acquisition.get(10, java.util.concurrent.TimeUnit.SECONDS))
        .isEqualTo(new WorkspaceLocks.Granted("l-6", 13));
  }

  @Test
  void a503ThatOutlastsTheBudgetIsAnErrorNamingIt() {
    HttpWorkspaceLocks impatient =
        new HttpWorkspaceLocks(
            new InternalHttp(service.url(), "token"), Duration.ZERO, Duration.ofMillis(1));
    script(503, DATABASE_DOWN);
    script(503, DATABASE_DOWN);
    assertThatThrownBy(() -> impatient.acquire("acme", "prod", "run-1", 30, 0, "info"))
        .hasMessageContaining("503")
        .hasMessageContaining("database-unavailable");
    assertThat(seen).extracting(ScriptedService.Seen::path).containsExactly(QUICK, WAITING);
  }

  @Test
  void heartbeatAndReleaseUseTheQuickRoute() {
    script(200, "{\"leaseExpiresAt\":\"x\"}");
    script(410, "{\"detail\":\"lease expired\"}");
    script(200, "{\"released\":\"l-4\"}");
    assertThat(locks.heartbeat("acme", "prod", "l-4")).isTrue();
    assertThat(locks.heartbeat("acme", "prod", "l-4")).isFalse();
    locks.release("acme", "prod", "l-4");
    assertThat(seen)
        .extracting(s -> s.method() + " " + s.path())
        .containsExactly(
            "POST " + QUICK + "/l-4/heartbeat",
            "POST " + QUICK + "/l-4/heartbeat",
            "DELETE " + QUICK + "/l-4");
  }
}
