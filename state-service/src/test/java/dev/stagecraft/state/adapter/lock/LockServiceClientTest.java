package dev.stagecraft.state.adapter.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stagecraft.servicekit.http.Problem;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The state service's lock client sends each command once; any answer but the expected ones is the
 * caller's 503. Lock-service is an HTTP stand-in answering with scripted answers and recording the
 * requests' method and path ({@link ScriptedLockService}).
 */
class LockServiceClientTest {
  private static final String LOCK = "/internal/v1/tenants/acme/workspaces/prod/lock";
  private static final String DATABASE_DOWN =
      "{\"type\":\"https://stagecraft.dev/problems/database-unavailable\",\"status\":503}";

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
  void eachCommandIsOneRequest() {
    script(423, "{\"holder\":\"run-9\",\"lockId\":\"l-9\",\"fencingToken\":8,\"queueLength\":0}");
    LockServiceClient.TryLock t = client.tryLock("acme", "prod", "tf-1", 30, "info");
    assertThat(t.granted()).isNull();
    assertThat(t.held().holder()).isEqualTo("run-9");

    script(200, "{\"released\":\"l-9\"}");
    client.release("acme", "prod", "l-9");

    script(200, "{\"holder\":null,\"lockId\":null,\"queue\":[]}");
    assertThat(client.current("acme", "prod")).isEmpty();

    assertThat(seen).containsExactly("POST " + LOCK, "DELETE " + LOCK + "/l-9", "GET " + LOCK);
  }

  @Test
  void a503IsTheCallersUnavailableAtOnce() {
    script(503, DATABASE_DOWN);
    assertThatThrownBy(() -> client.heartbeat("acme", "prod", "l-1"))
        .isInstanceOf(Problem.class)
        .hasMessageContaining("503");
    assertThat(seen).containsExactly("POST " + LOCK + "/l-1/heartbeat");
  }

  @Test
  void anUnreachableLockServiceIsTheCallersUnavailableAfterOneTry() {
    String url = lockService.url();
    lockService.close(); // nothing listens there any more
    LockServiceClient gone = new LockServiceClient(url, "token");

    assertThatThrownBy(() -> gone.current("acme", "prod"))
        .isInstanceOfSatisfying(
            Problem.class,
            p -> {
              assertThat(p.status()).isEqualTo(503);
              assertThat(p.getMessage())
                  .contains("the lock service cannot be reached")
                  .contains("after 1 attempt(s)")
                  .contains("nothing was changed");
            });
  }

  @Test
  void aGrantedLockReadsBackFromTheAnswer() {
    script(200, "{\"lockId\":\"l-9\",\"fencingToken\":12,\"leaseExpiresAt\":\"later\"}");

    LockServiceClient.TryLock granted = client.tryLock("acme", "prod", "tf:me", 30, "{}");

    assertThat(granted.granted().lockId()).isEqualTo("l-9");
    assertThat(granted.granted().fencingToken()).isEqualTo(12);
    assertThat(granted.granted().holder()).isEqualTo("tf:me");
    assertThat(seen).containsExactly("POST " + LOCK);
  }
}
