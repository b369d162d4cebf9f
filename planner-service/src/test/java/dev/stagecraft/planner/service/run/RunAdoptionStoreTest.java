package dev.stagecraft.planner.service.run;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.planner.service.adapter.db.InstanceStore;
import dev.stagecraft.planner.service.adapter.db.PlannerTestDatabase;
import dev.stagecraft.planner.service.adapter.db.RunJournalStore;
import dev.stagecraft.planner.service.adapter.db.RunStore;
import dev.stagecraft.planner.service.run.journal.RunEvent;
import dev.stagecraft.planner.service.run.journal.RunJournal;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import dev.stagecraft.servicekit.db.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Adoption of a dead planner instance's runs in a real PostgreSQL (docs/adr/0034): the
 * compare-and-set on the instance row, the move of its non-terminal runs, and the records a zombie
 * can no longer write. An instance is made "dead" by moving its renewal time an hour back in the
 * database (no waiting).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RunAdoptionStoreTest {
  static final Duration LEASE = Duration.ofSeconds(15);
  final Clock clock = Clock.fixed(Instant.parse("2026-11-21T10:00:00Z"), ZoneOffset.UTC);
  final SecretsKeyring keyring = SecretsKeyring.parse(SecretsKeyring.generateEntry("k1"));
  PlannerTestDatabase database;
  HikariDataSource dataSource;
  InstanceStore instances;

  @BeforeAll
  void startDatabase() throws Exception {
    database = PlannerTestDatabase.start("planner-adoption-");
    dataSource = database.dataSource();
    instances = new InstanceStore(dataSource);
  }

  @AfterAll
  void stopDatabase() throws Exception {
    if (database != null) {
      database.close();
    }
  }

  @Test
  void twoAdoptersRacingForADeadInstanceTakeEachOfItsRunsExactlyOnce() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < 10; round++) {
        String dead = "race-dead-" + round;
        instances.register(dead, "inc-1", LEASE);
        RunStore store = new RunStore(dataSource, clock, dead, keyring);
        List<String> open = new ArrayList<>();
        for (RunStatus status : List.of(RunStatus.QUEUED, RunStatus.PLANNED, RunStatus.APPLYING)) {
          String id = dead + "-" + status.wireName();
          record(store, id, status);
          open.add(id);
        }
        record(store, dead + "-applied", RunStatus.APPLIED);
        expire(dead);

        CyclicBarrier start = new CyclicBarrier(2);
        Future<Optional<List<RunStore.UnfinishedRun>>> x =
            pool.submit(
                () -> {
                  start.await(10, TimeUnit.SECONDS);
                  return instances.adopt(dead, "adopter-x");
                });
        Future<Optional<List<RunStore.UnfinishedRun>>> y =
            pool.submit(
                () -> {
                  start.await(10, TimeUnit.SECONDS);
                  return instances.adopt(dead, "adopter-y");
                });
        List<String> byX = ids(x.get(30, TimeUnit.SECONDS));
        List<String> byY = ids(y.get(30, TimeUnit.SECONDS));

        assertThat(byX.isEmpty() ^ byY.isEmpty()).as("exactly one adopter wins").isTrue();
        List<String> won = byX.isEmpty() ? byY : byX;
        String winner = byX.isEmpty() ? "adopter-y" : "adopter-x";
        assertThat(won).containsExactlyInAnyOrderElementsOf(open);
        for (String id : open) {
          assertThat(owner(id)).isEqualTo(winner);
        }
        assertThat(owner(dead + "-applied")).as("a terminal run is never touched").isEqualTo(dead);
        assertThat(instances.expiredWithRuns("adopter-x")).doesNotContain(dead);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aLiveInstancesRunsAreNeverTakenAndAnExpiredOneWithoutOpenRunsIsNoCandidate()
      throws Exception {
    instances.register("live-a", "inc-1", LEASE);
    RunStore live = new RunStore(dataSource, clock, "live-a", keyring);
    record(live, "live-a-queued", RunStatus.QUEUED);

    assertThat(instances.expiredWithRuns("live-b")).doesNotContain("live-a");
    assertThat(instances.adopt("live-a", "live-b")).isEmpty();
    assertThat(owner("live-a-queued")).isEqualTo("live-a");

    instances.register("done-a", "inc-1", LEASE);
    record(new RunStore(dataSource, clock, "done-a", keyring), "done-a-run", RunStatus.ERRORED);
    expire("done-a");
    assertThat(instances.expiredWithRuns("live-b")).doesNotContain("done-a");
    assertThat(instances.adopt("done-a", "live-b")).contains(List.of());
    assertThat(owner("done-a-run")).isEqualTo("done-a");

    // the lease is the database's clock against the dead instance's own lease
    expire("live-a");
    assertThat(instances.expiredWithRuns("live-b")).contains("live-a");
    assertThat(instances.expiredWithRuns("live-a")).as("never itself").doesNotContain("live-a");
  }

  @Test
  void aRunsDriverIsItsInstanceWithTheAddressItAdvertisedAliveUntilItsLeaseExpires()
      throws Exception {
    instances.register("drive-a", "inc-1", LEASE, "http://planner-a.internal:8080");
    instances.register("drive-b", "inc-1", LEASE);
    record(new RunStore(dataSource, clock, "drive-a", keyring), "drive-run", RunStatus.PLANNED);

    assertThat(instances.driverOf("acme", "drive-run"))
        .contains(new InstanceStore.Driver("drive-a", "http://planner-a.internal:8080", true));
    assertThat(instances.driverOf("other", "drive-run")).as("another tenant's run").isEmpty();
    assertThat(instances.driverOf("acme", "no-such-run")).isEmpty();

    // expired: not alive, so nobody forwards to it until an instance adopts the run
    expire("drive-a");
    assertThat(instances.driverOf("acme", "drive-run"))
        .contains(new InstanceStore.Driver("drive-a", "http://planner-a.internal:8080", false));
    // a new incarnation advertises anew (here: nowhere)
    instances.register("drive-a", "inc-2", LEASE);
    assertThat(instances.driverOf("acme", "drive-run"))
        .contains(new InstanceStore.Driver("drive-a", null, true));
    // adopted: the adopter drives it
    expire("drive-a");
    assertThat(ids(instances.adopt("drive-a", "drive-b"))).containsExactly("drive-run");
    assertThat(instances.driverOf("acme", "drive-run"))
        .contains(new InstanceStore.Driver("drive-b", null, true));

    // recorded by an instance that never registered: no address, not alive
    record(new RunStore(dataSource, clock, "drive-ghost", keyring), "ghost-run", RunStatus.QUEUED);
    assertThat(instances.driverOf("acme", "ghost-run"))
        .contains(new InstanceStore.Driver("drive-ghost", null, false));
  }

  @Test
  void anInstanceRestartedWithTheSameIdKeepsItsRunsAndFencesItsOlderIncarnation() throws Exception {
    instances.register("same-a", "inc-1", LEASE);
    RunStore first = new RunStore(dataSource, clock, "same-a", keyring);
    record(first, "same-a-queued", RunStatus.QUEUED);
    expire("same-a");

    // it starts again before anyone adopted: registering renews the row, the CAS then fails
    instances.register("same-a", "inc-2", LEASE);
    assertThat(instances.expiredWithRuns("same-b")).doesNotContain("same-a");
    assertThat(instances.adopt("same-a", "same-b")).isEmpty();
    assertThat(new RunStore(dataSource, clock, "same-a", keyring).unfinished())
        .extracting(RunStore.UnfinishedRun::id)
        .contains("same-a-queued");
    assertThat(instances.renew("same-a", "inc-2")).isEqualTo(new InstanceStore.Renewal.Renewed());
    assertThat(instances.renew("same-a", "inc-1"))
        .as("the older process of the same id is fenced")
        .isEqualTo(new InstanceStore.Renewal.TakenOver(null));
  }

  @Test
  void aZombieWhoseRunsWereAdoptedIsFencedAndCannotOverwriteTheirRecords() throws Exception {
    instances.register("zombie-a", "inc-1", LEASE);
    instances.register("zombie-b", "inc-1", LEASE);
    RunStore a = new RunStore(dataSource, clock, "zombie-a", keyring);
    Run run = record(a, "zombie-a-queued", RunStatus.QUEUED);
    RunStore.UnfinishedRun asA = a.unfinished().get(0);
    expire("zombie-a");

    List<RunStore.UnfinishedRun> adopted = instances.adopt("zombie-a", "zombie-b").orElseThrow();
    assertThat(adopted).extracting(RunStore.UnfinishedRun::id).containsExactly("zombie-a-queued");
    assertThat(adopted.get(0).status()).isEqualTo(RunStatus.QUEUED);
    assertThat(adopted.get(0).tenant()).isEqualTo("acme");

    // the paused instance wakes up: its renewal says it was adopted, its records change nothing
    assertThat(instances.renew("zombie-a", "inc-1"))
        .isEqualTo(new InstanceStore.Renewal.TakenOver("zombie-b"));
    a.transitioned(run, 5, RunStatus.ERRORED, "zombie says errored", clock.instant());
    a.endUnfinished(asA, "zombie ends it");
    RunStore b = new RunStore(dataSource, clock, "zombie-b", keyring);
    assertThat(b.find("acme", "zombie-a-queued").orElseThrow().status()).isEqualTo("queued");
    assertThat(b.transitions("acme", "zombie-a-queued"))
        .extracting(RunStore.Transition::status)
        .containsExactly("pending", "queued");
    assertThat(a.unfinished()).isEmpty();

    // the adopter records it as its own
    b.transitioned(run, 1_000_003, RunStatus.PENDING, "Resumed after adoption", clock.instant());
    assertThat(b.find("acme", "zombie-a-queued").orElseThrow().message())
        .isEqualTo("Resumed after adoption");
    assertThat(b.unfinished()).extracting(RunStore.UnfinishedRun::id).contains("zombie-a-queued");
  }

  @Test
  void aZombiesJournalBatchesForARunAnotherInstanceAdoptedAreDroppedAndTheAdoptersAreStored()
      throws Exception {
    instances.register("journal-a", "inc-1", LEASE);
    instances.register("journal-b", "inc-1", LEASE);
    record(new RunStore(dataSource, clock, "journal-a", keyring), "journal-run", RunStatus.QUEUED);
    RunJournalStore journalA = new RunJournalStore(dataSource, "journal-a");
    RunJournalStore journalB = new RunJournalStore(dataSource, "journal-b");
    journalA.record("acme", "journal-run", entries(1, 2));
    expire("journal-a");
    assertThat(ids(instances.adopt("journal-a", "journal-b"))).containsExactly("journal-run");

    // the paused instance has not noticed yet: its batches go nowhere, without an error (a thrown
    // batch would be offered again and again)
    journalA.record("acme", "journal-run", entries(3, 4));
    journalA.record("acme", "journal-run", entries(5, 5));
    // the adopter's journal continues above what was recorded, and is stored
    long base = 2 + RunCoordinator.RESUME_SEQUENCE_GAP;
    journalB.record("acme", "journal-run", entries(base + 1, base + 2));

    assertThat(journalB.after("acme", "journal-run", 0, Long.MAX_VALUE, 100))
        .extracting(RunEvent::sequence)
        .containsExactly(1L, 2L, base + 1, base + 2);
    // a run of the same id in another tenant is not this run: its owner does not fence it
    journalA.record("other", "journal-run", entries(1, 1));
    assertThat(journalA.lastRecorded("other", "journal-run")).isEqualTo(1);
  }

  @Test
  void aJournalBatchRacingTheAdoptionOfItsRunIsStoredBeforeItOrNotAtAll() throws Exception {
    record(new RunStore(dataSource, clock, "race-j-a", keyring), "race-j-run", RunStatus.QUEUED);
    RunJournalStore journalA = new RunJournalStore(dataSource, "race-j-a");
    journalA.record("acme", "race-j-run", entries(1, 1));
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (Connection adopter = dataSource.getConnection()) {
      // the adoption's move of the run row, not committed yet
      adopter.setAutoCommit(false);
      Sql.update(
          adopter,
          "UPDATE planner.runs SET instance_id = 'race-j-b' WHERE id = 'race-j-run'"
              + " AND instance_id = 'race-j-a'");
      Future<?> batch = pool.submit(() -> journalA.record("acme", "race-j-run", entries(2, 3)));
      // the batch waits for the adoption (it reads the run row FOR SHARE) instead of going in
      // under the owner its snapshot still shows
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> waitingOnALock() > 0);
      assertThat(batch.isDone()).isFalse();
      adopter.commit();
      batch.get(30, TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
    }
    assertThat(new RunJournalStore(dataSource, "race-j-b").after("acme", "race-j-run", 0, 99, 9))
        .extracting(RunEvent::sequence)
        .containsExactly(1L);
  }

  /** Sessions of this database waiting for a row lock held by another transaction. */
  private long waitingOnALock() throws Exception {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                    + " AND wait_event_type = 'Lock' AND query LIKE 'WITH owner AS%'");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Journal entries numbered {@code from}…{@code to}. */
  private List<RunEvent> entries(long from, long to) {
    List<RunEvent> out = new ArrayList<>();
    for (long i = from; i <= to; i++) {
      out.add(new RunEvent(i, clock.instant(), "log", null, "a", "stdout", "line " + i, null));
    }
    return out;
  }

  /** Records a run of {@code store}'s instance that went pending → {@code status}. */
  private Run record(RunStore store, String id, RunStatus status) {
    Run run =
        new Run(id, PlannerStoresTest.request("acme", "ws-" + id), clock.instant(), journal());
    store.transitioned(run, 1, RunStatus.PENDING, null, clock.instant());
    if (status != RunStatus.PENDING) {
      store.transitioned(run, 2, status, null, clock.instant());
    }
    return run;
  }

  private RunJournal journal() {
    return new RunJournal(clock);
  }

  private void expire(String instanceId) throws Exception {
    try (Connection c = dataSource.getConnection()) {
      Sql.update(
          c,
          "UPDATE planner.instances SET renewed_at = now() - interval '1 hour'"
              + " WHERE instance_id = ?",
          instanceId);
    }
  }

  private String owner(String runId) throws Exception {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            Sql.prepare(c, "SELECT instance_id FROM planner.runs WHERE id = ?", runId);
        ResultSet rs = ps.executeQuery()) {
      assertThat(rs.next()).isTrue();
      return rs.getString(1);
    }
  }

  private static List<String> ids(Optional<List<RunStore.UnfinishedRun>> runs) {
    return runs.orElse(List.of()).stream().map(RunStore.UnfinishedRun::id).toList();
  }
}
