package dev.stagecraft.state.adapter.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.schemas.action.LearnedHostKey;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.servicekit.db.Sql;
import dev.stagecraft.state.application.ActionResults;
import dev.stagecraft.state.hostkey.HostKey;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Host keys against a real PostgreSQL: recording first-use keys with an action's outcome (first
 * wins, idempotent, not from a stale writer), known hosts, removal as a marker, append-only, and
 * tenant isolation. Each test uses its own workspace or host.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HostKeyStoreTest {
  private static final String KEY_A = key(1);
  private static final String KEY_B = key(2);

  private StateTestDatabase database;
  private HikariDataSource dataSource;
  private StateStore states;
  private HostKeyStore keys;
  private final EventCodec executorCodec = EventCodec.forSource("/test/executor");
  private final AtomicInteger actions = new AtomicInteger();

  @BeforeAll
  void startDatabase() throws Exception {
    database = StateTestDatabase.start("host-keys");
    dataSource = database.dataSource();
    states = new StateStore(dataSource, Clock.systemUTC());
    keys = new HostKeyStore(dataSource, Clock.systemUTC());
  }

  @AfterAll
  void stopDatabase() throws Exception {
    if (database != null) {
      database.close();
    }
  }

  /** A syntactically valid ed25519 public key line, different per seed. */
  private static String key(int seed) {
    byte[] blob = new byte[51];
    byte[] type =
        "\0\0\0\u000bssh-ed25519\0\0\0 ".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    System.arraycopy(type, 0, blob, 0, type.length);
    for (int i = type.length; i < blob.length; i++) {
      blob[i] = (byte) (seed * 31 + i);
    }
    return "ssh-ed25519 " + Base64.getEncoder().encodeToString(blob);
  }

  private ActionResults.Recorded finish(
      String tenant, String workspace, long fencingToken, LearnedHostKey... learned)
      throws SQLException {
    int n = actions.incrementAndGet();
    ActionFinished finished =
        new ActionFinished(
            "run-" + n,
            "run-" + n + "/x.a",
            "x.a",
            "x",
            "create",
            "succeeded",
            null,
            null,
            Map.of("id", "i" + n),
            List.of(),
            fencingToken,
            "exec-1",
            false,
            false,
            List.of(learned));
    EventEnvelope envelope =
        executorCodec.wrap(tenant, workspace, finished.runId(), 3, "x.a", finished);
    return Histories.results(states).record(envelope, finished);
  }

  private static LearnedHostKey learned(String host, int port, String publicKey) {
    return new LearnedHostKey(host, port, publicKey, HostKey.fingerprint(publicKey));
  }

  @Test
  void recordsTheKeyAnActionAcceptedOnFirstUseForItsWorkspace() throws Exception {
    finish("t-first", "first", 1, learned("Web-1.example", 2222, KEY_A));

    assertThat(keys.keysFor("t-first", "first"))
        .singleElement()
        .satisfies(
            k -> {
              assertThat(k.host()).isEqualTo("web-1.example");
              assertThat(k.port()).isEqualTo(2222);
              assertThat(k.publicKey()).isEqualTo(KEY_A);
              assertThat(k.fingerprint()).isEqualTo(HostKey.fingerprint(KEY_A));
              assertThat(k.source()).isEqualTo(HostKey.FIRST_USE);
              assertThat(k.workspace()).isEqualTo("first");
              assertThat(k.runId()).startsWith("run-");
              assertThat(k.knownHostKeyLine())
                  .startsWith(KEY_A + " first use in workspace first (run run-");
            });
    assertThat(keys.keysFor("t-first", "another-workspace")).isEmpty();
  }

  @Test
  void theFirstKeyRecordedForAHostInAWorkspaceWinsAndRedeliveryChangesNothing() throws Exception {
    ActionResults.Recorded first = finish("t-wins", "wins", 1, learned("db", 22, KEY_A));
    finish("t-wins", "wins", 1, learned("db", 22, KEY_B), learned("db", 22, KEY_A));
    assertThat(first.duplicate()).isFalse();

    assertThat(keys.keysFor("t-wins", "wins"))
        .extracting(HostKey::publicKey)
        .containsExactly(KEY_A);
    assertThat(rows("t-wins", "wins")).isEqualTo(1);
  }

  @Test
  void aRedeliveredActionFinishedRecordsItsKeyOnce() throws Exception {
    ActionFinished finished =
        new ActionFinished(
            "run-r",
            "run-r/x.a",
            "x.a",
            "x",
            "create",
            "succeeded",
            null,
            null,
            Map.of(),
            List.of(),
            1,
            "exec-1",
            false,
            false,
            List.of(learned("cache", 22, KEY_A)));
    EventEnvelope envelope =
        executorCodec.wrap("t-redeliver", "redeliver", "run-r", 3, "x.a", finished);

    assertThat(Histories.results(states).record(envelope, finished).duplicate()).isFalse();
    assertThat(Histories.results(states).record(envelope, finished).duplicate()).isTrue();

    assertThat(rows("t-redeliver", "redeliver")).isEqualTo(1);
  }

  @Test
  void aStaleWriterTeachesNoKeys() throws Exception {
    finish("t-stale", "stale", 5);
    finish("t-stale", "stale", 4, learned("app", 22, KEY_A));

    assertThat(keys.keysFor("t-stale", "stale")).isEmpty();
  }

  @Test
  void removalIsAMarkerAndTheNextKeyIsTrustedOnFirstUseAgain() throws Exception {
    finish("t-rekey", "rekey", 1, learned("app", 22, KEY_A));

    assertThat(keys.removeFirstUse("t-rekey", "rekey", "APP", 22, "admin@acme"))
        .extracting(HostKey::publicKey)
        .containsExactly(KEY_A);
    assertThat(keys.keysFor("t-rekey", "rekey")).isEmpty();
    finish("t-rekey", "rekey", 1, learned("app", 22, KEY_B));

    assertThat(keys.keysFor("t-rekey", "rekey"))
        .extracting(HostKey::publicKey)
        .containsExactly(KEY_B);
    // the removed row is still there, marked
    assertThat(rows("t-rekey", "rekey")).isEqualTo(2);
  }

  @Test
  void theTableIsAppendOnly() throws Exception {
    finish("t-append", "append-only", 1, learned("app", 22, KEY_A));
    try (Connection c = dataSource.getConnection()) {
      assertThatThrownBy(
              () -> Sql.update(c, "DELETE FROM state.host_keys WHERE workspace = 'append-only'"))
          .hasMessageContaining("append-only");
      assertThatThrownBy(
              () ->
                  Sql.update(
                      c,
                      "UPDATE state.host_keys SET public_key = ? WHERE workspace = 'append-only'",
                      KEY_B))
          .hasMessageContaining("append-only");
      assertThatThrownBy(() -> Sql.update(c, "TRUNCATE state.host_keys"))
          .hasMessageContaining("append-only");
    }
    assertThat(keys.keysFor("t-append", "append-only"))
        .extracting(HostKey::publicKey)
        .containsExactly(KEY_A);
  }

  @Test
  void knownHostsAreTenantWideAndAddingOneTwiceChangesNothing() throws Exception {
    HostKeyStore.Added added = keys.addKnownHost("acme", "bastion.example", 22, KEY_A + " c", "me");
    HostKeyStore.Added again = keys.addKnownHost("acme", "bastion.example", 22, KEY_A, "me");

    assertThat(added.created()).isTrue();
    assertThat(again.created()).isFalse();
    assertThat(again.key()).isEqualTo(added.key());
    assertThat(added.key().knownHostKeyLine()).isEqualTo(KEY_A + " tenant known hosts");
    assertThat(keys.keysFor("acme", "any-workspace"))
        .filteredOn(k -> k.host().equals("bastion.example"))
        .extracting(HostKey::source)
        .containsExactly(HostKey.KNOWN_HOSTS);
  }

  @Test
  void refusesAnInvalidKeyHostOrPortAndWritesNothing() throws Exception {
    int before = knownHostRows("acme");
    assertThatThrownBy(() -> keys.addKnownHost("acme", "h", 22, "ssh-ed25519", null))
        .isInstanceOf(HostKey.Invalid.class)
        .hasMessageContaining("publicKey must be \"<type> <base64>\"");
    assertThatThrownBy(() -> keys.addKnownHost("acme", "h", 22, "ssh-ed25519 !!!", null))
        .hasMessageContaining("not base64");
    assertThatThrownBy(() -> keys.addKnownHost("acme", "h h", 22, KEY_A, null))
        .hasMessageContaining("host must be");
    assertThatThrownBy(() -> keys.addKnownHost("acme", "h", 70000, KEY_A, null))
        .hasMessageContaining("port must be 1-65535");
    assertThat(knownHostRows("acme")).isEqualTo(before);
  }

  @Test
  void anotherTenantNeitherSeesNorRemovesTheKeys() throws Exception {
    keys.addKnownHost("tenant-a", "shared.example", 22, KEY_A, null);
    finish("tenant-a", "prod", 1, learned("shared.example", 22, KEY_A));

    assertThat(keys.keysFor("tenant-b", "prod")).isEmpty();
    assertThat(keys.knownHosts("tenant-b")).isEmpty();
    assertThat(keys.removeKnownHosts("tenant-b", "shared.example", 22, null)).isEmpty();
    assertThat(keys.removeFirstUse("tenant-b", "prod", "shared.example", 22, null)).isEmpty();

    assertThat(keys.keysFor("tenant-a", "prod"))
        .extracting(HostKey::source)
        .containsExactly(HostKey.KNOWN_HOSTS, HostKey.FIRST_USE);
    // the other tenant's own first use of the same host is its own
    finish("tenant-b", "prod", 1, learned("shared.example", 22, KEY_B));
    assertThat(keys.keysFor("tenant-b", "prod"))
        .extracting(HostKey::publicKey)
        .containsExactly(KEY_B);
  }

  private int rows(String tenant, String workspace) throws SQLException {
    try (Connection c = dataSource.getConnection();
        var ps =
            Sql.prepare(
                c,
                "SELECT count(*) FROM state.host_keys WHERE tenant = ? AND workspace = ?",
                tenant,
                workspace);
        var rs = ps.executeQuery()) {
      rs.next();
      return rs.getInt(1);
    }
  }

  private int knownHostRows(String tenant) throws SQLException {
    try (Connection c = dataSource.getConnection();
        var ps =
            Sql.prepare(
                c,
                "SELECT count(*) FROM state.host_keys WHERE tenant = ? AND workspace IS NULL",
                tenant);
        var rs = ps.executeQuery()) {
      rs.next();
      return rs.getInt(1);
    }
  }
}
