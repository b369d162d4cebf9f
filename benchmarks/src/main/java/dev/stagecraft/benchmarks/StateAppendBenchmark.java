package dev.stagecraft.benchmarks;

import static dev.stagecraft.benchmarks.StateBench.CPU_PER_OP;
import static dev.stagecraft.benchmarks.StateBench.OUT;
import static dev.stagecraft.benchmarks.StateBench.TENANT;
import static dev.stagecraft.benchmarks.StateBench.interleaved;
import static dev.stagecraft.benchmarks.StateBench.percentile;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.benchmarks.StateBench.Op;
import dev.stagecraft.devstack.EmbeddedPostgresServer;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.servicekit.db.Databases;
import dev.stagecraft.servicekit.db.Sql;
import dev.stagecraft.state.adapter.db.EventAppend;
import dev.stagecraft.state.adapter.db.StateHistoryFactory;
import dev.stagecraft.state.adapter.db.StateStore;
import dev.stagecraft.state.application.ActionResults;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code StateBenchmark append [APPENDS] [FILL]}: the state store's event append against a raw
 * single-row insert (the series are described on {@link StateBenchmark}).
 */
final class StateAppendBenchmark {
  private static final EventCodec EXECUTOR = EventCodec.forSource("/bench/executor");

  private StateAppendBenchmark() {}

