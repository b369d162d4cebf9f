package dev.stagecraft.executor.step;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.schemas.action.LearnedHostKey;
import dev.stagecraft.schemas.action.SshConnection;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The pool's bookkeeping against a fake connector whose sessions count their borrowers; the same
 * behaviour over a real OpenSSH sshd is in {@code RunConnectionPoolOpenSshTest}.
 */
class RunConnectionPoolTest {
  private static final Duration LONG = Duration.ofMinutes(10);

  private final FakeConnector connector = new FakeConnector();
  private final List<RunConnectionPool> pools = new ArrayList<>();

  @AfterEach
  void closePools() {
    pools.forEach(RunConnectionPool::close);
  }

  private RunConnectionPool pool(Duration idle, Duration linger, int maxSessions) {
    RunConnectionPool pool = new RunConnectionPool(connector, idle, linger, maxSessions);
    pools.add(pool);
    return pool;
  }

  private static SshConnection host(String host) {
    return new SshConnection(host, 22, "deploy", null, "KEY", null, null, 30, null);
  }

  @Test
  void actionsOfOneRunShareOneConnectionPerConnectionBlock() throws Exception {
    RunConnectionPool pool = pool(LONG, LONG, 10);
    try (RunConnections first = pool.open("acme", "run-1");
        RunConnections second = pool.open("acme", "run-1")) {
      first.connect(host("a"), n -> {}).close();
      second.connect(host("a"), n -> {}).close();
      // the timeout only bounds connecting: not part of the identity
      second
          .connect(new SshConnection("a", 22, "deploy", null, "KEY", null, null, 99, null), n -> {})
          .close();
    }
    assertThat(connector.connects.get()).isEqualTo(1);
  }

  @Test
  void neverSharesBetweenRunsOrTenants() throws Exception {
    RunConnectionPool pool = pool(LONG, LONG, 10);
    try (RunConnections run1 = pool.open("acme", "run-1");
        RunConnections run2 = pool.open("acme", "run-2");
        RunConnections otherTenant = pool.open("globex", "run-1")) {
      run1.connect(host("a"), n -> {}).close();
      run2.connect(host("a"), n -> {}).close();
      otherTenant.connect(host("a"), n -> {}).close();
    }
    assertThat(connector.connects.get()).isEqualTo(3);
  }

  @Test
  void neverSharesBetweenBlocksThatDifferInWhereWhoOrWhatIsTrusted() throws Exception {
    RunConnectionPool pool = pool(LONG, LONG, 10);
    SshConnection.Bastion hop = new SshConnection.Bastion("jump", 22, "j", null, "JKEY", null);
    List<SshConnection> variants =
        List.of(
            host("a"),
            new SshConnection("b", 22, "deploy", null, "KEY", null, null, 30, null),
            new SshConnection("a", 2222, "deploy", null, "KEY", null, null, 30, null),
            new SshConnection("a", 22, "root", null, "KEY", null, null, 30, null),
            new SshConnection("a", 22, "deploy", "pw", "KEY", null, null, 30, null),
            new SshConnection("a", 22, "deploy", null, "OTHER KEY", null, null, 30, null),
            new SshConnection("a", 22, "deploy", null, "KEY", "CERT", null, 30, null),
            new SshConnection("a", 22, "deploy", null, "KEY", null, "ssh-ed25519 AAAA", 30, null),
            host("a").withKnownHostKeys(List.of("ssh-ed25519 BBBB")),
            host("a").withBastions(List.of(hop)),
            host("a").withBastions(List.of(hop.withKnownHostKeys(List.of("ssh-ed25519 CCCC")))),
            host("a")
                .withBastions(
                    List.of(new SshConnection.Bastion("jump", 22, "j", "pw", "JKEY", null))),
            host("a")
                .withBastions(
                    List.of(
                        new SshConnection.Bastion(
                            "jump", 22, "j", null, "JKEY", "CERT", null, List.of()))),
            host("a").withProxy(new SshConnection.Proxy("http", "proxy", 3128, null, null)),
            host("a").withProxy(new SshConnection.Proxy("socks5", "proxy", 3128, null, null)),
            host("a").withProxy(new SshConnection.Proxy("http", "proxy2", 3128, null, null)),
            host("a").withProxy(new SshConnection.Proxy("http", "proxy", 3129, null, null)),
            host("a").withProxy(new SshConnection.Proxy("http", "proxy", 3128, "u", "p1")),
            host("a").withProxy(new SshConnection.Proxy("http", "proxy", 3128, "u", "p2")));
    try (RunConnections lease = pool.open("acme", "run-1")) {
      for (SshConnection variant : variants) {
        lease.connect(variant, n -> {}).close();
      }
      for (SshConnection variant : variants) {
        lease.connect(variant, n -> {}).close();
      }
    }
    assertThat(connector.connects.get()).isEqualTo(variants.size());
  }

