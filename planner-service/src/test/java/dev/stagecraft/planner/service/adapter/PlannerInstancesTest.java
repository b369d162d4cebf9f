package dev.stagecraft.planner.service.adapter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.planner.service.adapter.db.InstanceStore;
import dev.stagecraft.planner.service.adapter.db.PlannerTestDatabase;
import dev.stagecraft.planner.service.adapter.db.RunStore;
import dev.stagecraft.planner.service.run.recovery.InstanceLease;
import dev.stagecraft.planner.service.run.recovery.RecoveryCause;
import dev.stagecraft.servicekit.db.Sql;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A planner instance's renewal, watchdog and adoption rounds on a real PostgreSQL (docs/adr/0034).
 * The heartbeat is an hour, so no scheduled round runs during a test: the test calls the rounds
 * itself, with a movable monotonic clock, and fencing is recorded instead of halting the JVM.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PlannerInstancesTest {
  static final InstanceLease LEASE = new InstanceLease(Duration.ofHours(1), Duration.ofHours(3));
  PlannerTestDatabase database;
  HikariDataSource dataSource;
  InstanceStore store;
  final List<PlannerInstances> started = new ArrayList<>();

  @BeforeAll
  void startDatabase() throws Exception {
    database = PlannerTestDatabase.start("planner-instances-");
    dataSource = database.dataSource();
    store = new InstanceStore(dataSource);
  }

  @AfterEach
  void closeInstancesAndForgetThem() throws Exception {
    started.forEach(PlannerInstances::close);
    started.clear();
    // an adoption round takes any dead instance's runs: each test starts from none
    try (Connection c = dataSource.getConnection()) {
      Sql.update(c, "DELETE FROM planner.runs");
      Sql.update(c, "DELETE FROM planner.instances");
    }
  }

  @AfterAll
  void stopDatabase() throws Exception {
    if (database != null) {
      database.close();
    }
  }

  /** A started instance with its own clock and fencing recorded in {@code reasons}. */
  private PlannerInstances instance(String id, AtomicLong nanos, List<String> reasons)
      throws Exception {
    PlannerInstances instance = new PlannerInstances(store, id, LEASE, nanos::get, reasons::add);
    started.add(instance);
    return instance;
  }

  @Test
  void anAdoptionRoundHandsTheDeadInstancesRunsOverAndTheDeadInstanceFencesWhenItWakesUp()
      throws Exception {
    List<String> fencedA = new CopyOnWriteArrayList<>();
    List<String> fencedB = new CopyOnWriteArrayList<>();
    PlannerInstances a = instance("round-a", new AtomicLong(), fencedA);
    PlannerInstances b = instance("round-b", new AtomicLong(), fencedB);
    insertRun("round-a", "round-a-1", "queued", "2026-11-21T10:00:00Z");
    insertRun("round-a", "round-a-2", "planned", "2026-11-21T10:00:01Z");
    insertRun("round-a", "round-a-done", "applied", "2026-11-21T09:00:00Z");
    List<RecoveryCause.Adoption> causes = new ArrayList<>();
    List<String> handed = new ArrayList<>();
    PlannerInstances.Adopter adopter =
        (cause, runs) -> {
          causes.add(cause);
          runs.forEach(r -> handed.add(r.id()));
        };

    assertThat(b.adoptOnce(adopter)).as("round-a is alive").isZero();
    expire("round-a");
    assertThat(b.adoptOnce(adopter)).isEqualTo(2);
    assertThat(handed).containsExactly("round-a-1", "round-a-2");
    assertThat(causes).containsExactly(new RecoveryCause.Adoption("round-b", "round-a"));
    assertThat(b.adoptOnce(adopter)).as("nothing left to adopt").isZero();

    a.renew();
    assertThat(a.fenced()).isTrue();
    assertThat(fencedA).singleElement().asString().contains("adopted by instance round-b");
    b.renew();
    b.watch();
    assertThat(b.fenced()).isFalse();
    assertThat(fencedB).isEmpty();
  }

  @Test
  void theWatchdogFencesAnInstanceThatCouldNotRenewForTheLeaseMinusAHeartbeat() throws Exception {
    AtomicLong nanos = new AtomicLong();
    List<String> reasons = new CopyOnWriteArrayList<>();
    PlannerInstances a = instance("watch-a", nanos, reasons);
    long almost = LEASE.fenceAfter().toNanos() - 1;

    nanos.addAndGet(almost);
    a.watch();
    assertThat(a.fenced()).isFalse();
    a.renew(); // succeeds: the lease counts again from this renewal's start
    nanos.addAndGet(almost);
    a.watch();
    assertThat(a.fenced()).isFalse();

    nanos.addAndGet(1);
    a.watch();
    assertThat(a.fenced()).isTrue();
    assertThat(reasons)
        .singleElement()
        .asString()
        .contains("watch-a could not renew its lease for " + LEASE.fenceAfter().toMillis() + " ms");
    a.watch();
    assertThat(reasons).as("fenced once").hasSize(1);
  }

  /**
   * A process that wakes from a pause longer than its lease must not publish for the runs another
   * instance adopted meanwhile, not even until the watchdog's next look: the check before a
   * publication fences at once.
   */
  @Test
  void theCheckBeforeAnEffectFencesAnInstanceThatWokeAfterItsLeaseWithoutWaitingForTheWatchdog()
      throws Exception {
    AtomicLong nanos = new AtomicLong();
    List<String> reasons = new CopyOnWriteArrayList<>();
    PlannerInstances a = instance("check-a", nanos, reasons);
    nanos.addAndGet(LEASE.fenceAfter().toNanos() - 1);
    a.checkLease(); // still safe: returns, fences nothing
    assertThat(a.fenced()).isFalse();

    nanos.addAndGet(LEASE.lease().toNanos()); // a pause (SIGSTOP) longer than the lease
    assertThatThrownBy(a::checkLease)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("check-a")
        .hasMessageContaining("fenced");
    assertThat(a.fenced()).isTrue();
    assertThat(reasons).singleElement().asString().contains("check-a could not renew its lease");
    assertThatThrownBy(a::checkLease).isInstanceOf(IllegalStateException.class);
    assertThat(reasons).as("fenced once").hasSize(1);
  }

  @Test
  void anInstanceUnsureOfItsOwnLeaseAdoptsNothing() throws Exception {
    AtomicLong nanos = new AtomicLong();
    instance("unsure-a", new AtomicLong(), new ArrayList<>());
    PlannerInstances b = instance("unsure-b", nanos, new ArrayList<>());
    insertRun("unsure-a", "unsure-a-1", "queued", "2026-11-21T10:00:00Z");
    expire("unsure-a");

    nanos.addAndGet(LEASE.fenceAfter().toNanos());
    assertThat(b.adoptOnce((cause, runs) -> {})).isZero();
    assertThat(new RunStore(dataSource, java.time.Clock.systemUTC(), "unsure-a", null).unfinished())
        .extracting(RunStore.UnfinishedRun::id)
        .containsExactly("unsure-a-1");
  }

  private void insertRun(String instance, String id, String status, String createdAt)
      throws Exception {
    try (Connection c = dataSource.getConnection()) {
      Sql.update(
          c,
          "INSERT INTO planner.runs (tenant, id, workspace, status, created_at, updated_at,"
              + " instance_id, last_sequence) VALUES ('acme', ?, 'prod', ?, ?, ?, ?, 2)",
          id,
          status,
          Instant.parse(createdAt),
          Instant.parse(createdAt),
          instance);
    }
  }

  private void expire(String instanceId) throws Exception {
    try (Connection c = dataSource.getConnection()) {
      Sql.update(
          c,
          "UPDATE planner.instances SET renewed_at = now() - interval '4 hours'"
              + " WHERE instance_id = ?",
          instanceId);
    }
  }
}
