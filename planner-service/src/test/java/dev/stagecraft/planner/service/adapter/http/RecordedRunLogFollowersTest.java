package dev.stagecraft.planner.service.adapter.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.planner.service.adapter.db.PlannerTestDatabase;
import dev.stagecraft.planner.service.adapter.db.RunJournalFollowers;
import dev.stagecraft.planner.service.adapter.db.RunJournalStore;
import dev.stagecraft.planner.service.adapter.db.RunStore;
import dev.stagecraft.planner.service.run.journal.RunEvent;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import io.micronaut.http.sse.Event;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

/**
 * Following a run's recorded journal on an instance that does not drive it (docs/adr/0037), with a
 * real PostgreSQL: "instance A" records entries with its {@link RunJournalStore} (which notifies in
 * the batch's transaction); "instance B" streams them with {@link RunLogStream#recorded} and its
 * own {@link RunJournalFollowers}, whose safety re-read is an hour, so only a notification can
 * bring an entry within the test's deadline. Also: a run whose terminal entry never reached the
 * table still ends its stream with that entry, made from the run's record.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RecordedRunLogFollowersTest {
  private static final String TENANT = "acme";
  private static final Duration DEADLINE = Duration.ofSeconds(30);
  private static final Instant T0 = Instant.parse("2026-11-21T10:00:00Z");

  PlannerTestDatabase database;
  HikariDataSource dataSource;
  RunJournalStore instanceA;
  RunJournalStore recordsB;
  RunStore runsB;
  RunJournalFollowers followersB;

  @BeforeAll
  void start() throws Exception {
    database = PlannerTestDatabase.start("planner-followers-");
    dataSource = database.dataSource();
    instanceA = new RunJournalStore(dataSource, "planner-a");
    recordsB = new RunJournalStore(dataSource, "planner-b");
    runsB = new RunStore(dataSource, Clock.systemUTC(), "planner-b", SecretsKeyring.none());
    followersB =
        new RunJournalFollowers(
                () ->
                    DriverManager.getConnection(
                        dataSource.getJdbcUrl(),
                        dataSource.getUsername(),
                        dataSource.getPassword()),
                Duration.ofHours(1))
            .start();
    await().atMost(DEADLINE).until(followersB::listening);
  }

  @AfterAll
  void stop() throws Exception {
    if (followersB != null) {
      followersB.close();
    }
    if (database != null) {
      database.close();
    }
  }

  @Test
  void aFollowerOnAnotherInstanceGetsEachBatchWhenItIsRecordedAndEndsAtTheTerminalEntry()
      throws Exception {
    runRow("run-follow", "applying", null);
    Stream stream = follow("run-follow", 0);

    // each batch is recorded only after the follower has everything before it: it is then
    // waiting (or about to), and with an hour's re-read only the notification wakes it in time
    long next = 1;
    for (int batch = 0; batch < 4; batch++) {
      List<RunEvent> entries = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        entries.add(log(next++, "batch " + batch + " line " + i));
      }
      instanceA.record(TENANT, "run-follow", entries);
      assertThat(stream.take(3))
          .extracting(RunEvent::sequence)
          .isEqualTo(entries.stream().map(RunEvent::sequence).toList());
    }
    setStatus("run-follow", "applied", "done");
    instanceA.record(TENANT, "run-follow", List.of(status(next, "applied", "done")));

    assertThat(stream.take(1)).extracting(RunEvent::status).containsExactly("applied");
    stream.awaitCompleted();
    assertThat(stream.ids()).isEqualTo(LongStream.rangeClosed(1, next).boxed().toList());
  }

  @Test
  void aFollowerKeepsGettingEntriesAfterItsInstanceLostTheListeningConnection() throws Exception {
    runRow("run-reconnect", "applying", null);
    Stream stream = follow("run-reconnect", 0);
    instanceA.record(TENANT, "run-reconnect", List.of(log(1, "before")));
    assertThat(stream.take(1)).extracting(RunEvent::sequence).containsExactly(1L);

    // the server ends the listening session: the instance reconnects, and entries recorded while
    // it was not listening are read when it listens again (or by the fallback poll meanwhile)
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    + " WHERE query LIKE 'LISTEN %' AND pid <> pg_backend_pid()")) {
      ps.executeQuery().close();
    }
    instanceA.record(TENANT, "run-reconnect", List.of(log(2, "while reconnecting")));
    assertThat(stream.take(1)).extracting(RunEvent::sequence).containsExactly(2L);
    await().atMost(DEADLINE).until(followersB::listening);
    instanceA.record(TENANT, "run-reconnect", List.of(log(3, "after")));
    assertThat(stream.take(1)).extracting(RunEvent::sequence).containsExactly(3L);

    setStatus("run-reconnect", "canceled", "canceled by me");
    instanceA.record(TENANT, "run-reconnect", List.of(status(4, "canceled", "canceled by me")));
    stream.awaitCompleted();
    assertThat(stream.ids()).containsExactly(1L, 2L, 3L, 4L);
  }

  @Test
  void aRunWhoseTerminalEntryWasNeverRecordedEndsWithOneMadeFromItsRecord() throws Exception {
    // the owner's last batch (with the terminal transition) failed to save: the table stops at 3
    runRow("run-lost-end", "errored", "the planner lost its database");
    instanceA.record(
        TENANT,
        "run-lost-end",
        List.of(status(1, "applying", null), log(2, "a line"), log(3, "another")));

    Stream stream = follow("run-lost-end", 0);
    stream.awaitCompleted();
    assertThat(stream.ids()).containsExactly(1L, 2L, 3L, 4L);
    RunEvent last = stream.events().getLast();
    assertThat(last.kind()).isEqualTo("status");
    assertThat(last.status()).isEqualTo("errored");
    assertThat(last.message()).isEqualTo("the planner lost its database");

    // a client resuming right after it, or after the last recorded entry, ends cleanly: nothing
    // is sent twice
    Stream resumed = follow("run-lost-end", 4);
    resumed.awaitCompleted();
    assertThat(resumed.ids()).isEmpty();
    Stream fromThree = follow("run-lost-end", 3);
    fromThree.awaitCompleted();
    assertThat(fromThree.ids()).containsExactly(4L);

    // a run whose terminal entry is recorded gets nothing made up
    runRow("run-whole", "applied", "done");
    instanceA.record(TENANT, "run-whole", List.of(log(1, "x"), status(2, "applied", "done")));
    Stream whole = follow("run-whole", 0);
    whole.awaitCompleted();
    assertThat(whole.ids()).containsExactly(1L, 2L);
  }

  @Test
  void anEntryRecordedBetweenTheReadsOfAnEndedRunIsSentAndEndsTheStream() throws Exception {
    // the run has ended; its owner's last batch (the terminal transition) lands just after the
    // follower found nothing newer and before it looked at the last recorded entry
    runRow("run-race", "canceled", "canceled by me");
    instanceA.record(TENANT, "run-race", List.of(log(1, "a line")));
    java.util.concurrent.atomic.AtomicBoolean landedBetween =
        new java.util.concurrent.atomic.AtomicBoolean();
    RunLogStream.EntriesAfter entries =
        (tenant, runId, after, upTo, limit) -> {
          List<RunEvent> found = recordsB.after(tenant, runId, after, upTo, limit);
          if (found.isEmpty() && after == 1 && landedBetween.compareAndSet(false, true)) {
            instanceA.record(TENANT, "run-race", List.of(status(2, "canceled", "canceled by me")));
          }
          return found;
        };
    Stream stream = new Stream();
    new RunLogStream(
            "run-race",
            RunLogStream.recorded(TENANT, "run-race", entries, recordsB::last, runsB, followersB),
            0)
        .subscribe(stream);

    stream.awaitCompleted();
    assertThat(landedBetween).isTrue();
    assertThat(stream.ids()).as("the terminal entry is sent, not dropped").containsExactly(1L, 2L);
    assertThat(stream.events().getLast().status()).isEqualTo("canceled");
  }

  // --- fixtures -----------------------------------------------------------------------------

  private Stream follow(String runId, long after) {
    Stream stream = new Stream();
    new RunLogStream(
            runId, RunLogStream.recorded(TENANT, runId, recordsB, runsB, followersB), after)
        .subscribe(stream);
    return stream;
  }

  private static RunEvent log(long sequence, String line) {
    return new RunEvent(
        sequence, T0.plusSeconds(sequence), "log", null, "null_resource.a", "stdout", line, null);
  }

  private static RunEvent status(long sequence, String status, String message) {
    return new RunEvent(
        sequence, T0.plusSeconds(sequence), "status", status, null, null, null, message);
  }

  private void runRow(String id, String status, String message) throws Exception {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO planner.runs (tenant, id, workspace, status, status_message,"
                    + " created_at, updated_at, instance_id, last_sequence)"
                    + " VALUES (?, ?, 'default', ?, ?, ?, ?, 'planner-a', 0)")) {
      ps.setString(1, TENANT);
      ps.setString(2, id);
      ps.setString(3, status);
      ps.setString(4, message);
      ps.setTimestamp(5, Timestamp.from(T0));
      ps.setTimestamp(6, Timestamp.from(T0));
      ps.executeUpdate();
    }
  }

  private void setStatus(String id, String status, String message) throws Exception {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "UPDATE planner.runs SET status = ?, status_message = ? WHERE tenant = ? AND id = ?")) {
      ps.setString(1, status);
      ps.setString(2, message);
      ps.setString(3, TENANT);
      ps.setString(4, id);
      ps.executeUpdate();
    }
  }

  /** A subscriber that requests everything and hands the entries to the test. */
  static final class Stream implements Subscriber<Event<RunEvent>> {
    private final BlockingQueue<RunEvent> received = new LinkedBlockingQueue<>();
    private final List<RunEvent> all = new ArrayList<>();
    private final List<Long> ids = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final java.util.concurrent.CountDownLatch completed =
        new java.util.concurrent.CountDownLatch(1);
    private final AtomicReference<Throwable> error = new AtomicReference<>();

    @Override
    public void onSubscribe(Subscription s) {
      s.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(Event<RunEvent> event) {
      ids.add(Long.parseLong(event.getId()));
      received.add(event.getData());
    }

    @Override
    public void onError(Throwable t) {
      error.set(t);
      completed.countDown();
    }

    @Override
    public void onComplete() {
      completed.countDown();
    }

    /** The next {@code n} entries, each within the deadline. */
    List<RunEvent> take(int n) throws InterruptedException {
      List<RunEvent> out = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        RunEvent e = received.poll(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        assertThat(e)
            .as("entry %d of %d within %s (error: %s)", i + 1, n, DEADLINE, error.get())
            .isNotNull();
        out.add(e);
        all.add(e);
      }
      return out;
    }

    void awaitCompleted() throws InterruptedException {
      assertThat(completed.await(DEADLINE.toSeconds(), TimeUnit.SECONDS))
          .as("the stream ended within %s", DEADLINE)
          .isTrue();
      assertThat(error.get()).isNull();
      received.drainTo(all);
    }

    List<Long> ids() {
      return List.copyOf(ids);
    }

    List<RunEvent> events() {
      return all;
    }
  }
}
