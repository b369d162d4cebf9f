package dev.stagecraft.state.adapter.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The state service's lock client uses the lock service's quick route and, on its 503, the waiting
 * route once. Lock-service is an HTTP stand-in answering with scripted answers and recording the
 * requests' method and path ({@link ScriptedLockService}).
 */
class LockServiceClientTest {
  private static final String WAITING = "/internal/v1/tenants/acme/workspaces/prod/lock";
  private static final String QUICK = "/internal/v1/quick/tenants/acme/workspaces/prod/lock";
  private static final String UNAVAILABLE =
      "{\"type\":\"https://stagecraft.dev/problems/quick-path-unavailable\",\"status\":503}";

  private ScriptedLockService lockService;
  private List<String> seen;
  private LockServiceClient client;

  @BeforeEach
  void start() throws IOException {
    lockService = new ScriptedLockService();
    seen = lockService.seen();
    client = lockService.client();
  }

  @AfterEach
  void stop() {
    lockService.close();
  }

  private void script(int status, String body) {
    lockService.script(status, body);
  }

  @Test
  void aTryLockIsOneRequestOnTheQuickRoute() {
    script(200, "{\"lockId\":\"l-1\",\"fencingToken\":3,\"leaseExpiresAt\":\"x\"}");
    LockServiceClient.TryLock t = client.tryLock("acme", "prod", "tf-1", 30, "info");
    assertThat(t.granted().lockId()).isEqualTo("l-1");
    assertThat(seen).containsExactly("POST " + QUICK);
  }

  @Test
  void a503OfTheQuickRouteIsAskedOnceMoreOnTheWaitingRoute() {
    script(503, UNAVAILABLE);
    script(423, "{\"holder\":\"run-9\",\"lockId\":\"l-9\",\"fencingToken\":8,\"queueLength\":0}");
    LockServiceClient.TryLock t = client.tryLock("acme", "prod", "tf-1", 30, "info");
    assertThat(t.granted()).isNull();
    assertThat(t.held().holder()).isEqualTo("run-9");

    script(503, UNAVAILABLE);
    script(200, "{\"released\":\"l-9\"}");
    client.release("acme", "prod", "l-9");

    script(200, "{\"holder\":null,\"lockId\":null,\"queue\":[]}");
    assertThat(client.current("acme", "prod")).isEmpty();

    assertThat(seen)
        .containsExactly(
            "POST " + QUICK,
            "POST " + WAITING,
            "DELETE " + QUICK + "/l-9",
            "DELETE " + WAITING + "/l-9",
            "GET " + QUICK);
  }

  @Test
  void twoAnswersOf503AreTheCallersUnavailable() {
    script(503, UNAVAILABLE);
    script(503, UNAVAILABLE);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> client.heartbeat("acme", "prod", "l-1"))
        .isInstanceOf(dev.stagecraft.servicekit.http.Problem.class)
        .hasMessageContaining("503");
    assertThat(seen)
        .containsExactly("POST " + QUICK + "/l-1/heartbeat", "POST " + WAITING + "/l-1/heartbeat");
  }

  @Test
  void anUnreachableLockServiceIsTheCallersUnavailableAfterOneTry() {
    String url = lockService.url();
    lockService.close(); // nothing listens there any more
    LockServiceClient gone = new LockServiceClient(url, "token");

    org.assertj.core.api.Assertions.assertThatThrownBy(() -> gone.current("acme", "prod"))
        .isInstanceOfSatisfying(
            dev.stagecraft.servicekit.http.Problem.class,
            p -> {
              assertThat(p.status()).isEqualTo(503);
              assertThat(p.getMessage())
                  .contains("the lock service cannot be reached")
                  .contains("after 1 attempt(s)")
                  .contains("nothing was changed");
            });
  }

  @Test
  void aGrantedLockReadsBackFromTheQuickRoutesAnswer() {
    script(200, "{\"lockId\":\"l-9\",\"fencingToken\":12,\"leaseExpiresAt\":\"later\"}");

    LockServiceClient.TryLock granted = client.tryLock("acme", "prod", "tf:me", 30, "{}");

    assertThat(granted.granted().lockId()).isEqualTo("l-9");
    assertThat(granted.granted().fencingToken()).isEqualTo(12);
    assertThat(granted.granted().holder()).isEqualTo("tf:me");
    assertThat(seen).containsExactly("POST " + QUICK);
  }
}
