package dev.stagecraft.planner.service.adapter.clients;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stagecraft.planner.service.run.WorkspaceLocks;
import dev.stagecraft.servicekit.http.InternalHttp;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The planner's lock client: one request per command (an acquire that may wait is one long poll), a
 * 503 or an unreachable lock-service repeated within a budget. Lock-service is an HTTP stand-in
 * that answers each request with the next scripted answer (as lock-service answers,
 * docs/internal-api.md) and records what it was asked.
 */
class HttpWorkspaceLocksTest {
  private static final String LOCK = "/internal/v1/tenants/acme/workspaces/prod/lock";
  private static final String DATABASE_DOWN =
      "{\"type\":\"https://stagecraft.dev/problems/database-unavailable\",\"status\":503}";

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
  void aFreeLockIsGrantedInOneRequest() {
    script(200, "{\"lockId\":\"l-1\",\"fencingToken\":7,\"leaseExpiresAt\":\"x\"}");

    WorkspaceLocks.Acquisition a = locks.acquire("acme", "prod", "run-1", 30, 10, "info");

    assertThat(a).isEqualTo(new WorkspaceLocks.Granted("l-1", 7));
    assertThat(seen).hasSize(1);
    assertThat(seen.get(0).path()).isEqualTo(LOCK);
    assertThat(seen.get(0).body().get("waitSeconds").asInt()).isEqualTo(10);
    assertThat(seen.get(0).body().get("holder").asText()).isEqualTo("run-1");
  }

  @Test
  void aBusyLockIsQueuedWithItsPositionAndAWaitingAcquireIsOneLongPoll() {
    // first ask (the coordinator's wait 0): queued, position shown at once
    script(202, "{\"queued\":true,\"position\":2}");
    assertThat(locks.acquire("acme", "prod", "run-1", 30, 0, "info", "apply:prod"))
        .isEqualTo(new WorkspaceLocks.Queued(2));
    assertThat(seen.get(0).body().get("waitSeconds").asInt()).isZero();

    // next ask waits server-side and is granted
    script(200, "{\"lockId\":\"l-2\",\"fencingToken\":9,\"leaseExpiresAt\":\"x\"}");
    assertThat(locks.acquire("acme", "prod", "run-1", 30, 10, "info", "apply:prod"))
        .isEqualTo(new WorkspaceLocks.Granted("l-2", 9));
    assertThat(seen).extracting(ScriptedService.Seen::path).containsExactly(LOCK, LOCK);
    ScriptedService.Seen poll = seen.get(1);
    assertThat(poll.method()).isEqualTo("POST");
    assertThat(poll.body().get("holder").asText()).as("same holder: place kept").isEqualTo("run-1");
    assertThat(poll.body().get("waitSeconds").asInt()).isEqualTo(10);
    assertThat(poll.body().get("coalescingKey").asText()).isEqualTo("apply:prod");
  }

  @Test
  void aLongPollThatEndsQueuedReportsThePosition() {
    script(202, "{\"queued\":true,\"position\":2}");
    assertThat(locks.acquire("acme", "prod", "run-1", 30, 10, "info"))
        .isEqualTo(new WorkspaceLocks.Queued(2));
    assertThat(seen).extracting(ScriptedService.Seen::path).containsExactly(LOCK);
  }

  @Test
  void anAcquireAndAReleaseRepeatA503UntilTheLockServiceAnswers() {
    // the lock service's database restarts: it answers 503 for a while
    script(503, DATABASE_DOWN);
    script(503, DATABASE_DOWN);
    script(503, DATABASE_DOWN);
    script(200, "{\"lockId\":\"l-5\",\"fencingToken\":12,\"leaseExpiresAt\":\"x\"}");
    assertThat(locks.acquire("acme", "prod", "run-1", 30, 0, "info"))
        .isEqualTo(new WorkspaceLocks.Granted("l-5", 12));
    assertThat(seen).extracting(ScriptedService.Seen::path).containsExactly(LOCK, LOCK, LOCK, LOCK);
    assertThat(seen)
        .extracting(s -> s.body().get("holder").asText())
        .as("the same holder each time: acquire is idempotent by holder")
        .containsOnly("run-1");

    script(503, DATABASE_DOWN);
    script(503, DATABASE_DOWN);
    script(200, "{\"released\":\"l-5\"}");
    locks.release("acme", "prod", "l-5");
    assertThat(seen).hasSize(7);
    assertThat(seen.get(6).method() + " " + seen.get(6).path())
        .isEqualTo("DELETE " + LOCK + "/l-5");
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
    CompletableFuture<WorkspaceLocks.Acquisition> acquisition =
        CompletableFuture.supplyAsync(() -> once.acquire("acme", "prod", "run-1", 30, 0, "info"));
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> service.connectionsCut() > 0);
    script(200, "{\"lockId\":\"l-6\",\"fencingToken\":13,\"leaseExpiresAt\":\"x\"}");
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> acquisition.isDone() || service.listenAgain());
    assertThat(acquisition.get(10, TimeUnit.SECONDS))
        .isEqualTo(new WorkspaceLocks.Granted("l-6", 13));
  }

  @Test
  void a503ThatOutlastsTheBudgetIsAnErrorNamingIt() {
    HttpWorkspaceLocks impatient =
        new HttpWorkspaceLocks(
            new InternalHttp(service.url(), "token"), Duration.ZERO, Duration.ofMillis(1));
    script(503, DATABASE_DOWN);
    assertThatThrownBy(() -> impatient.acquire("acme", "prod", "run-1", 30, 0, "info"))
        .hasMessageContaining("503")
        .hasMessageContaining("database-unavailable");
    assertThat(seen).extracting(ScriptedService.Seen::path).containsExactly(LOCK);
  }

  @Test
  void aHeartbeatIsSentOnceAndTellsALostLease() {
    script(200, "{\"leaseExpiresAt\":\"x\"}");
    script(410, "{\"detail\":\"lease expired\"}");
    script(503, DATABASE_DOWN);
    assertThat(locks.heartbeat("acme", "prod", "l-4")).isTrue();
    assertThat(locks.heartbeat("acme", "prod", "l-4")).isFalse();
    assertThatThrownBy(() -> locks.heartbeat("acme", "prod", "l-4")).hasMessageContaining("503");
    assertThat(seen)
        .extracting(s -> s.method() + " " + s.path())
        .as("a heartbeat is not repeated: the next one comes a third of a lease later")
        .containsExactly(
            "POST " + LOCK + "/l-4/heartbeat",
            "POST " + LOCK + "/l-4/heartbeat",
            "POST " + LOCK + "/l-4/heartbeat");
  }
}
