package dev.stagecraft.state.adapter.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.core.type.TypeReference;
import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.state.StateRecorded;
import dev.stagecraft.servicekit.db.Sql;
import dev.stagecraft.state.application.ActionResults;
import dev.stagecraft.state.history.OutputsDecision;
import dev.stagecraft.state.history.StateSnapshot;
import dev.stagecraft.state.history.TaintDecision;
import dev.stagecraft.state.history.TerraformStateV4;
import dev.stagecraft.state.history.WorkspaceState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The store's snapshot + tail folding and its in-process cache, against a real PostgreSQL. Each
 * test uses its own workspace. A "second instance" is a second {@link StateStore} on the same
 * database (its own, empty cache).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StateStoreTest {
  private static final String TENANT = "acme";

  private StateTestDatabase database;
  private HikariDataSource dataSource;
  private final EventCodec executorCodec = EventCodec.forSource("/test/executor");

  @BeforeAll
  void startDatabase() throws Exception {
    database = StateTestDatabase.start("state-store");
    dataSource = database.dataSource();
  }

  @AfterAll
  void stopDatabase() throws Exception {
    if (database != null) {
      database.close();
    }
  }

  @Test
  void writesASnapshotOnceAHundredEventsAccumulatedAndServesTheFullFoldFromIt() throws Exception {
    StateStore store = newStore();
    recordActions(store, "snap", 0, 130);

    List<StateStore.StoredEvent> history = store.history(TENANT, "snap");
    assertThat(history).hasSize(131);
    assertThat(snapshotSequences("snap")).containsExactly(100L);
    assertThat(snapshotAt("snap", 100)).isEqualTo(fold(history.subList(0, 100)));

    WorkspaceState full = fold(history);
    assertThat(store.currentState(TENANT, "snap")).isEqualTo(full);
    assertThat(newStore().currentState(TENANT, "snap")).isEqualTo(full); // snapshot + 30 events

    recordActions(store, "snap", 130, 100);
    assertThat(snapshotSequences("snap")).containsExactly(100L, 200L);
    history = store.history(TENANT, "snap");
    assertThat(snapshotAt("snap", 200)).isEqualTo(fold(history.subList(0, 200)));
    assertThat(newStore().currentState(TENANT, "snap")).isEqualTo(fold(history));
  }

  @Test
  void readsAndWritesFoldOnFromTheNewestSnapshotNotFromTheFirstEvent() throws Exception {
    recordActions(newStore(), "proof", 0, 110);
    List<StateStore.StoredEvent> history = newStore().history(TENANT, "proof");
    long doctoredAt = history.size() - 3;
    WorkspaceState truth = fold(history.subList(0, (int) doctoredAt));
    // a snapshot no fold of the events could produce: only a reader that starts there shows it
    insertSnapshot(
        "proof",
        doctoredAt,
        new WorkspaceState(truth.serial() + 1000, "doctored", truth.instances()));

    WorkspaceState served = newStore().currentState(TENANT, "proof");
    WorkspaceState full = fold(history);
    assertThat(served.lineage()).isEqualTo("doctored");
    assertThat(served.serial()).isEqualTo(full.serial() + 1000);
    assertThat(served.instances()).isEqualTo(full.instances()); // the 3 later events folded on

    StateRecorded recorded = record(newStore(), "proof", 999, "update");
    assertThat(recorded.serial()).isEqualTo(full.serial() + 1000 + 1);
  }

  @Test
  void versionsAreIndexedWhenWrittenAndEqualAFoldOfTheWholeHistory() throws Exception {
    StateStore store = newStore();
    recordActions(store, "versions", 0, 120);

    List<StateStore.Version> listed = store.versions(TENANT, "versions");
    List<StateStore.Version> folded = versionsByFolding(store.history(TENANT, "versions"));
    assertThat(listed).isEqualTo(folded).hasSize(120);
    // the listing came from the index written with the events, not from a fold at read time
    assertThat(count("SELECT count(*) FROM state.state_versions WHERE workspace = 'versions'"))
        .isEqualTo(120);
    // a version is the fold up to its event (from the snapshot at 100 for the later ones)
    List<StateStore.StoredEvent> history = store.history(TENANT, "versions");
    for (StateStore.Version v : List.of(folded.get(0), folded.get(99), folded.get(119))) {
      assertThat(newStore().version(TENANT, "versions", v.serial()))
          .contains(fold(history.subList(0, (int) v.sequence())));
    }
    assertThat(store.version(TENANT, "versions", 10_000)).isEmpty();
  }

  @Test
  void aHistoryWrittenBeforeTheIndexIsIndexedOnceByItsFirstListing() throws Exception {
    StateStore store = newStore();
    recordActions(store, "legacy", 0, 30);
    List<StateStore.Version> expected = versionsByFolding(store.history(TENANT, "legacy"));
    // what V5 finds for a history written by an older version: no rows, a backfill marker
    try (Connection c = dataSource.getConnection()) {
      Sql.update(c, "DELETE FROM state.state_versions WHERE workspace = 'legacy'");
      Sql.update(
          c,
          "INSERT INTO state.state_versions_backfill (tenant, workspace) VALUES (?, 'legacy')",
          TENANT);
    }
    assertThat(newStore().versions(TENANT, "legacy")).isEqualTo(expected);
    assertThat(
            count("SELECT count(*) FROM state.state_versions_backfill WHERE workspace = 'legacy'"))
        .isZero();
    recordActions(store, "legacy", 30, 1);
    assertThat(newStore().versions(TENANT, "legacy"))
        .isEqualTo(versionsByFolding(store.history(TENANT, "legacy")))
        .hasSize(31);
  }

  /** The versions as the store listed them before the index: one fold of the whole history. */
  private static List<StateStore.Version> versionsByFolding(List<StateStore.StoredEvent> history) {
    List<StateStore.Version> versions = new ArrayList<>();
    WorkspaceState state = WorkspaceState.EMPTY;
    for (StateStore.StoredEvent e : history) {
      WorkspaceState next = state.apply(e.event());
      if (next.serial() != state.serial()
          || e.event() instanceof dev.stagecraft.state.history.StateEvent.StateReplaced) {
        versions.add(
            new StateStore.Version(
                next.serial(),
                e.sequence(),
                e.time(),
                e.type(),
                e.runId(),
                e.actor(),
                StateStore.digest(
                    dev.stagecraft.state.history.TerraformStateV4.render(next, next.lineage()))));
      }
      state = next;
    }
    return versions;
  }

  private long count(String sql) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Test
  void servesTheCachedFoldWithoutReadingTheDatabaseWhileTheHeadIsUnchanged() throws Exception {
    StateStore store = newStore();
    recordActions(store, "cached", 0, 5);
    List<StateStore.StoredEvent> history = store.history(TENANT, "cached");
    WorkspaceState full = fold(history);
    // a snapshot at the head that contradicts the events: a fresh store folds from it...
    insertSnapshot("cached", history.size(), new WorkspaceState(77, "doctored", Map.of()));
    assertThat(newStore().currentState(TENANT, "cached").lineage()).isEqualTo("doctored");

    // ...while the store that wrote the head still holds that very fold in its cache
    assertThat(store.currentState(TENANT, "cached")).isEqualTo(full);
  }

  @Test
  void servesTheNewestStateAfterAnotherInstanceAppended() throws Exception {
    StateStore first = newStore();
    StateStore second = newStore();
    recordActions(first, "shared", 0, 4);
    WorkspaceState before = first.currentState(TENANT, "shared"); // cached in the first store

    StateRecorded byOther = record(second, "shared", 1000, "create");

    WorkspaceState after = first.currentState(TENANT, "shared");
    assertThat(after).isNotEqualTo(before);
    assertThat(after.serial()).isEqualTo(byOther.serial());
    assertThat(after.instances()).containsKey(address(1000));
    assertThat(after).isEqualTo(fold(first.history(TENANT, "shared")));

    StateRecorded next = record(first, "shared", 1001, "create");
    assertThat(next.serial()).isEqualTo(byOther.serial() + 1);
    WorkspaceState newest = first.currentState(TENANT, "shared");
    assertThat(newest).isEqualTo(fold(first.history(TENANT, "shared")));
    assertThat(newest.instances()).containsKeys(address(1000), address(1001));
    assertThat(second.currentState(TENANT, "shared")).isEqualTo(newest);
  }

  @Test
  void aRedeliveryReturnsTheSameRecordWhateverTheCacheHolds() throws Exception {
    StateStore first = newStore();
    EventEnvelope source = finished("redelivery", 1, "create");
    ActionResults.Recorded original =
        Histories.results(first).record(source, EventCodec.data(source, ActionFinished.class));
    record(newStore(), "redelivery", 2, "create");

    ActionResults.Recorded again =
        Histories.results(first).record(source, EventCodec.data(source, ActionFinished.class));

    assertThat(again.duplicate()).isTrue();
    assertThat(again.envelope().id()).isEqualTo(original.envelope().id());
    assertThat(EventCodec.data(again.envelope(), StateRecorded.class))
        .isEqualTo(EventCodec.data(original.envelope(), StateRecorded.class));
    assertThat(first.history(TENANT, "redelivery")).hasSize(3);
  }

  @Test
  void storedSnapshotsCannotBeChanged() throws Exception {
    recordActions(newStore(), "frozen", 0, 100);
    assertThat(snapshotSequences("frozen")).containsExactly(100L);
    try (Connection c = dataSource.getConnection()) {
      assertThatThrownBy(
              () ->
                  Sql.update(
                      c,
                      "UPDATE state.state_snapshots SET sequence = 5 WHERE tenant = ?"
                          + " AND workspace = ?",
                      TENANT,
                      "frozen"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("append-only");
    }
  }

  @Test
  void taintChangesAreFoldedCachedAndSnapshottedLikeRecordedActions() throws Exception {
    StateStore store = newStore();
    recordActions(store, "marks", 0, 10); // head 11
    for (int i = 0; i < 89; i++) { // head 100: the 89th change is due for a snapshot
      TaintDecision d =
          Histories.changes(store)
              .changeTaint(TENANT, "marks", address(i % 10), i / 10 % 2 == 0, 1, "tester");
      assertThat(d.accepted()).as("change %d: %s", i, d.error()).isTrue();
    }

    List<StateStore.StoredEvent> history = store.history(TENANT, "marks");
    assertThat(history).hasSize(100);
    assertThat(history.get(11).type()).isEqualTo("instance_marked_tainted");
    assertThat(history.get(11).actor()).isEqualTo("tester");
    assertThat(history.get(21).type()).isEqualTo("instance_untainted");
    assertThat(snapshotSequences("marks")).containsExactly(100L);
    WorkspaceState full = fold(history);
    assertThat(snapshotAt("marks", 100)).isEqualTo(full);
    assertThat(store.currentState(TENANT, "marks")).isEqualTo(full);
    assertThat(newStore().currentState(TENANT, "marks")).isEqualTo(full);
    assertThat(full.instances().get(address(8)).tainted())
        .isTrue(); // last changed by change 88: taint
    assertThat(full.instances().get(address(9)).tainted())
        .isFalse(); // last changed by change 79: untaint
  }

  @Test
  void aTaintChangeWhoseSequenceAFastAppendTookDecidesAgainAfterIt() throws Exception {
    StateStore store = newStore();
    recordActions(store, "taken", 0, 1); // head 2
    try (Connection fast = dataSource.getConnection()) {
      // a fast append (ADR 0052: no row lock) takes sequence 3 and has not committed yet
      fast.setAutoCommit(false);
      assertThat(
              Sql.queryLong(
                  fast,
                  "SELECT state.append_fencing_advanced(?, ?, 7::bigint, NULL, NULL, 'test', now())",
                  TENANT,
                  "taken"))
          .isEqualTo(3);
      CompletableFuture<TaintDecision> taint =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return Histories.changes(store)
                      .changeTaint(TENANT, "taken", address(0), true, 1, "tester");
                } catch (SQLException e) {
                  throw new IllegalStateException(e);
                }
              });
      // the taint change read head 2 and waits on sequence 3's row
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> taint.isDone() || waitingOnALock("INSERT INTO state.state_events%"));
      assertThat(taint).as("the taint change waits for the fast append").isNotDone();
      fast.commit();

      TaintDecision decision = taint.get(30, TimeUnit.SECONDS);
      assertThat(decision.accepted()).as(decision.error()).isTrue();
    }
    assertThat(newStore().history(TENANT, "taken"))
        .extracting(StateStore.StoredEvent::type)
        .containsExactly(
            "lineage_assigned", "instance_created", "fencing_advanced", "instance_marked_tainted");
    assertThat(newStore().currentState(TENANT, "taken").instances().get(address(0)).tainted())
        .isTrue();
  }

  /** Whether a session runs a statement like {@code query} and waits on a lock. */
  private boolean waitingOnALock(String query) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                    + " AND query LIKE ?",
                query);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1) > 0;
    }
  }

  @Test
  void aRefusedTaintChangeWritesNothing() throws Exception {
    StateStore store = newStore();
    recordActions(store, "refused", 0, 1);
    assertThat(store.advanceFencing(TENANT, "refused", 9)).isEmpty();

    assertThat(
            Histories.changes(store)
                .changeTaint(TENANT, "refused", address(0), true, 8, null)
                .rejection())
        .isEqualTo(TaintDecision.Rejection.STALE_FENCING_TOKEN);
    assertThat(
            Histories.changes(store)
                .changeTaint(TENANT, "refused", address(0), false, 9, null)
                .rejection())
        .isEqualTo(TaintDecision.Rejection.NOT_TAINTED);
    assertThat(
            Histories.changes(store)
                .changeTaint(TENANT, "refused", address(5), true, 9, null)
                .rejection())
        .isEqualTo(TaintDecision.Rejection.NO_SUCH_INSTANCE);

    // the two results' events and the advance's own (ADR 0052); nothing of the refused changes
    assertThat(store.history(TENANT, "refused"))
        .extracting(StateStore.StoredEvent::type)
        .containsExactly("lineage_assigned", "instance_created", "fencing_advanced");
    assertThat(newStore().currentState(TENANT, "refused").serial()).isEqualTo(1);
  }

  @Test
  void aRunsOutputsAreStoredFencedAndReadBackByAnotherStore() throws Exception {
    StateStore store = newStore();
    recordActions(store, "outs", 0, 1); // serial 1
    assertThat(store.advanceFencing(TENANT, "outs", 5)).isEmpty();
    Map<String, Object> outputs =
        Map.of(
            "vpc_id",
            Map.of("value", "vpc-1", "type", "string"),
            "subnets",
            Map.of(
                "value",
                Map.of("a", "10.0.1.0/24"),
                "type",
                List.of("object", Map.of("a", "string")),
                "sensitive",
                false));

    // a run that lost its lock records nothing
    assertThat(
            Histories.changes(store)
                .recordOutputs(TENANT, "outs", "run-old", 4, outputs)
                .rejection())
        .isEqualTo(OutputsDecision.Rejection.STALE_FENCING_TOKEN);
    OutputsDecision written =
        Histories.changes(store).recordOutputs(TENANT, "outs", "run-2", 5, outputs);
    assertThat(written.accepted()).isTrue();
    assertThat(written.serial()).isEqualTo(2);
    // the same set again (a retry after a lost answer): nothing appended
    assertThat(Histories.changes(store).recordOutputs(TENANT, "outs", "run-2", 5, outputs).events())
        .isEmpty();

    List<StateStore.StoredEvent> history = store.history(TENANT, "outs");
    assertThat(history)
        .extracting(StateStore.StoredEvent::type)
        .containsExactly(
            "lineage_assigned", "instance_created", "fencing_advanced", "outputs_written");
    assertThat(history.get(3).runId()).isEqualTo("run-2");
    WorkspaceState read = newStore().currentState(TENANT, "outs"); // folded from the database
    assertThat(read).isEqualTo(store.currentState(TENANT, "outs"));
    Map<String, Object> v4 = TerraformStateV4.render(read, read.lineage());
    assertThat(((Map<?, ?>) v4.get("outputs")).keySet())
        .isEqualTo(java.util.Set.of("subnets", "vpc_id"));
    assertThat(((Map<?, ?>) ((Map<?, ?>) v4.get("outputs")).get("vpc_id")).get("sensitive"))
        .isEqualTo(false);
    assertThat(v4.get("serial")).isEqualTo(2L);
    // the next run's set replaces the whole set
    Histories.changes(store).recordOutputs(TENANT, "outs", "run-3", 5, Map.of());
    assertThat(newStore().currentState(TENANT, "outs").outputs()).isEmpty();
  }

  // --- fixtures -----------------------------------------------------------------------------

  private StateStore newStore() {
    return new StateStore(dataSource, Clock.systemUTC());
  }

  /**
   * Records {@code count} succeeded actions on ten addresses (action {@code i} on address {@code i
   * % 10}; {@code i >= 1000} on an address of its own): creates first, then updates, with a delete
   * every seventh action. Each appends exactly one event (the first also the lineage), so after
   * {@code n} actions the head is {@code n + 1}.
   */
  private void recordActions(StateStore store, String workspace, int from, int count)
      throws SQLException {
    for (int i = from; i < from + count; i++) {
      String action = i < 10 ? "create" : i % 7 == 6 ? "delete" : "update";
      record(store, workspace, i, action);
    }
  }

  private StateRecorded record(StateStore store, String workspace, int i, String action)
      throws SQLException {
    EventEnvelope source = finished(workspace, i, action);
    ActionResults.Recorded recorded =
        Histories.results(store).record(source, EventCodec.data(source, ActionFinished.class));
    assertThat(recorded.duplicate()).isFalse();
    return EventCodec.data(recorded.envelope(), StateRecorded.class);
  }

  private EventEnvelope finished(String workspace, int i, String action) {
    Map<String, Object> attributes = new LinkedHashMap<>();
    attributes.put("id", "i-" + i);
    attributes.put("n", i);
    attributes.put("big", 1L << 40);
    attributes.put("ratio", i / 4.0);
    attributes.put("none", null);
    attributes.put("nested", Map.of("list", List.of(i, "x", true), "z", Map.of()));
    String address = address(i < 1000 ? i % 10 : i);
    return executorCodec.wrap(
        TENANT,
        workspace,
        "run-1",
        3,
        address,
        new ActionFinished(
            "run-1",
            "act-" + i,
            address,
            "stateful_provisioning",
            action,
            "succeeded",
            null,
            null,
            attributes,
            List.of("stateful_provisioning.db"),
            1,
            "exec-1"));
  }

  private static String address(int index) {
    return "stateful_provisioning.app[" + index + "]";
  }

  private static WorkspaceState fold(List<StateStore.StoredEvent> events) {
    return WorkspaceState.fold(events.stream().map(StateStore.StoredEvent::event).toList());
  }

  private List<Long> snapshotSequences(String workspace) throws SQLException {
    List<Long> sequences = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT sequence FROM state.state_snapshots WHERE tenant = ? AND workspace = ?"
                    + " ORDER BY sequence",
                TENANT,
                workspace);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        sequences.add(rs.getLong(1));
      }
    }
    return sequences;
  }

  private WorkspaceState snapshotAt(String workspace, long sequence) throws Exception {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT state::text FROM state.state_snapshots WHERE tenant = ? AND workspace = ?"
                    + " AND sequence = ?",
                TENANT,
                workspace,
                sequence);
        ResultSet rs = ps.executeQuery()) {
      assertThat(rs.next()).as("snapshot at %d", sequence).isTrue();
      return StateSnapshot.fromSnapshot(
          EventCodec.mapper()
              .readValue(rs.getString(1), new TypeReference<Map<String, Object>>() {}));
    }
  }

  private void insertSnapshot(String workspace, long sequence, WorkspaceState state)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      Sql.update(
          c,
          "INSERT INTO state.state_snapshots (tenant, workspace, sequence, state, created_at)"
              + " VALUES (?, ?, ?, ?::jsonb, now())",
          TENANT,
          workspace,
          sequence,
          EventCodec.toJson(StateSnapshot.toSnapshot(state)));
    }
  }
}