  static void run(String[] args) throws Exception {
    int appends = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
    int fill = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
    Path dir = Files.createTempDirectory(Path.of("target"), "state-bench-");
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg/data"), 0);
        HikariDataSource ds =
            Databases.migrateAndPool(
                pg.jdbcUrl(), pg.user(), pg.password(), "state", "classpath:db/migration")) {
      createRawTables(ds);
      StateStore store = new StateStore(ds, Clock.systemUTC());
      String payload = samplePayload(store);
      OUT.printf(
          Locale.ROOT,
          "state append benchmark: %d operations each, one client, PostgreSQL %s%n",
          appends,
          pg.jdbcUrl());
      OUT.println(
          "| case | ops/s | p50 ms | p99 ms | client CPU ms/op | vs raw insert (throughput)"
              + " | vs raw insert (p50) | vs raw insert of the event's row (throughput)"
              + " | vs raw insert of the event's row (p50) |");
      OUT.println("|---|---|---|---|---|---|---|---|---|");
      warmUp(ds, store, payload, appends);
      double[][] empty = emptyStore(ds, store, payload, appends);
      double[] primitive = empty[2];
      double[] recordEmpty = empty[5];

      long loaded = bulkLoad(ds, payload, fill);
      double[][] full = filledStore(ds, store, payload, appends, loaded);
      OUT.printf(
          Locale.ROOT,
          "at %d events / empty store, 1,000-event workspace: (a) p50 %.2fx p99 %.2fx;"
              + " (b) p50 %.2fx p99 %.2fx%n",
          loaded,
          percentile(full[2], 50) / percentile(primitive, 50),
          percentile(full[2], 99) / percentile(primitive, 99),
          percentile(full[6], 50) / percentile(recordEmpty, 50),
          percentile(full[6], 99) / percentile(recordEmpty, 99));
    } finally {
      StateBench.deleteTree(dir);
    }
  }

  /** The raw baselines' tables: the narrow raw row, and the event's whole row. */
  private static void createRawTables(HikariDataSource ds) throws SQLException {
    try (Connection c = ds.getConnection()) {
      Sql.update(
          c,
          "CREATE TABLE state.raw_events (tenant text NOT NULL, workspace text NOT NULL,"
              + " sequence bigint NOT NULL, payload jsonb NOT NULL, created_at timestamptz"
              + " NOT NULL, PRIMARY KEY (tenant, workspace, sequence))");
      // the same row as a state event, every column, the same primary key; no other constraint
      Sql.update(
          c,
          "CREATE TABLE state.raw_event_rows (tenant text NOT NULL, workspace text NOT NULL,"
              + " sequence bigint NOT NULL, event_id text NOT NULL, run_id text, action_id text,"
              + " actor text, type text NOT NULL, address text, payload jsonb NOT NULL,"
              + " created_at timestamptz NOT NULL, PRIMARY KEY (tenant, workspace, sequence))");
    }
  }

  /** Warms up every path (JIT, pool, plan cache): at least 2,000 operations each. */
  private static void warmUp(HikariDataSource ds, StateStore store, String payload, int appends)
      throws SQLException {
    int warmUp = Math.max(appends / 4, 2_000);
    interleaved(
        warmUp,
        i -> rawInsert(ds, "warm", payload, i),
        i -> rawRowInsert(ds, "warm", payload, i),
        i -> primitive(ds, "warm-primitive", payload, 0, i, false),
        i -> primitive(ds, "warm-function", payload, 0, i, true),
        i -> bareInsert(ds, "warm-bare", payload, 0, i),
        records(store, "warm", 0, warmUp));
  }

  /**
   * The series on an empty store, and their rows.
   *
   * @return the samples: raw, raw row, (a), (a, before), (a, no check), (b)
   */
  private static double[][] emptyStore(
      HikariDataSource ds, StateStore store, String payload, int appends) throws SQLException {
    // every series takes its turn in every round (the order rotating), so that the machine's
    // drift and the database's background work fall on all of them alike
    double[][] empty =
        interleaved(
            appends,
            i -> rawInsert(ds, "raw-empty", payload, i),
            i -> rawRowInsert(ds, "raw-empty", payload, i),
            i -> primitive(ds, "primitive", payload, 0, i, false),
            i -> primitive(ds, "function", payload, 0, i, true),
            i -> bareInsert(ds, "bare", payload, 0, i),
            records(store, "empty", 0, appends));
    double[] raw = empty[0];
    double[] rawRow = empty[1];
    row("raw single-row insert (empty store)", raw, raw, rawRow);
    row(
        "raw single-row insert of the event's row: every column (empty store)",
        rawRow,
        raw,
        rawRow);
    row("(a) event append: the fast statement (empty store)", empty[2], raw, rawRow);
    row("(a, before) one `state.append_events` call (V7) (empty store)", empty[3], raw, rawRow);
    row(
        "(a, no check) the event row alone, `ON CONFLICT DO NOTHING` (empty store)",
        empty[4],
        raw,
        rawRow);
    row("(b) `StateStore.record` of an action outcome (empty store)", empty[5], raw, rawRow);
    return empty;
  }

  /**
   * The series on the bulk-loaded store, and their rows.
   *
   * @return the samples: raw, raw row, (a) 1,000-event workspace, (a, before), (a) new workspace,
   *     (a, no check), (b) 1,000-event workspace, (b) new workspace
   */
  private static double[][] filledStore(
      HikariDataSource ds, StateStore store, String payload, int appends, long loaded)
      throws SQLException {
    // first append to a filled workspace: folds its history
    records(store, "w0", 10_000, 1).run(0);
    double[][] full =
        interleaved(
            appends,
            i -> rawInsert(ds, "raw-full", payload, i),
            i -> rawRowInsert(ds, "raw-full", payload, i),
            i -> primitive(ds, "w1", payload, 1000, i, false),
            i -> primitive(ds, "w2", payload, 1000, i, true),
            i -> primitive(ds, "primitive-fresh", payload, 0, i, false),
            i -> bareInsert(ds, "w3", payload, 1000, i),
            records(store, "w0", 10_001, appends),
            records(store, "fresh", 0, appends));
    double[] rawFull = full[0];
    double[] rawRowFull = full[1];
    String stored = String.format(Locale.ROOT, "%,d stored", loaded);
    row("raw single-row insert (" + stored + ")", rawFull, rawFull, rawRowFull);
    row(
        "raw single-row insert of the event's row: every column (" + stored + ")",
        rawRowFull,
        rawFull,
        rawRowFull);
    row("(a) event append, 1,000-event workspace (" + stored + ")", full[2], rawFull, rawRowFull);
    row(
        "(a, before) `state.append_events`, 1,000-event workspace (" + stored + ")",
        full[3],
        rawFull,
        rawRowFull);
    row("(a) event append, new workspace (" + stored + ")", full[4], rawFull, rawRowFull);
    row(
        "(a, no check) the event row alone, 1,000-event workspace (" + stored + ")",
        full[5],
        rawFull,
        rawRowFull);
    row(
        "(b) `StateStore.record`, 1,000-event workspace (" + stored + ")",
        full[6],
        rawFull,
        rawRowFull);
    row("(b) `StateStore.record`, new workspace (" + stored + ")", full[7], rawFull, rawRowFull);
    return full;
  }

  /** Recording action results through {@code store}, as the service does, trusting them. */
  private static ActionResults results(StateStore store) {
    return StateHistoryFactory.over(store, StateStore.OutcomeGate.TRUSTED).results();
  }

  /** The jsonb payload of a real instance write, as the store wrote it. */
  private static String samplePayload(StateStore store) throws SQLException {
    results(store).record(finished("sample", 0, "create"), decode(finished("sample", 0, "create")));
    return store.history(TENANT, "sample").stream()
        .filter(e -> e.type().equals("instance_created"))
        .findFirst()
        .map(e -> toJson(e.event()))
        .orElseThrow();
  }

  private static String toJson(Object value) {
    try {
      return EventCodec.mapper().writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The {@code i}-th autocommit insert of the narrow raw row (five of the event's columns). */
  private static void rawInsert(HikariDataSource ds, String workspace, String payload, int i)
      throws SQLException {
    try (Connection c = ds.getConnection()) {
      Sql.update(
          c,
          "INSERT INTO state.raw_events (tenant, workspace, sequence, payload, created_at)"
              + " VALUES (?, ?, ?, ?::jsonb, ?)",
          TENANT,
          workspace,
          i + 1,
          payload,
          Instant.now());
    }
  }

  /**
   * The {@code i}-th autocommit insert of the same row a state event is (every column of {@code
   * state.state_events}, the values (a) writes) into a table with the same primary key and no other
   * constraint, index or trigger.
   */
  private static void rawRowInsert(HikariDataSource ds, String workspace, String payload, int i)
      throws SQLException {
    try (Connection c = ds.getConnection()) {
      Sql.update(
          c,
          "INSERT INTO state.raw_event_rows (tenant, workspace, sequence, event_id, run_id,"
              + " action_id, actor, type, address, payload, created_at)"
              + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?)",
          eventRow(workspace, i + 1, i, payload));
    }
  }

  /**
   * The values of the {@code i}-th event row of {@code workspace} at {@code sequence}, in the
   * column order of {@code state.state_events}: the row (a) writes, as the raw whole-row insert and
   * the unchecked insert write it too.
   */
  private static Object[] eventRow(String workspace, long sequence, int i, String payload) {
    return new Object[] {
      TENANT,
      workspace,
      sequence,
      workspace + "-event-" + i,
      "run-" + workspace,
      "act-" + i,
      "executor:exec-1",
      "instance_updated",
      "stateful_provisioning.app",
      payload,
      Instant.now()
    };
  }

  /**
   * The {@code i}-th event append through the store's append primitive, {@link
   * EventAppend#appendOne} (ADR 0027): one event at the workspace's next sequence ({@code head + i
   * + 1}, the head the previous answer gave), idempotent by event id, with its tenant and its
   * fencing token, known to be the newest at that head from the previous answer (ADR 0052) — and no
   * version row, snapshot or outcome. One bare autocommit insert; the first append of a series
   * finds no fencing row (newest 0 at its head) and goes through {@code state.append_events}, which
   * makes token 1 the newest, as in service. With {@code viaFunction}: one call of {@code
   * state.append_events} (V7, ADR 0021: {@code FOR UPDATE}, plpgsql), for comparison.
   */
  static void primitive(
      HikariDataSource ds, String workspace, String payload, long head, int i, boolean viaFunction)
      throws SQLException {
    EventAppend.Answer answer;
    if (viaFunction) {
      answer = functionCall(ds, workspace, payload, head + i, i);
    } else {
      try (Connection c = ds.getConnection()) {
        answer =
            EventAppend.appendOne(
                c,
                TENANT,
                workspace,
                head + i,
                i == 0 ? 0 : 1,
                1,
                workspace + "-event-" + i,
                "run-" + workspace,
                "act-" + i,
                "executor:exec-1",
                "instance_updated",
                "stateful_provisioning.app",
                payload,
                Instant.now());
      }
    }
    if (!(answer instanceof EventAppend.Answer.Appended)) {
      throw new IllegalStateException("append answered " + answer);
    }
  }

  /**
   * The {@code i}-th insert of the event row alone into {@code state.state_events}, at {@code head
   * + i + 1}, {@code ON CONFLICT DO NOTHING}: since ADR 0052 the statement (a) sends, issued here
   * without the primitive around it; before, the floor of any append that keeps the event table's
   * two unique keys.
   */
  static void bareInsert(HikariDataSource ds, String workspace, String payload, long head, int i)
      throws SQLException {
    int inserted;
    try (Connection c = ds.getConnection()) {
      inserted =
          Sql.update(
              c,
              "INSERT INTO state.state_events (tenant, workspace, sequence, event_id, run_id,"
                  + " action_id, actor, type, address, payload, created_at)"
                  + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?) ON CONFLICT DO NOTHING",
              eventRow(workspace, head + i + 1, i, payload));
    }
    if (inserted != 1) {
      throw new IllegalStateException("the bare insert wrote " + inserted + " rows");
    }
  }

  /** One autocommit call of {@code state.append_events} (V7) appending one event. */
  private static EventAppend.Answer functionCall(
      HikariDataSource ds, String workspace, String payload, long head, int i) throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT status, head, newest, previous FROM state.append_events(?, ?, ?, 1, true, ARRAY[?], ?, ?, ?,"
                    + " ARRAY['instance_updated'], ARRAY[?], ARRAY[?::jsonb], NULL, NULL, NULL,"
                    + " NULL, NULL, NULL, NULL, NULL, ?)")) {
      ps.setString(1, TENANT);
      ps.setString(2, workspace);
      ps.setLong(3, head);
      ps.setString(4, workspace + "-event-" + i);
      ps.setString(5, "run-" + workspace);
      ps.setString(6, "act-" + i);
      ps.setString(7, "executor:exec-1");
      ps.setString(8, "stateful_provisioning.app");
      ps.setString(9, payload);
      ps.setTimestamp(10, Timestamp.from(Instant.now()));
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return EventAppend.Answer.read(rs);
      }
    }
  }

  /**
   * A series of {@code ActionResults.record} calls of {@code workspace}'s action results {@code
   * from}, {@code from + 1}, ... (its first a create, then updates): the {@code i}-th operation
   * records result {@code from + i}. The executor's envelopes are built and decoded beforehand, so
   * only the store's work is timed.
   */
  private static Op records(StateStore store, String workspace, int from, int n) {
    EventEnvelope[] envelopes = new EventEnvelope[n];
    ActionFinished[] decoded = new ActionFinished[n];
    for (int i = 0; i < n; i++) {
      int index = from + i;
      envelopes[i] = finished(workspace, index, index == 0 ? "create" : "update");
      decoded[i] = decode(envelopes[i]);
    }
    ActionResults results = results(store);
    return i -> results.record(envelopes[i], decoded[i]);
  }

  /**
   * Loads {@code fill} instance writes into the store directly (1,000 per workspace {@code w0, w1,
   * ...}, all on one address, with their version rows), in batches of 100,000 rows.
   *
   * @return the number of events in the store afterwards
   */
  private static long bulkLoad(HikariDataSource ds, String payload, int fill) throws SQLException {
    long started = System.nanoTime();
    try (Connection c = ds.getConnection()) {
      for (int from = 0; from < fill; from += 100_000) {
        int to = Math.min(fill, from + 100_000);
        Sql.update(
            c,
            "INSERT INTO state.state_events (tenant, workspace, sequence, event_id, run_id,"
                + " action_id, actor, type, address, payload, created_at)"
                + " SELECT ?, 'w' || (g / 1000), g % 1000 + 1, 'bulk-' || g, 'bulk-run',"
                + " 'act-' || g, 'bench', CASE WHEN g % 1000 = 0 THEN 'instance_created'"
                + " ELSE 'instance_updated' END, 'stateful_provisioning.app', ?::jsonb, now()"
                + " FROM generate_series(?, ?) g",
            TENANT,
            payload,
            from,
            to - 1);
      }
      // the steady state autovacuum reaches: statistics and the visibility map, so that its run
      // on the million new rows does not fall into the measured series
      Sql.update(c, "VACUUM (ANALYZE) state.state_events");
      try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM state.state_events");
          ResultSet rs = ps.executeQuery()) {
        rs.next();
        OUT.printf(
            Locale.ROOT,
            "(bulk-loaded %d events in %.1f s)%n",
            fill,
            (System.nanoTime() - started) / 1e9);
        return rs.getLong(1);
      }
    }
  }

  private static EventEnvelope finished(String workspace, int i, String action) {
    Map<String, Object> attributes = new LinkedHashMap<>();
    attributes.put("id", "i-" + i);
    attributes.put("revision", "r" + i);
    attributes.put("host", "10.0.0." + (i % 250));
    String address = "stateful_provisioning.app";
    return EXECUTOR.wrap(
        TENANT,
        workspace,
        "run-" + workspace,
        1,
        address,
        new ActionFinished(
            "run-" + workspace,
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

  private static ActionFinished decode(EventEnvelope envelope) {
    return EventCodec.data(envelope, ActionFinished.class);
  }

  /**
   * One line of the append table: {@code nanos} against {@code baseline} (the narrow raw insert)
   * and {@code rowBaseline} (the raw insert of the event's whole row), both measured beside it.
   */
  private static void row(String name, double[] nanos, double[] baseline, double[] rowBaseline) {
    double opsPerSecond = nanos.length / (Arrays.stream(nanos).sum() / 1e9);
    double baselineOps = baseline.length / (Arrays.stream(baseline).sum() / 1e9);
    double rowBaselineOps = rowBaseline.length / (Arrays.stream(rowBaseline).sum() / 1e9);
    OUT.printf(
        Locale.ROOT,
        "| %s | %.0f | %.3f | %.2f | %.3f | %.2fx | %.2fx | %.2fx | %.2fx |%n",
        name,
        opsPerSecond,
        percentile(nanos, 50) / 1e6,
        percentile(nanos, 99) / 1e6,
        CPU_PER_OP.getOrDefault(nanos, Double.NaN) / 1e6,
        opsPerSecond / baselineOps,
        percentile(baseline, 50) / percentile(nanos, 50),
        opsPerSecond / rowBaselineOps,
        percentile(rowBaseline, 50) / percentile(nanos, 50));
  }
}