  /**
   * A new field of the connection block must be judged: does it change where or as whom the
   * connection goes, or what it trusts? Then it belongs in {@link
   * RunConnectionPool.ConnectionIdentity}.
   */
  @Test
  void identityCoversEveryFieldOfTheConnectionBlock() {
    List<String> hop =
        List.of(
            "host",
            "port",
            "user",
            "password",
            "privateKey",
            "certificate",
            "hostKey",
            "knownHostKeys");
    assertThat(names(SshConnection.Bastion.class.getRecordComponents()))
        .containsExactlyInAnyOrderElementsOf(hop);
    // the target has what a hop has, plus how long to try and the hops
    assertThat(names(SshConnection.class.getRecordComponents()))
        .containsExactlyInAnyOrderElementsOf(
            java.util.stream.Stream.concat(
                    hop.stream(),
                    java.util.stream.Stream.of("timeoutSeconds", "bastions", "proxy", "scriptPath"))
                .toList());
    // the route to the first hop is part of the identity; where scripts go is not
    assertThat(names(SshConnection.Proxy.class.getRecordComponents()))
        .containsExactlyInAnyOrder("scheme", "host", "port", "user", "password");
  }

  @Test
  void stepsThatDifferOnlyInScriptPathShareAConnection() throws Exception {
    RunConnectionPool pool = pool(LONG, LONG, 10);
    try (RunConnections lease = pool.open("acme", "run-1")) {
      lease.connect(host("a"), n -> {}).close();
      lease.connect(host("a").withScriptPath("/var/tmp/x_%RAND%.sh"), n -> {}).close();
    }
    assertThat(connector.connects.get()).isEqualTo(1);
  }

  private static Set<String> names(RecordComponent[] components) {
    return Arrays.stream(components).map(RecordComponent::getName).collect(Collectors.toSet());
  }

  @Test
  void theIdentityHoldsNoSecret() {
    RunConnectionPool pool = pool(LONG, LONG, 10);
    SshConnection secret =
        new SshConnection(
            "a", 22, "deploy", "hunter2-password", "-----PRIVATE KEY-----", null, null, 30, null);
    assertThat(pool.identityOf(secret).toString())
        .doesNotContain("hunter2-password")
        .doesNotContain("PRIVATE KEY");
    SshConnection proxied =
        secret.withProxy(new SshConnection.Proxy("socks5", "p", 1080, "u", "proxy-pw-hunter3"));
    assertThat(pool.identityOf(proxied).toString()).doesNotContain("proxy-pw-hunter3");
  }

  @Test
  void opensAnotherConnectionWhenEveryConnectionIsSaturated() throws Exception {
    RunConnectionPool pool = pool(LONG, LONG, 5); // (5 - 1) / 2 = 2 borrowers per connection
    assertThat(pool.borrowersPerConnection()).isEqualTo(2);
    try (RunConnections lease = pool.open("acme", "run-1")) {
      RemoteSession a = lease.connect(host("a"), n -> {});
      RemoteSession b = lease.connect(host("a"), n -> {});
      assertThat(connector.connects.get()).isEqualTo(1);
      RemoteSession c = lease.connect(host("a"), n -> {});
      assertThat(connector.connects.get()).isEqualTo(2);
      a.close();
      RemoteSession d = lease.connect(host("a"), n -> {}); // room again on the first
      assertThat(connector.connects.get()).isEqualTo(2);
      List.of(b, c, d).forEach(RemoteSession::close);
    }
  }

