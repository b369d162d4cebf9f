package dev.stagecraft.state.adapter.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.platform.auth.TokenHash;
import dev.stagecraft.state.adapter.db.TenantStore.Principal;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The state service's cache of verified API tokens (ADR 0036), against a real PostgreSQL: a fresh
 * answer is served without a database round trip; in its refresh window it is still served at once
 * while one background check renews or drops it; a token revoked through this instance (by value or
 * by id) is refused at once, and an answer read just before a revocation is not remembered after
 * it; a revocation elsewhere (straight in the database, as another instance would) takes effect
 * within the TTL; {@link TenantStore#verify} (the planner's check) never answers from memory.
 * Connections taken from the pool are counted: a check that asks the database takes one.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ApiTokenCacheTest {
  private StateTestDatabase database;
  private final AtomicInteger connections = new AtomicInteger();
  private final AtomicReference<Runnable> onClose = new AtomicReference<>();
  private final Moving clock = new Moving();
  private final List<Runnable> background = new ArrayList<>();
  private TenantStore store;

  @BeforeAll
  void startDatabase() throws Exception {
    database = StateTestDatabase.start("api-token-cache");
  }

  @AfterAll
  void stopDatabase() throws Exception {
    if (database != null) {
      database.close();
    }
  }

  @BeforeEach
  void newStore() throws SQLException {
    background.clear();
    store = new TenantStore(counting(database.dataSource()), clock, background::add);
    store.ensureTenant("t1");
  }

  @Test
  void aFreshAnswerIsServedWithoutAskingTheDatabase() throws SQLException {
    String token = store.createToken("t1", "deployer", "ci");
    Principal first = store.verifyCached(token).orElseThrow();
    assertThat(first.tenant()).isEqualTo("t1");
    assertThat(first.role()).isEqualTo("deployer");
    assertThat(first.actor()).isEqualTo("api-token:" + TokenHash.sha256(token).substring(0, 12));

    int before = connections.get();
    clock.advance(TenantStore.TOKEN_REFRESH_AFTER.minusSeconds(1));
    assertThat(store.verifyCached(token)).contains(first);
    assertThat(connections).as("no round trip for a fresh answer").hasValue(before);
    assertThat(background).isEmpty();

    store.verify(token);
    assertThat(connections).as("verify always asks").hasValue(before + 1);
  }

  @Test
  void inItsRefreshWindowAnAnswerIsServedAtOnceAndCheckedInTheBackgroundOnce() throws SQLException {
    String token = store.createToken("t1", "reader", null);
    store.verifyCached(token);
    clock.advance(TenantStore.TOKEN_REFRESH_AFTER.plusSeconds(1));
    int before = connections.get();

    assertThat(store.verifyCached(token)).isPresent();
    assertThat(store.verifyCached(token)).isPresent();
    assertThat(connections).as("the requests did not wait for a check").hasValue(before);
    assertThat(background).as("one background check per token").hasSize(1);

    background.remove(0).run();
    assertThat(connections).hasValue(before + 1);
    // renewed: still served from memory past the first answer's TTL
    clock.advance(Duration.ofSeconds(6));
    assertThat(store.verifyCached(token)).isPresent();
    assertThat(connections).hasValue(before + 1);
  }

  @Test
  void aTokenRevokedThroughThisInstanceIsRefusedAtOnce() throws SQLException {
    String byValue = store.createToken("t1", "admin", null);
    String byId = store.createToken("t1", "deployer", null);
    assertThat(store.verifyCached(byValue)).isPresent();
    assertThat(store.verifyCached(byId)).isPresent();

    assertThat(store.revoke(byValue)).isTrue();
    assertThat(store.verifyCached(byValue)).isEmpty();
    assertThat(store.verifyCached(byId)).as("another token is not affected").isPresent();

    assertThat(store.revokeById("t1", TokenHash.sha256(byId).substring(0, 16))).isTrue();
    assertThat(store.verifyCached(byId)).isEmpty();
    // and it stays refused: nothing negative or stale was remembered
    clock.advance(TenantStore.TOKEN_REFRESH_AFTER.plusSeconds(1));
    assertThat(store.verifyCached(byValue)).isEmpty();
    assertThat(store.verifyCached(byId)).isEmpty();
  }

  @Test
  void anAnswerReadJustBeforeARevocationIsNotRemembered() throws SQLException {
    String token = store.createToken("t1", "deployer", null);
    // the revocation commits after the check's query answered and before its answer is kept
    onClose.set(
        () -> {
          try {
            store.revoke(token);
          } catch (SQLException e) {
            throw new IllegalStateException(e);
          }
        });
    assertThat(store.verifyCached(token)).as("answered as read").isPresent();
    assertThat(onClose.get()).as("the revocation ran inside the check").isNull();

    assertThat(store.verifyCached(token)).isEmpty();
  }

  @Test
  void aRevocationElsewhereTakesEffectWithinTheTtl() throws SQLException {
    String token = store.createToken("t1", "deployer", null);
    String other = store.createToken("t1", "deployer", null);
    assertThat(store.verifyCached(token)).isPresent();
    assertThat(store.verifyCached(other)).isPresent();
    revokeInTheDatabase(token);
    revokeInTheDatabase(other);

    // the background check of the refresh window drops it
    clock.advance(TenantStore.TOKEN_REFRESH_AFTER.plusSeconds(1));
    assertThat(store.verifyCached(token)).as("still believed until checked").isPresent();
    assertThat(store.verifyCached(other)).isPresent();
    assertThat(background).hasSize(2);
    background.forEach(Runnable::run);
    assertThat(store.verifyCached(token)).isEmpty();
    assertThat(store.verifyCached(other)).isEmpty();

    // without a background check, the answer runs out at its TTL
    String unused = store.createToken("t1", "reader", null);
    store.verifyCached(unused);
    revokeInTheDatabase(unused);
    clock.advance(TenantStore.TOKEN_TTL);
    assertThat(store.verifyCached(unused)).isEmpty();
  }

  @Test
  void unknownTokensAreRefusedAndNotRemembered() throws SQLException {
    int before = connections.get();
    assertThat(store.verifyCached("sc_unknown")).isEmpty();
    assertThat(store.verifyCached("sc_unknown")).isEmpty();
    assertThat(connections).as("each refusal asked the database").hasValue(before + 2);
    assertThat(store.verifyCached(null)).isEmpty();
    assertThat(store.verifyCached("")).isEmpty();
  }

  private void revokeInTheDatabase(String token) throws SQLException {
    try (Connection c = database.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "UPDATE state.api_tokens SET revoked_at = now() WHERE token_hash = ?")) {
      ps.setString(1, TokenHash.sha256(token));
      assertThat(ps.executeUpdate()).isEqualTo(1);
    }
  }

  /**
   * The pool, counting the connections taken; closing one runs (once) the hook in {@link #onClose}.
   */
  private DataSource counting(DataSource pool) {
    return (DataSource)
        Proxy.newProxyInstance(
            getClass().getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              Object result = invoke(pool, method, args);
              if (method.getName().equals("getConnection")) {
                connections.incrementAndGet();
                Connection c = (Connection) result;
                InvocationHandler closing =
                    (p, m, a) -> {
                      if (m.getName().equals("close")) {
                        Runnable hook = onClose.getAndSet(null);
                        if (hook != null) {
                          hook.run();
                        }
                      }
                      return invoke(c, m, a);
                    };
                return Proxy.newProxyInstance(
                    getClass().getClassLoader(), new Class<?>[] {Connection.class}, closing);
              }
              return result;
            });
  }

  private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args)
      throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /** A clock the test moves. */
  private static final class Moving extends Clock {
    private Instant now = Instant.parse("2026-01-01T00:00:00Z");

    void advance(Duration d) {
      now = now.plus(d);
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }
}
