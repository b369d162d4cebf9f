package dev.stagecraft.state.adapter.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.state.StateRecorded;
import dev.stagecraft.state.application.ActionResults;
import dev.stagecraft.state.application.RunOpening;
import dev.stagecraft.state.history.WorkspaceState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The one-round-trip append ({@code state.append_events}, V7; ADR 0021) against a real PostgreSQL:
 * its guarantees called directly (sequence after the head read under the workspace lock, "moved"
 * for a stale head, fencing, idempotency by event id and by action), and {@code
 * ActionResults.record} built on it under concurrency (several store instances, each with its own
 * cache, writing one workspace at once).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StateAppendTest {
  private static final String TENANT = "append";

  /** A payload the fold reads back (the events written here are typed lock_force_unlocked). */
  private static final String PAYLOAD =
      "{\"lockId\":\"l\",\"holder\":\"h\",\"fencingToken\":1,\"reason\":\"r\"}";

  private StateTestDatabase database;
  private HikariDataSource dataSource;
  private final EventCodec executorCodec = EventCodec.forSource("/test/executor");

  @BeforeAll
  void startDatabase() throws Exception {
    database = StateTestDatabase.start("state-append");
    dataSource = database.dataSource();
  }

  @AfterAll
  void stopDatabase() throws Exception {
    if (database != null) {
      database.close();
    }
  }

  @Test
  void appendsAfterTheHeadAndAnswersAStaleHeadWithMovedWritingNothing() throws Exception {
    assertThat(append("seq", "e1", null, null)).isEqualTo(new EventAppend.Answer.Appended(1, 0));
    assertThat(append("seq", "e2", 1L, null)).isEqualTo(new EventAppend.Answer.Appended(2, 0));

    // a writer that folded at head 1 lost the race: told the head, nothing written
    assertThat(append("seq", "e3", 1L, null)).isEqualTo(new EventAppend.Answer.Moved(2, 0));
    assertThat(sequences("seq")).containsExactly(1L, 2L);
    assertThat(append("seq", "e3", 2L, null)).isEqualTo(new EventAppend.Answer.Appended(3, 0));
    assertThat(sequences("seq")).containsExactly(1L, 2L, 3L);
  }

  @Test
  void theSameEventIdTwiceIsAppendedOnceAndAnsweredWithItsSequence() throws Exception {
    append("idem", "first", null, null);
    append("idem", "second", null, null);

    assertThat(append("idem", "first", null, null))
        .isEqualTo(new EventAppend.Answer.Duplicate(1, 0, null));
    assertThat(sequences("idem")).containsExactly(1L, 2L);
  }

  @Test
  void aTokenOlderThanTheNewestIsRefusedAndANewerOneBecomesTheNewest() throws Exception {
    assertThat(append("fence", "a", null, 5L)).isEqualTo(new EventAppend.Answer.Appended(1, 5));
    assertThat(append("fence", "b", null, 4L)).isEqualTo(new EventAppend.Answer.Stale(5));
    assertThat(append("fence", "c", null, 7L)).isEqualTo(new EventAppend.Answer.Appended(2, 7));
    assertThat(append("fence", "d", null, 5L)).isEqualTo(new EventAppend.Answer.Stale(7));
    assertThat(sequences("fence")).containsExactly(1L, 2L);
  }

  @Test
  void recordRefusesAStaleTokenWithoutHavingReadItFirst() throws Exception {
    StateStore store = newStore();
    record(store, "stale", "run-1", "act-1", 3);
    assertThat(store.advanceFencing(TENANT, "stale", 9)).isEmpty();

    // this store's cache holds the fold and token 3 as the newest at its head: the bare insert
    // finds the head taken by the advance's event, and the function refuses the token
    StateRecorded rejected = record(store, "stale", "run-1", "act-2", 3);

    assertThat(rejected.outcome()).isEqualTo("rejected");
    assertThat(rejected.error()).contains("fencing token 3 is older than the newest token 9");
    assertThat(rejected.serial()).isEqualTo(1);
    assertThat(store.history(TENANT, "stale"))
        .extracting(e -> e.type())
        .containsExactly("lineage_assigned", "instance_created", "fencing_advanced");
    assertThat(store.newestFencingToken(TENANT, "stale")).isEqualTo(9);
    // a newer token is accepted and becomes the newest
    assertThat(record(store, "stale", "run-2", "act-3", 10).serial()).isEqualTo(2);
    assertThat(store.newestFencingToken(TENANT, "stale")).isEqualTo(10);
  }

  @Test
  void aResultIsRecordedOnceByEnvelopeIdAndByActionWithTheFirstAnswer() throws Exception {
    StateStore store = newStore();
    EventEnvelope source = finished("once", "run-1", "act-1", 1, "create");
    ActionResults.Recorded first = Histories.results(store).record(source, data(source));
    EventEnvelope sameAction = finished("once", "run-1", "act-1", 1, "create"); // new envelope id

    ActionResults.Recorded byId = Histories.results(newStore()).record(source, data(source));
    ActionResults.Recorded byAction = Histories.results(store).record(sameAction, data(sameAction));

    assertThat(byId.duplicate()).isTrue();
    assertThat(byAction.duplicate()).isTrue();
    for (ActionResults.Recorded again : List.of(byId, byAction)) {
      assertThat(again.envelope().id()).isEqualTo(first.envelope().id());
      assertThat(again.envelope().time()).isEqualTo(first.envelope().time());
      assertThat(EventCodec.data(again.envelope(), StateRecorded.class))
          .isEqualTo(EventCodec.data(first.envelope(), StateRecorded.class));
    }
    assertThat(store.history(TENANT, "once")).hasSize(2); // lineage + the instance, once
  }

  @Test
  void aResultRecordedByTheFastStatementIsRecordedOnceWithItsVersionAndOutcome() throws Exception {
    StateStore store = newStore();
    record(store, "fast-once", "run-1", "act-1", 1); // first result: lineage + instance (V7)
    EventEnvelope second = finished("fast-once", "run-1", "act-2", 1, "create");
    ActionResults.Recorded first =
        Histories.results(store).record(second, data(second)); // one event: fast statement

    EventEnvelope sameAction = finished("fast-once", "run-1", "act-2", 1, "create");
    ActionResults.Recorded byId = Histories.results(store).record(second, data(second));
    ActionResults.Recorded byAction =
        Histories.results(newStore()).record(sameAction, data(sameAction));

    for (ActionResults.Recorded again : List.of(byId, byAction)) {
      assertThat(again.duplicate()).isTrue();
      assertThat(again.envelope().id()).isEqualTo(first.envelope().id());
      assertThat(EventCodec.data(again.envelope(), StateRecorded.class))
          .isEqualTo(EventCodec.data(first.envelope(), StateRecorded.class));
    }
    assertThat(sequences("fast-once")).containsExactly(1L, 2L, 3L);
    assertThat(newStore().versions(TENANT, "fast-once"))
        .extracting(StateStore.Version::serial)
        .containsExactly(1L, 2L);
    assertThat(outcomes("fast-once")).isEqualTo(2);
    assertThat(EventCodec.data(first.envelope(), StateRecorded.class).serial()).isEqualTo(2);
  }

  @Test
  void concurrentWritersOfOneWorkspaceGetGaplessSequencesAndEachResultOnce() throws Exception {
    int writers = 6;
    int perWriter = 15;
    List<StateStore> stores = List.of(newStore(), newStore(), newStore());
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<List<Long>>> serials = new ArrayList<>();
    try {
      for (int w = 0; w < writers; w++) {
        int writer = w;
        serials.add(
            pool.submit(
                () -> {
                  start.await();
                  List<Long> mine = new ArrayList<>();
                  for (int i = 0; i < perWriter; i++) {
                    String action = "act-" + writer + "-" + i;
                    mine.add(
                        record(stores.get(writer % stores.size()), "race", "run-1", action, 1)
                            .serial());
                  }
                  return mine;
                }));
      }
      start.countDown();
      Set<Long> all = new HashSet<>();
      for (Future<List<Long>> f : serials) {
        all.addAll(f.get());
      }
      int results = writers * perWriter;
      // every result got its own serial: none lost, none applied twice
      assertThat(all).hasSize(results);
      assertThat(all)
          .containsExactlyInAnyOrderElementsOf(LongStream.rangeClosed(1, results).boxed().toList());
    } finally {
      pool.shutdownNow();
    }
    int results = writers * perWriter;
    // the lineage + one event per result, sequences 1..n without a gap
    assertThat(sequences("race"))
        .containsExactlyElementsOf(LongStream.rangeClosed(1, results + 1).boxed().toList());
    List<StateStore.StoredEvent> history = newStore().history(TENANT, "race");
    assertThat(
            history.stream()
                .filter(e -> !e.type().equals("lineage_assigned"))
                .map(StateStore.StoredEvent::actionId))
        .doesNotHaveDuplicates()
        .hasSize(results);
    WorkspaceState full =
        WorkspaceState.fold(history.stream().map(StateStore.StoredEvent::event).toList());
    assertThat(full.serial()).isEqualTo(results);
    assertThat(full.instances()).hasSize(results);
    for (StateStore store : stores) {
      assertThat(store.currentState(TENANT, "race")).isEqualTo(full);
    }
    assertThat(newStore().versions(TENANT, "race")).hasSize(results);
  }

  @Test
  void versionDigestsAreLeftToTheFirstListingWhichStoresThemOnce() throws Exception {
    StateStore store = newStore();
    for (int i = 0; i < 3; i++) {
      record(store, "digests", "run-1", "act-" + i, 1);
    }
    assertThat(digests("digests")).hasSize(3).containsOnlyNulls();

    List<StateStore.Version> listed = store.versions(TENANT, "digests");

    List<StateStore.StoredEvent> history = store.history(TENANT, "digests");
    for (StateStore.Version v : listed) {
      WorkspaceState at =
          WorkspaceState.fold(
              history.subList(0, (int) v.sequence()).stream()
                  .map(StateStore.StoredEvent::event)
                  .toList());
      assertThat(v.digest())
          .isEqualTo(
              StateStore.digest(
                  dev.stagecraft.state.history.TerraformStateV4.render(at, at.lineage())));
    }
    assertThat(digests("digests"))
        .containsExactlyElementsOf(listed.stream().map(StateStore.Version::digest).toList());
    assertThat(newStore().versions(TENANT, "digests")).isEqualTo(listed);
    // once stored, a digest is as append-only as the rest of the row
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "UPDATE state.state_versions SET digest = 'x' WHERE tenant = ? AND workspace = ?")) {
      ps.setString(1, TENANT);
      ps.setString(2, "digests");
      assertThatThrownBy(ps::executeUpdate)
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("only a missing digest may be filled in");
    }
  }

  @Test
  void theFastAppendWritesAfterTheExpectedHeadAndLeavesEveryOtherCaseToTheFunction()
      throws Exception {
    // first append of a workspace: no fencing row yet, the function appends and creates it
    assertThat(appendOne("fast", "f1", 0, 0, 3)).isEqualTo(new EventAppend.Answer.Appended(1, 3));
    // the bare insert alone appends after a head it is given
    assertThat(fastStatement("fast", "f2", 1)).isEqualTo(2);
    assertThat(appendOne("fast", "f3", 2, 3, 3)).isEqualTo(new EventAppend.Answer.Appended(3, 3));

    // a head that moved: the insert writes nothing, the function says why
    assertThat(fastStatement("fast", "x", 2)).isNull();
    assertThat(appendOne("fast", "x", 2, 3, 3)).isEqualTo(new EventAppend.Answer.Moved(3, 3));
    // not tried when the caller does not know the newest token at its head, or its token is not
    // that one: the function decides (a head that does not exist, a stale token)
    assertThat(appendOne("fast", "x", 7, EventAppend.UNKNOWN_TOKEN, 3))
        .isEqualTo(new EventAppend.Answer.Moved(3, 3));
    assertThat(appendOne("fast", "x", 3, 3, 2)).isEqualTo(new EventAppend.Answer.Stale(3));
    // the same event id again: skipped by the statement's ON CONFLICT, answered as a duplicate
    assertThat(appendOne("fast", "f2", 3, 3, 3))
        .isEqualTo(new EventAppend.Answer.Duplicate(2, 3, null));
    // a newer token: the function appends and makes it the newest; then the fast path again
    assertThat(appendOne("fast", "f4", 3, 3, 5)).isEqualTo(new EventAppend.Answer.Appended(4, 5));
    assertThat(appendOne("fast", "f5", 4, 5, 5)).isEqualTo(new EventAppend.Answer.Appended(5, 5));
    assertThat(sequences("fast")).containsExactly(1L, 2L, 3L, 4L, 5L);
    assertThat(types("fast")).doesNotContain("fencing_advanced");
  }

  @Test
  void aRedeliveryOrALostRaceOnTheFastPathWritesNothingRaisesNothingAndGetsTheFirstAnswer()
      throws Exception {
    assertThat(appendOne("quiet", "q1", 0, 0, 4)).isInstanceOf(EventAppend.Answer.Appended.class);
    StateStore store = newStore();
    record(store, "quiet-record", "run-1", "act-1", 1); // lineage + instance (the function)
    EventEnvelope second = finished("quiet-record", "run-1", "act-2", 1, "create");
    ActionResults.Recorded first =
        Histories.results(store).record(second, data(second)); // the fast statement

    try (Connection c = dataSource.getConnection()) {
      assertThat(fastStatement(c, "quiet", "q2", 1)).isEqualTo(2);
      // a redelivery (same event id; at the same head its sequence is taken too) and a lost race
      // (another event at a sequence already taken): no row and no unique violation raised, so
      // no aborted statement and no ERROR line in the server's log
      assertThat(fastStatement(c, "quiet", "q2", 1)).isNull();
      assertThat(fastStatement(c, "quiet", "q2", 2)).isNull();
      assertThat(fastStatement(c, "quiet", "q3", 1)).isNull();
      // record's statement (event, version, outcome) for a redelivered result: nothing written,
      // nothing raised
      try (PreparedStatement ps = c.prepareStatement(EventAppend.RECORD_ONE)) {
        int p =
            EventAppend.bindOneEvent(
                ps,
                0,
                TENANT,
                "quiet-record",
                3,
                second.id() + "#1",
                "run-1",
                "act-2",
                "executor:exec-1",
                "instance_created",
                "stateful_provisioning.app[\"act-2\"]",
                PAYLOAD,
                java.sql.Timestamp.from(java.time.Instant.now()));
        EventAppend.bindRecordRest(ps, p, 3L, "run-1", "act-2", second.id(), "applied", 3, "{}");
        assertThat(ps.executeUpdate()).isZero();
      }
    }

    // the function then answers as before: the first outcome, or the head that moved
    assertThat(appendOne("quiet", "q2", 2, 4, 4))
        .isEqualTo(new EventAppend.Answer.Duplicate(2, 4, null));
    assertThat(appendOne("quiet", "q3", 1, 4, 4)).isEqualTo(new EventAppend.Answer.Moved(2, 4));
    assertThat(sequences("quiet")).containsExactly(1L, 2L);
    ActionResults.Recorded again = Histories.results(newStore()).record(second, data(second));
    assertThat(again.duplicate()).isTrue();
    assertThat(again.envelope().id()).isEqualTo(first.envelope().id());
    assertThat(sequences("quiet-record")).containsExactly(1L, 2L, 3L);
    assertThat(outcomes("quiet-record")).isEqualTo(2);
  }

  @Test
  void everyAdvanceOfTheNewestTokenMovesTheHeadSoAnOlderHoldersFastAppendFindsItsSequenceTaken()
      throws Exception {
    StateStore store = newStore();
    record(store, "advance", "run-1", "act-1", 1); // lineage + instance: head 2, token 1
    long serial = store.currentState(TENANT, "advance").serial();
    // an advance with no write of its own appends its fencing_advanced event
    assertThat(store.advanceFencing(TENANT, "advance", 2)).isEmpty();
    assertThat(types("advance"))
        .containsExactly("lineage_assigned", "instance_created", "fencing_advanced");
    // the same token again, or an older one: nothing advances, nothing is appended
    assertThat(store.advanceFencing(TENANT, "advance", 2)).isEmpty();
    assertThat(store.advanceFencing(TENANT, "advance", 1)).contains(2L);
    assertThat(sequences("advance")).containsExactly(1L, 2L, 3L);

    // the older holder still believes head 2 with its token the newest: its insert finds 3 taken,
    // and the function refuses its token
    assertThat(appendOne("advance", "a2", 2, 1, 1)).isEqualTo(new EventAppend.Answer.Stale(2));
    // a run opening that advances: the same
    RunOpening opening = store.openRun(TENANT, "advance", 3, "run-3", "hash-advance");
    assertThat(opening.newerToken()).isEmpty();
    assertThat(types("advance")).endsWith("fencing_advanced", "fencing_advanced");
    assertThat(appendOne("advance", "a3", 3, 2, 2)).isEqualTo(new EventAppend.Answer.Stale(3));
    // the function's own advance with no events (a result recorded without a change): the same
    assertThat(appendNothing("advance", 4L, 4L)).isEqualTo(new EventAppend.Answer.Appended(5, 4));
    assertThat(types("advance"))
        .containsExactly(
            "lineage_assigned",
            "instance_created",
            "fencing_advanced",
            "fencing_advanced",
            "fencing_advanced");
    assertThat(appendOne("advance", "a4", 4, 3, 3)).isEqualTo(new EventAppend.Answer.Stale(4));
    // the fold ignores them, a fresh store included
    assertThat(newStore().currentState(TENANT, "advance").serial()).isEqualTo(serial);
    assertThat(newStore().currentState(TENANT, "advance").instances()).hasSize(1);
  }

  @Test
  void aRunsResultsAfterItsOpeningTakeTheBareInsertWithoutTouchingTheFencingRow() throws Exception {
    StateStore store = newStore();
    record(store, "opened", "run-1", "act-1", 1);
    assertThat(store.openRun(TENANT, "opened", 2, "run-2", "hash-opened").newerToken()).isEmpty();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (Connection holder = dataSource.getConnection()) {
      // the fencing row held FOR UPDATE: the function (and any read of the row under a lock)
      // would wait for it; the opening told the store that token 2 is the newest at its head
      holder.setAutoCommit(false);
      try (PreparedStatement ps =
          holder.prepareStatement(
              "SELECT newest_token FROM state.fencing WHERE tenant = ? AND workspace = ?"
                  + " FOR UPDATE")) {
        ps.setString(1, TENANT);
        ps.setString(2, "opened");
        ps.executeQuery().close();
      }
      for (String action : List.of("act-2", "act-3", "act-4")) {
        Future<StateRecorded> recorded =
            pool.submit(() -> record(store, "opened", "run-2", action, 2));
        assertThat(recorded.get(30, java.util.concurrent.TimeUnit.SECONDS).outcome())
            .isNotEqualTo("rejected");
      }
      holder.rollback();
    } finally {
      pool.shutdownNow();
    }
    assertThat(types("opened"))
        .containsExactly(
            "lineage_assigned",
            "instance_created",
            "fencing_advanced",
            "instance_created",
            "instance_created",
            "instance_created");
  }

  @Test
  void aTakeoverInProgressMakesTheFastAppendWaitAndThenRefusesItsOlderToken() throws Exception {
    assertThat(appendOne("takeover", "t1", 0, 0, 1))
        .isInstanceOf(EventAppend.Answer.Appended.class);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (Connection takeover = dataSource.getConnection()) {
      // a newer lock holder registers its token: its fencing_advanced event holds sequence 2,
      // not yet committed
      takeover.setAutoCommit(false);
      try (PreparedStatement ps =
          takeover.prepareStatement(
              "SELECT advanced FROM state.advance_fencing(?, ?, 2, NULL, NULL, now())")) {
        ps.setString(1, TENANT);
        ps.setString(2, "takeover");
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          assertThat(rs.getBoolean(1)).isTrue();
        }
      }
      Future<EventAppend.Answer> old = pool.submit(() -> appendOne("takeover", "t2", 1, 1, 1));
      awaitWaitingOnALock("INSERT INTO state.state_events");
      assertThat(old).isNotDone();
      takeover.commit();

      // the older token's insert found its sequence taken once the takeover committed; the
      // function refused the token
      assertThat(old.get(30, java.util.concurrent.TimeUnit.SECONDS))
          .isEqualTo(new EventAppend.Answer.Stale(2));
    } finally {
      pool.shutdownNow();
    }
    assertThat(sequences("takeover")).containsExactly(1L, 2L);
    assertThat(types("takeover")).containsExactly("lock_force_unlocked", "fencing_advanced");
  }

  @Test
  void anAppendInFlightMakesATakeoverWaitAndTheTakeoverLandsAfterIt() throws Exception {
    assertThat(appendOne("inflight", "i1", 0, 0, 1))
        .isInstanceOf(EventAppend.Answer.Appended.class);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    StateStore store = newStore();
    try (Connection appending = dataSource.getConnection()) {
      // the bare insert in an open transaction: sequence 2 is held until it commits
      appending.setAutoCommit(false);
      assertThat(fastStatement(appending, "inflight", "i2", 1)).isEqualTo(2);
      Future<java.util.Optional<Long>> advance =
          pool.submit(() -> store.advanceFencing(TENANT, "inflight", 2));
      awaitWaitingOnALock("advance_fencing");
      assertThat(advance).isNotDone();
      appending.commit();
      assertThat(advance.get(30, java.util.concurrent.TimeUnit.SECONDS)).isEmpty();
    } finally {
      pool.shutdownNow();
    }
    assertThat(store.newestFencingToken(TENANT, "inflight")).isEqualTo(2);
    // the older holder's write is ordered before the takeover, whose event claimed the next one
    assertThat(sequences("inflight")).containsExactly(1L, 2L, 3L);
    assertThat(types("inflight"))
        .containsExactly("lock_force_unlocked", "lock_force_unlocked", "fencing_advanced");
    assertThat(appendOne("inflight", "i3", 2, 1, 1)).isEqualTo(new EventAppend.Answer.Stale(2));
  }

  @Test
  void aRunOpeningWhoseSequenceAFastAppendTookLandsAfterIt() throws Exception {
    StateStore store = newStore();
    record(store, "opening", "run-1", "act-1", 1); // head 2, token 1
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (Connection appending = dataSource.getConnection()) {
      // the old holder's bare insert at 3, not yet committed; the opening's statement reads head
      // 2, its event waits for the insert, finds 3 taken and writes nothing; it runs again
      appending.setAutoCommit(false);
      assertThat(fastStatement(appending, "opening", "o3", 2)).isEqualTo(3);
      Future<RunOpening> opening =
          pool.submit(() -> store.openRun(TENANT, "opening", 2, "run-2", "hash-opening"));
      awaitWaitingOnALock("fencing_advanced");
      assertThat(opening).isNotDone();
      appending.commit();
      RunOpening opened = opening.get(30, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(opened.newerToken()).isEmpty();
      assertThat(opened.credentialIssued()).isTrue();
    } finally {
      pool.shutdownNow();
    }
    assertThat(types("opening"))
        .containsExactly(
            "lineage_assigned", "instance_created", "lock_force_unlocked", "fencing_advanced");
    assertThat(store.newestFencingToken(TENANT, "opening")).isEqualTo(2);
    // the old holder's next write finds its sequence taken: refused
    assertThat(appendOne("opening", "o4", 3, 1, 1)).isEqualTo(new EventAppend.Answer.Stale(2));
  }

  @Test
  void aLockedWriterWhoseSequenceAFastAppendTookReadsTheHeadAgainInsteadOfFailing()
      throws Exception {
    assertThat(appendOne("locked", "l1", 0, 0, 1)).isInstanceOf(EventAppend.Answer.Appended.class);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    StateStore store = newStore();
    try (Connection appending = dataSource.getConnection()) {
      appending.setAutoCommit(false);
      assertThat(fastStatement(appending, "locked", "l2", 1)).isEqualTo(2);
      // a writer under the workspace's row lock (a force-unlock record) reads head 1 and inserts
      // at 2: it waits for the bare insert, loses the sequence, and must not fail for it
      Future<?> forced =
          pool.submit(
              () -> {
                Histories.changes(store)
                    .recordForceUnlock(
                        TENANT,
                        "locked",
                        new dev.stagecraft.state.history.StateEvent.LockForceUnlocked(
                            "lock-1", "holder", 1, "stuck"),
                        "admin");
                return null;
              });
      awaitWaitingOnALock("INSERT INTO state.state_events");
      assertThat(forced).isNotDone();
      appending.commit();
      forced.get(30, java.util.concurrent.TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
    }
    assertThat(sequences("locked")).containsExactly(1L, 2L, 3L);
    assertThat(types("locked"))
        .containsExactly("lock_force_unlocked", "lock_force_unlocked", "lock_force_unlocked");
  }

  @Test
  void aPushWhoseSequenceAFastAppendTookReadsTheHeadAgainAndDecidesAgain(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path uploads) throws Exception {
    StateStore store = newStore();
    com.fasterxml.jackson.databind.ObjectMapper json =
        new com.fasterxml.jackson.databind.ObjectMapper();
    Map<String, Object> doc = StoredDocumentStoreTest.realistic(); // serial 17
    assertThat(push(store, "pushed", json.writeValueAsBytes(doc), uploads).accepted()).isTrue();
    assertThat(sequences("pushed")).containsExactly(1L);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (Connection appending = dataSource.getConnection()) {
      // a result's bare insert at 2, not yet committed; the push reads head 1 under the row lock,
      // claims 2, waits for the insert, loses the sequence, and must not fail for it
      appending.setAutoCommit(false);
      assertThat(fastStatement(appending, "pushed", "p2", 1)).isEqualTo(2);
      doc.put("serial", 18);
      byte[] next = json.writeValueAsBytes(doc);
      Future<dev.stagecraft.state.history.DocumentDecider.Outcome> pushed =
          pool.submit(() -> push(store, "pushed", next, uploads));
      awaitWaitingOnALock("INSERT INTO state.state_events");
      assertThat(pushed).isNotDone();
      appending.commit();
      assertThat(pushed.get(30, java.util.concurrent.TimeUnit.SECONDS).serial()).isEqualTo(18);
    } finally {
      pool.shutdownNow();
    }
    assertThat(types("pushed"))
        .containsExactly("state_pushed", "lock_force_unlocked", "state_pushed");
    assertThat(store.versions(TENANT, "pushed"))
        .extracting(StateStore.Version::sequence)
        .containsExactly(1L, 3L);
    assertThat(newStore().currentState(TENANT, "pushed").serial()).isEqualTo(18);
  }

  private static dev.stagecraft.state.history.DocumentDecider.Outcome push(
      StateStore store, String workspace, byte[] body, java.nio.file.Path uploads)
      throws Exception {
    try (dev.stagecraft.state.adapter.document.SpooledDocument upload =
        dev.stagecraft.state.adapter.document.SpooledDocument.receive(
            new java.io.ByteArrayInputStream(body), null, Long.MAX_VALUE, uploads)) {
      return store.pushDocument(TENANT, workspace, 0, "user:test", upload, false);
    }
  }

  // --- fixtures -----------------------------------------------------------------------------

  /** One event appended through the function directly, as the benchmark's primitive does. */
  private EventAppend.Answer append(String workspace, String eventId, Long expectedHead, Long token)
      throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT status, head, newest, previous FROM state.append_events(?, ?, ?, ?, true,"
                    + " ARRAY[?], NULL, NULL, NULL, ARRAY['lock_force_unlocked'], ARRAY[NULL],"
                    + " ARRAY[?::jsonb], NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, now())")) {
      ps.setString(1, TENANT);
      ps.setString(2, workspace);
      ps.setObject(3, expectedHead, java.sql.Types.BIGINT);
      ps.setObject(4, token, java.sql.Types.BIGINT);
      ps.setString(5, eventId);
      ps.setString(6, PAYLOAD);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return EventAppend.Answer.read(rs);
      }
    }
  }

  /** {@code state.append_events} with no events, as a result recorded without a change calls it. */
  private EventAppend.Answer appendNothing(String workspace, Long expectedHead, Long token)
      throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT status, head, newest, previous FROM state.append_events(?, ?, ?, ?, true,"
                    + " ARRAY[]::text[], NULL, NULL, NULL, ARRAY[]::text[], ARRAY[]::text[],"
                    + " ARRAY[]::jsonb[], NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, now())")) {
      ps.setString(1, TENANT);
      ps.setString(2, workspace);
      ps.setObject(3, expectedHead, java.sql.Types.BIGINT);
      ps.setObject(4, token, java.sql.Types.BIGINT);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return EventAppend.Answer.read(rs);
      }
    }
  }

  private EventAppend.Answer appendOne(
      String workspace, String eventId, long expectedHead, long newestAtHead, long token)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      return EventAppend.appendOne(
          c,
          TENANT,
          workspace,
          expectedHead,
          newestAtHead,
          token,
          eventId,
          "run-1",
          "act-" + eventId,
          "test",
          "lock_force_unlocked",
          null,
          PAYLOAD,
          java.time.Instant.now());
    }
  }

  /**
   * The fast statement alone, in autocommit: the sequence it appended, or null when it wrote
   * nothing (no row, or a unique violation aborted it).
   */
  private Long fastStatement(String workspace, String eventId, long expectedHead)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      return fastStatement(c, workspace, eventId, expectedHead);
    } catch (SQLException e) {
      if (EventAppend.isUniqueViolation(e)) {
        return null;
      }
      throw e;
    }
  }

  private static Long fastStatement(
      Connection c, String workspace, String eventId, long expectedHead) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(EventAppend.ONE_EVENT)) {
      EventAppend.bindOneEvent(
          ps,
          0,
          TENANT,
          workspace,
          expectedHead,
          eventId,
          "run-1",
          "act-" + eventId,
          "test",
          "lock_force_unlocked",
          null,
          PAYLOAD,
          java.sql.Timestamp.from(java.time.Instant.now()));
      return ps.executeUpdate() == 1 ? expectedHead + 1 : null;
    }
  }

  /** Waits (deadline 30 s) until a session whose query mentions {@code text} waits on a lock. */
  private void awaitWaitingOnALock(String text) throws Exception {
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
    while (true) {
      try (Connection c = dataSource.getConnection();
          PreparedStatement ps =
              c.prepareStatement(
                  "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                      + " AND pid <> pg_backend_pid() AND query LIKE '%' || ? || '%'")) {
        ps.setString(1, text);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          if (rs.getLong(1) > 0) {
            return;
          }
        }
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no session waited on a lock within 30 s");
      }
      Thread.onSpinWait();
    }
  }

  private long outcomes(String workspace) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT count(*) FROM state.action_outcomes WHERE tenant = ? AND workspace = ?")) {
      ps.setString(1, TENANT);
      ps.setString(2, workspace);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private List<String> digests(String workspace) throws SQLException {
    return column("state.state_versions", "digest", workspace, String.class);
  }

  private List<String> types(String workspace) throws SQLException {
    return column("state.state_events", "type", workspace, String.class);
  }

  private List<Long> sequences(String workspace) throws SQLException {
    return column("state.state_events", "sequence", workspace, Long.class);
  }

  /** One column of a workspace's rows in {@code table}, in sequence order. */
  private <T> List<T> column(String table, String name, String workspace, Class<T> type)
      throws SQLException {
    List<T> values = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT "
                    + name
                    + " FROM "
                    + table
                    + " WHERE tenant = ? AND workspace = ? ORDER BY sequence")) {
      ps.setString(1, TENANT);
      ps.setString(2, workspace);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          values.add(rs.getObject(1, type));
        }
      }
    }
    return values;
  }

  private StateStore newStore() {
    return new StateStore(dataSource, Clock.systemUTC());
  }

  private StateRecorded record(
      StateStore store, String workspace, String runId, String actionId, long token)
      throws SQLException {
    EventEnvelope source = finished(workspace, runId, actionId, token, "create");
    ActionResults.Recorded recorded = Histories.results(store).record(source, data(source));
    assertThat(recorded.duplicate()).isFalse();
    return EventCodec.data(recorded.envelope(), StateRecorded.class);
  }

  private static ActionFinished data(EventEnvelope source) {
    return EventCodec.data(source, ActionFinished.class);
  }

  private EventEnvelope finished(
      String workspace, String runId, String actionId, long token, String action) {
    String address = "stateful_provisioning.app[\"" + actionId + "\"]";
    return executorCodec.wrap(
        TENANT,
        workspace,
        runId,
        3,
        address,
        new ActionFinished(
            runId,
            actionId,
            address,
            "stateful_provisioning",
            action,
            "succeeded",
            null,
            null,
            Map.of("id", "i-" + actionId),
            List.of(),
            token,
            "exec-1"));
  }
}