  @Test
  void manyConcurrentBorrowersNeverOverbookAConnectionAndAllGetOne() throws Exception {
    RunConnectionPool pool = pool(LONG, LONG, 10); // 4 borrowers per connection
    int actions = 200;
    CountDownLatch allBorrowed = new CountDownLatch(actions);
    CountDownLatch release = new CountDownLatch(1);
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<Integer>> results = new ArrayList<>();
      for (int i = 0; i < actions; i++) {
        results.add(
            threads.submit(
                () -> {
                  try (RunConnections lease = pool.open("acme", "run-1");
                      RemoteSession session = lease.connect(host("a"), n -> {})) {
                    allBorrowed.countDown();
                    release.await();
                    return session.exec("true", (s, l) -> {}, null);
                  }
                }));
      }
      allBorrowed.await();
      // 200 borrowers held at once, at most 4 on each connection
      assertThat(pool.openConnections()).isBetween(actions / 4, actions);
      release.countDown();
      for (Future<Integer> result : results) {
        assertThat(result.get()).isZero();
      }
    }
    assertThat(connector.sessions).allSatisfy(s -> assertThat(s.maxBorrowers.get()).isLessThan(5));
  }

  @Test
  void aConnectionThatIsNoLongerOpenIsNeverHandedOutAgain() throws Exception {
    RunConnectionPool pool = pool(LONG, LONG, 10);
    try (RunConnections lease = pool.open("acme", "run-1")) {
      lease.connect(host("a"), n -> {}).close();
      FakeSession first = connector.sessions.getFirst();
      first.open = false; // e.g. the peer closed it
      RemoteSession next = lease.connect(host("a"), n -> {});
      assertThat(connector.connects.get()).isEqualTo(2);
      assertThat(first.closed).isTrue();
      next.close();
    }
  }

  @Test
  void aConnectionThatBrokeDuringAnOperationIsDiscarded() throws Exception {
    RunConnectionPool pool = pool(LONG, LONG, 10);
    try (RunConnections lease = pool.open("acme", "run-1")) {
      RemoteSession session = lease.connect(host("a"), n -> {});
      FakeSession first = connector.sessions.getFirst();
      first.failNext = true;
      assertThatThrownBy(() -> session.exec("true", (s, l) -> {}, null))
          .isInstanceOf(IOException.class);
      assertThat(pool.openConnections()).isZero();
      session.close();
      assertThat(first.closed).isTrue();
      lease.connect(host("a"), n -> {}).close();
      assertThat(connector.connects.get()).isEqualTo(2);
    }
  }

  @Test
  void idleConnectionsCloseAfterTheIdleTimeout() throws Exception {
    RunConnectionPool pool = pool(Duration.ofMillis(200), LONG, 10);
    try (RunConnections lease = pool.open("acme", "run-1")) {
      RemoteSession busy = lease.connect(host("busy"), n -> {});
      lease.connect(host("idle"), n -> {}).close();
      await().atMost(Duration.ofSeconds(10)).until(() -> pool.openConnections() == 1);
      assertThat(connector.sessions.get(1).closed).isTrue();
      assertThat(connector.sessions.get(0).closed).isFalse(); // borrowed: never idle-closed
      busy.close();
    }
  }

  @Test
  void aRunsConnectionsCloseWhenItsLastActionEndsWithoutLinger() throws Exception {
    RunConnectionPool pool = pool(LONG, Duration.ZERO, 10);
    RunConnections first = pool.open("acme", "run-1");
    RunConnections second = pool.open("acme", "run-1");
    first.connect(host("a"), n -> {}).close();
    first.close();
    assertThat(pool.openConnections()).isEqualTo(1); // the second action still runs
    second.close();
    assertThat(pool.openConnections()).isZero();
    assertThat(connector.sessions.getFirst().closed).isTrue();
  }

  @Test
  void theNextActionOfARunWithinTheLingerReusesItsConnections() throws Exception {
    RunConnectionPool pool = pool(LONG, Duration.ofMillis(300), 10);
    try (RunConnections first = pool.open("acme", "run-1")) {
      first.connect(host("a"), n -> {}).close();
    }
    try (RunConnections next = pool.open("acme", "run-1")) {
      next.connect(host("a"), n -> {}).close();
    }
    assertThat(connector.connects.get()).isEqualTo(1);
    await().atMost(Duration.ofSeconds(10)).until(() -> pool.openConnections() == 0);
    assertThat(connector.sessions.getFirst().closed).isTrue();
  }

  @Test
  void everyBorrowerHearsTheNoticesAndLearnedKeysOfTheFirstConnect() throws Exception {
    RunConnectionPool pool = pool(LONG, LONG, 10);
    connector.notice = "Warning: trusting its key on first use";
    List<String> first = new ArrayList<>();
    List<String> second = new ArrayList<>();
    try (RunConnections lease = pool.open("acme", "run-1")) {
      lease.connect(host("a"), first::add).close();
      RemoteSession reused = lease.connect(host("a"), second::add);
      assertThat(reused.learnedHostKeys()).isEqualTo(connector.sessions.getFirst().learned);
      reused.close();
    }
    assertThat(first).containsExactly("Warning: trusting its key on first use");
    assertThat(second).isEqualTo(first);
  }

  @Test
  void aClosedPoolClosesEverythingAndRefusesNewConnections() throws Exception {
    RunConnectionPool pool = pool(LONG, LONG, 10);
    RunConnections lease = pool.open("acme", "run-1");
    lease.connect(host("a"), n -> {}).close();
    pool.close();
    assertThat(connector.sessions.getFirst().closed).isTrue();
    assertThatThrownBy(() -> lease.connect(host("a"), n -> {}))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("shutting down");
  }

  @Test
  void aStepWithRetriesFailsAtOnceWhenThePoolIsShuttingDown() throws Exception {
    RunConnectionPool pool = pool(LONG, LONG, 10);
    RunConnections lease = pool.open("acme", "run-1");
    pool.close();
    assertThatThrownBy(() -> lease.connect(host("a"), n -> {}))
        .isInstanceOf(RemoteConnector.PermanentConnectionException.class)
        .hasMessage(RunConnectionPool.SHUTTING_DOWN);

    List<Duration> pauses = new ArrayList<>();
    Fixtures.RecordingSink sink = new Fixtures.RecordingSink();
    ActionResult result;
    try (RemoteSteps steps =
        new RemoteSteps(
            lease,
            new ActionOutput(sink, new Redactor(List.of())),
            () -> "/tmp/s.sh",
            pauses::add)) {
      result = steps.remoteExec(0, Fixtures.remoteExec(host("a"), List.of("true"), 0, 3));
    }

    assertThat(result.isSucceeded()).isFalse();
    assertThat(result.error()).contains("shutting down").doesNotContain("gave up");
    assertThat(pauses).isEmpty();
    assertThat(connector.connects.get()).isZero();
  }

  @Test
  void aLeaseWithoutARunIdSharesNothing() throws Exception {
    RunConnectionPool pool = pool(LONG, LONG, 10);
    try (RunConnections lease = pool.open("acme", null)) {
      lease.connect(host("a"), n -> {}).close();
      lease.connect(host("a"), n -> {}).close();
    }
    assertThat(connector.connects.get()).isEqualTo(2);
  }

  @Test
  void refusesSettingsThatCannotWork() {
    assertThatThrownBy(() -> new RunConnectionPool(connector, Duration.ZERO, LONG, 10))
        .hasMessageContaining("ssh-idle-timeout");
    assertThatThrownBy(() -> new RunConnectionPool(connector, LONG, Duration.ofSeconds(-1), 10))
        .hasMessageContaining("ssh-run-linger");
    assertThatThrownBy(() -> new RunConnectionPool(connector, LONG, LONG, 2))
        .hasMessageContaining("ssh-max-sessions must be at least 3");
  }

  /** Counts connects; each session counts its borrowers' concurrent operations. */
  private static final class FakeConnector implements RemoteConnector {
    final AtomicInteger connects = new AtomicInteger();
    final List<FakeSession> sessions = Collections.synchronizedList(new ArrayList<>());
    volatile String notice;

    @Override
    public RemoteSession connect(SshConnection connection, java.util.function.Consumer<String> n) {
      connects.incrementAndGet();
      if (notice != null) {
        n.accept(notice);
      }
      FakeSession session = new FakeSession();
      sessions.add(session);
      return new BorrowCounting(session);
    }
  }

  private static final class FakeSession {
    final AtomicInteger borrowers = new AtomicInteger();
    final AtomicInteger maxBorrowers = new AtomicInteger();
    final List<LearnedHostKey> learned = List.of();
    volatile boolean open = true;
    volatile boolean closed;
    volatile boolean failNext;
  }

  /** Records how many operations run on the session at once. */
  private record BorrowCounting(FakeSession state) implements RemoteSession {
    @Override
    public int exec(String command, LineSink output, Duration timeout) throws IOException {
      int now = state.borrowers.incrementAndGet();
      state.maxBorrowers.accumulateAndGet(now, Math::max);
      try {
        if (state.failNext) {
          state.open = false;
          throw new IOException("connection reset");
        }
        Thread.yield();
        return 0;
      } finally {
        state.borrowers.decrementAndGet();
      }
    }

    @Override
    public void upload(String path, byte[] content, int mode) {}

    @Override
    public void remove(String path) {}

    @Override
    public List<LearnedHostKey> learnedHostKeys() {
      return state.learned;
    }

    @Override
    public boolean isOpen() {
      return state.open && !state.closed;
    }

    @Override
    public void close() {
      state.closed = true;
    }
  }
}
