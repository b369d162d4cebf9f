package dev.stagecraft.state.adapter.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stagecraft.servicekit.http.Problem;
import dev.stagecraft.state.adapter.db.TenantStore.Principal;
import dev.stagecraft.state.adapter.lock.ScriptedLockService;
import java.io.IOException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The lock check of a push under a Terraform lock ID (ADR 0043): one lock-service call (the
 * heartbeat of the lease remembered for that ID) when this instance saw that lease held, else the
 * two calls (the current lease, then the heartbeat) that say why a push is refused. The lock
 * service is an HTTP stand-in that records every request ({@link ScriptedLockService}); every path
 * here uses locks only, so there is no state store behind them.
 */
class BackendLocksTest {
  private static final String LOCK = "/internal/v1/tenants/acme/workspaces/prod/lock";
  private static final String FREE = "{\"holder\":null,\"lockId\":null,\"queue\":[]}";
  private static final Principal CI = new Principal("acme", "deployer", "token:ci");

  private ScriptedLockService lockService;
  private BackendLocks locks;

  @BeforeEach
  void start() throws IOException {
    lockService = new ScriptedLockService();
    locks = new BackendLocks(lockService.client(), null, null, 3600);
  }

  @AfterEach
  void stop() {
    lockService.close();
  }

  /** LOCK of workspace prod as Terraform's LockInfo {@code id}, granted as lock l-1, token 7. */
  private void lockAs(String id) {
    lockService.script(200, "{\"lockId\":\"l-1\",\"fencingToken\":7,\"leaseExpiresAt\":\"x\"}");
    assertThat(
            locks
                .lock(CI, "prod", "{\"ID\":\"" + id + "\",\"Operation\":\"OperationTypeApply\"}")
                .code())
        .isEqualTo(200);
    lockService.forget();
  }

  private static String heldBy(String holder, String lockId, long token) {
    return "{\"holder\":\""
        + holder
        + "\",\"lockId\":\""
        + lockId
        + "\",\"fencingToken\":"
        + token
        + ",\"acquiredAt\":\"a\",\"leaseExpiresAt\":\"b\",\"info\":null}";
  }

  @Test
  void aPushUnderALockThisInstanceGrantedIsOneHeartbeatOfThatLease() throws Exception {
    lockAs("tf-1");

    lockService.script(200, "{\"leaseExpiresAt\":\"later\"}");
    assertThat(locks.writeToken(CI, "prod", "tf-1")).isEqualTo(7);
    lockService.script(200, "{\"leaseExpiresAt\":\"later\"}");
    assertThat(locks.writeToken(CI, "prod", "tf-1")).isEqualTo(7);

    assertThat(lockService.seen())
        .containsExactly("POST " + LOCK + "/l-1/heartbeat", "POST " + LOCK + "/l-1/heartbeat");
  }

  @Test
  void anotherTenantsPushWithTheSameIdIsCheckedAgainstItsOwnWorkspace() throws Exception {
    lockAs("tf-1");

    lockService.script(200, FREE);
    assertThatThrownBy(
            () -> locks.writeToken(new Principal("other", "deployer", "token:x"), "prod", "tf-1"))
        .isInstanceOfSatisfying(Problem.class, p -> assertThat(p.status()).isEqualTo(409));

    assertThat(lockService.seen())
        .containsExactly("GET /internal/v1/tenants/other/workspaces/prod/lock");
  }

  @Test
  void aRememberedLeaseWhoseHeartbeatFailsIsForgottenAndThePushRefusedAsBefore() {
    lockAs("tf-1");

    lockService.script(410, "{\"lost\":\"lock l-1 is not held (released or taken over)\"}");
    lockService.script(200, FREE);
    assertThatThrownBy(() -> locks.writeToken(CI, "prod", "tf-1"))
        .isInstanceOfSatisfying(
            Problem.class,
            p -> {
              assertThat(p.status()).isEqualTo(409);
              assertThat(p.getMessage()).contains("lock ID tf-1 does not hold workspace 'prod'");
            });
    lockService.script(200, FREE);
    assertThatThrownBy(() -> locks.writeToken(CI, "prod", "tf-1")).isInstanceOf(Problem.class);

    assertThat(lockService.seen())
        .containsExactly("POST " + LOCK + "/l-1/heartbeat", "GET " + LOCK, "GET " + LOCK);
  }

  @Test
  void aLeaseAPushFoundHeldUnderItsIdIsRememberedForTheNextPush() throws Exception {
    // locked through another instance: this one has not seen the grant
    lockService.script(200, heldBy("terraform:tf-2", "l-2", 9));
    lockService.script(200, "{\"leaseExpiresAt\":\"later\"}");
    assertThat(locks.writeToken(CI, "prod", "tf-2")).isEqualTo(9);
    lockService.script(200, "{\"leaseExpiresAt\":\"later\"}");
    assertThat(locks.writeToken(CI, "prod", "tf-2")).isEqualTo(9);

    assertThat(lockService.seen())
        .containsExactly(
            "GET " + LOCK, "POST " + LOCK + "/l-2/heartbeat", "POST " + LOCK + "/l-2/heartbeat");
  }

  @Test
  void anIdThatIsNotTheHoldersIsRefusedAndNothingIsRemembered() {
    lockService.script(200, heldBy("terraform:tf-3", "l-3", 4));
    assertThatThrownBy(() -> locks.writeToken(CI, "prod", "tf-9"))
        .isInstanceOfSatisfying(
            Problem.class,
            p -> assertThat(p.getMessage()).contains("lock ID tf-9 is not the holder's"));
    lockService.script(200, heldBy("terraform:tf-3", "l-3", 4));
    assertThatThrownBy(() -> locks.writeToken(CI, "prod", "tf-9")).isInstanceOf(Problem.class);

    assertThat(lockService.seen()).containsExactly("GET " + LOCK, "GET " + LOCK);
  }

  @Test
  void anUnlockForgetsTheLease() throws Exception {
    lockAs("tf-1");

    lockService.script(200, heldBy("terraform:tf-1", "l-1", 7));
    lockService.script(200, "{\"released\":\"l-1\"}");
    assertThat(locks.unlock(CI, "prod", "{\"ID\":\"tf-1\"}", null, null).code()).isEqualTo(200);
    lockService.script(200, FREE);
    assertThatThrownBy(() -> locks.writeToken(CI, "prod", "tf-1"))
        .isInstanceOfSatisfying(Problem.class, p -> assertThat(p.status()).isEqualTo(409));

    assertThat(lockService.seen())
        .containsExactly("GET " + LOCK, "DELETE " + LOCK + "/l-1", "GET " + LOCK);
  }
}
