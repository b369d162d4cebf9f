package dev.stagecraft.planner.service.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.planner.service.adapter.db.PlannerTestDatabase;
import dev.stagecraft.planner.service.adapter.db.RunJournalStore;
import dev.stagecraft.planner.service.adapter.db.RunStore;
import dev.stagecraft.planner.service.run.RunCoordinatorTest.FakeLocks;
import dev.stagecraft.planner.service.run.RunCoordinatorTest.FakeStates;
import dev.stagecraft.planner.service.run.journal.RecordingLane;
import dev.stagecraft.planner.service.run.journal.RunEvent;
import dev.stagecraft.planner.service.run.journal.RunJournal;
import dev.stagecraft.planner.service.run.recovery.RestartRecovery;
import dev.stagecraft.planner.service.run.recovery.ResumableRun;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A run's journal recorded (docs/adr/0032): handed to the recorder on the run's recording lane, in
 * sequence order and batched; written by {@link RunJournalStore} to a real PostgreSQL with its
 * tenant, idempotently; bounded; numbered above the previous life's entries for a resumed run.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RunJournalRecordsTest {
  final Clock clock = Clock.fixed(Instant.parse("2026-11-21T10:00:00Z"), ZoneOffset.UTC);
  PlannerTestDatabase database;
  HikariDataSource dataSource;
  RunJournalStore store;

  @BeforeAll
  void startDatabase() throws Exception {
    database = PlannerTestDatabase.start("planner-journal-");
    dataSource = database.dataSource();
    store = new RunJournalStore(dataSource, "planner-a");
  }

  @AfterAll
  void stopDatabase() throws Exception {
    if (database != null) {
      database.close();
    }
  }

  /** Records calls; the first one waits for {@link #release} (a database that has not answered). */
  static final class SlowRecorder implements RunJournal.Recorder {
    final List<List<RunEvent>> batches = new CopyOnWriteArrayList<>();
    final List<String> owners = new CopyOnWriteArrayList<>();
    final CountDownLatch firstStarted = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    int failures;
    long last;

    @Override
    public void record(String tenant, String runId, List<RunEvent> entries) {
      firstStarted.countDown();
      try {
        if (!release.await(30, TimeUnit.SECONDS)) {
          throw new IllegalStateException("the test never released the recorder");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      synchronized (this) {
        if (failures > 0) {
          failures--;
          throw new IllegalStateException("database unavailable");
        }
      }
      owners.add(tenant + "/" + runId);
      batches.add(entries);
    }

    @Override
    public long lastRecorded(String tenant, String runId) {
      return last;
    }

    List<Long> sequences() {
      return batches.stream().flatMap(List::stream).map(RunEvent::sequence).toList();
    }
  }

  @Test
  void entriesGoToTheRecorderOnTheLaneInOrderInBatchesWithTheirTenant() throws Exception {
    RecordingLane lane = new RecordingLane("run-1");
    RunJournal journal = new RunJournal(clock);
    SlowRecorder recorder = new SlowRecorder();
    journal.recordTo(lane, recorder, "acme", "run-1");

    journal.status(RunStatus.PENDING, "accepted");
    // the first batch is being written (held): appends return at once and pile up
    assertThat(recorder.firstStarted.await(10, TimeUnit.SECONDS)).isTrue();
    for (int i = 1; i <= 50; i++) {
      journal.log("null_resource.a", "stdout", "line " + i);
    }
    journal.status(RunStatus.APPLIED, "done");
    assertThat(recorder.batches).isEmpty();

    recorder.release.countDown();
    assertThat(lane.awaitSubmitted(Duration.ofSeconds(10))).isTrue();

    // one batch for the first entry, one for everything appended while it was written
    assertThat(recorder.batches).hasSize(2);
    assertThat(recorder.batches.get(0)).hasSize(1);
    assertThat(recorder.batches.get(1)).hasSize(51);
    assertThat(recorder.sequences()).isEqualTo(seq(1, 52));
    assertThat(recorder.owners).containsOnly("acme/run-1");
    assertThat(recorder.batches.stream().flatMap(List::stream).toList())
        .isEqualTo(journal.after(0, Duration.ZERO));
  }

  @Test
  void aBatchThatFailedIsOfferedAgainWithTheNextOne() throws Exception {
    RecordingLane lane = new RecordingLane("run-2");
    RunJournal journal = new RunJournal(clock);
    SlowRecorder recorder = new SlowRecorder();
    recorder.failures = 1;
    recorder.release.countDown();
    journal.recordTo(lane, recorder, "acme", "run-2");

    journal.status(RunStatus.PENDING, "accepted");
    journal.log("a", "stdout", "one");
    assertThat(lane.awaitSubmitted(Duration.ofSeconds(10))).isTrue();
    assertThat(recorder.failures).isZero();
    // the failed entries come again, before the new one and in order
    journal.log("a", "stdout", "two");
    assertThat(lane.awaitSubmitted(Duration.ofSeconds(10))).isTrue();
    assertThat(recorder.sequences()).isEqualTo(seq(1, 3));
  }

  @Test
  void outputBeyondTheLimitIsDroppedAfterOneEntrySayingSoAndTransitionsAreKept() throws Exception {
    RunJournal journal = new RunJournal(clock, 0, 3);
    journal.status(RunStatus.APPLYING, null);
    for (int i = 1; i <= 10; i++) {
      journal.log("a", "stdout", "line " + i);
    }
    journal.action("a", "complete");
    journal.status(RunStatus.APPLIED, null);

    List<RunEvent> all = journal.after(0, Duration.ZERO);
    assertThat(all).extracting(RunEvent::sequence).isEqualTo(seq(1, 7));
    assertThat(all)
        .extracting(RunEvent::kind)
        .containsExactly("status", "log", "log", "log", "action", "action", "status");
    assertThat(all.get(3).line()).isEqualTo("line 3");
    assertThat(all.get(4).message()).contains("beyond 3 lines per run is not kept");
  }

  @Test
  void aJournalWithABaseNumbersItsEntriesAboveIt() throws Exception {
    RunJournal journal = new RunJournal(clock, 1_000_042, 10);
    journal.status(RunStatus.PENDING, "resumed");
    journal.log("a", "stdout", "x");
    assertThat(journal.after(0, Duration.ZERO))
        .extracting(RunEvent::sequence)
        .containsExactly(1_000_043L, 1_000_044L);
    assertThat(journal.after(1_000_043, Duration.ZERO))
        .extracting(RunEvent::sequence)
        .containsExactly(1_000_044L);
    assertThat(journal.after(1_000_044, Duration.ZERO)).isEmpty();
  }

  @Test
  void aResumedRunsJournalContinuesAGapAboveWhatItsPreviousLifeRecorded() throws Exception {
    CoordinatorHarness harness = new CoordinatorHarness(new FakeLocks(), new FakeStates(), clock);
    try {
      SlowRecorder recorder = new SlowRecorder();
      recorder.release.countDown();
      recorder.last = 42;
      RunCoordinator coordinator = harness.coordinator.withJournalRecorder(recorder);
      Run run =
          coordinator.resume(
              new ResumableRun(
                  "run-resumed", RunResumeTest.request(), false, clock.instant(), 7, null, null),
              RestartRecovery.resumedMessage("planner-a", RunStatus.QUEUED));
      long base = 42 + RunCoordinator.RESUME_SEQUENCE_GAP;
      assertThat(run.journal().base()).isEqualTo(base);
      assertThat(run.journal().after(0, Duration.ZERO).getFirst().sequence()).isEqualTo(base + 1);
      await().atMost(Duration.ofSeconds(10)).until(() -> !recorder.sequences().isEmpty());
      assertThat(recorder.sequences().getFirst()).isEqualTo(base + 1);
      assertThat(recorder.owners).containsOnly("acme/run-resumed");
    } finally {
      harness.close();
    }
  }

  @Test
  void theStoreKeepsEntriesInOrderWithTheirTenantAndARedeliveryChangesNothing() throws Exception {
    List<RunEvent> entries = new ArrayList<>();
    RunJournal journal = new RunJournal(clock);
    journal.status(RunStatus.APPLYING, "go");
    journal.log("null_resource.a", "stdout", "password=(sensitive value)");
    journal.action("null_resource.a", "complete");
    journal.status(RunStatus.APPLIED, null);
    entries.addAll(journal.after(0, Duration.ZERO));

    store.record("acme", "run-s", entries.subList(0, 2));
    // a retry of an overlapping batch (the first write's commit was not seen): no duplicate
    store.record("acme", "run-s", entries.subList(0, 4));
    store.record("acme", "run-s", entries.subList(1, 3));

    assertThat(store.after("acme", "run-s", 0, Long.MAX_VALUE, 100)).isEqualTo(entries);
    assertThat(store.after("acme", "run-s", 2, Long.MAX_VALUE, 100))
        .isEqualTo(entries.subList(2, 4));
    assertThat(store.after("acme", "run-s", 0, 3, 2)).isEqualTo(entries.subList(0, 2));
    assertThat(store.lastRecorded("acme", "run-s")).isEqualTo(4);
    // another tenant reads nothing of it
    assertThat(store.after("other", "run-s", 0, Long.MAX_VALUE, 100)).isEmpty();
    assertThat(store.lastRecorded("other", "run-s")).isZero();
    try (Connection c = dataSource.getConnection();
        ResultSet rs =
            c.createStatement()
                .executeQuery(
                    "SELECT tenant, sequence, kind, entry->>'line' FROM planner.run_journal"
                        + " WHERE run_id = 'run-s' ORDER BY sequence")) {
      List<String> rows = new ArrayList<>();
      while (rs.next()) {
        rows.add(
            rs.getString(1) + " " + rs.getLong(2) + " " + rs.getString(3) + " " + rs.getString(4));
      }
      assertThat(rows)
          .containsExactly(
              "acme 1 status null",
              "acme 2 log password=(sensitive value)",
              "acme 3 action null",
              "acme 4 status null");
    }
  }

  @Test
  void aRunsJournalThroughItsLaneEndsUpInTheTableAsTheStreamSendsIt() throws Exception {
    RecordingLane lane = new RecordingLane("run-t");
    RunJournal journal = new RunJournal(clock);
    journal.recordTo(lane, store, "acme", "run-t");
    journal.status(RunStatus.PENDING, "accepted");
    for (int i = 0; i < 2_500; i++) {
      journal.log("a", i % 2 == 0 ? "stdout" : "stderr", "line " + i);
    }
    journal.status(RunStatus.APPLIED, null);
    assertThat(lane.awaitSubmitted(Duration.ofSeconds(30))).isTrue();

    List<RunEvent> recorded = new ArrayList<>();
    long after = 0;
    for (List<RunEvent> page = store.after("acme", "run-t", after, Long.MAX_VALUE, 500);
        !page.isEmpty();
        page = store.after("acme", "run-t", after, Long.MAX_VALUE, 500)) {
      recorded.addAll(page);
      after = page.getLast().sequence();
    }
    assertThat(recorded).isEqualTo(journal.after(0, Duration.ZERO));
    assertThat(recorded).hasSize(2_502);
  }

  @Test
  void aRunEndedAtRestartGetsItsErroredTransitionInItsJournalAboveAGap() throws Exception {
    RunStore runs =
        new RunStore(
            dataSource,
            clock,
            "planner-a",
            SecretsKeyring.parse(SecretsKeyring.generateEntry("k1")));
    Run run =
        new Run(
            "run-ended",
            PlannerStoresTest.request("acme", "prod"),
            clock.instant(),
            new RunJournal(clock));
    runs.transitioned(run, 1, RunStatus.PENDING, null, clock.instant());
    runs.transitioned(run, 2, RunStatus.APPLYING, null, clock.instant());
    store.record(
        "acme",
        "run-ended",
        List.of(
            new RunEvent(1, clock.instant(), "status", "pending", null, null, null, null),
            new RunEvent(2, clock.instant(), "status", "applying", null, null, null, null)));

    RunStore.UnfinishedRun unfinished =
        runs.unfinished().stream()
            .filter(u -> u.id().equals("run-ended"))
            .findFirst()
            .orElseThrow();
    runs.endUnfinished(unfinished, "restarted while applying");

    List<RunEvent> recorded = store.after("acme", "run-ended", 0, Long.MAX_VALUE, 100);
    assertThat(recorded)
        .extracting(RunEvent::sequence)
        .containsExactly(1L, 2L, 2 + RunCoordinator.RESUME_SEQUENCE_GAP + 1);
    assertThat(recorded.getLast().status()).isEqualTo("errored");
    assertThat(recorded.getLast().message()).isEqualTo("restarted while applying");
    // ending it again (another restart) changes nothing
    runs.endUnfinished(unfinished, "again");
    assertThat(store.after("acme", "run-ended", 0, Long.MAX_VALUE, 100)).isEqualTo(recorded);
  }

  @Test
  void aBatchTheDatabaseRefusesIsNotWrittenAtAll() {
    RunEvent ok = new RunEvent(1, clock.instant(), "log", null, "a", "stdout", "fine", null);
    // no kind: the second row breaks a NOT NULL constraint when the batch runs
    RunEvent bad = new RunEvent(2, clock.instant(), null, null, "a", "stdout", "no kind", null);
    assertThatThrownBy(() -> store.record("acme", "run-bad", List.of(ok, bad)))
        .isInstanceOf(RuntimeException.class);
    assertThat(store.lastRecorded("acme", "run-bad")).isZero();
  }

  private static List<Long> seq(long from, long to) {
    List<Long> out = new ArrayList<>();
    for (long i = from; i <= to; i++) {
      out.add(i);
    }
    return out;
  }
}
