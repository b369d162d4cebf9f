package dev.stagecraft.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.devstack.EmbeddedPostgresServer;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.servicekit.db.Databases;
import dev.stagecraft.servicekit.db.Sql;
import dev.stagecraft.state.adapter.db.StateStore;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The state store's event append against a raw single-row insert on the same embedded PostgreSQL,
 * in an empty store and in a store holding {@code fill} events. Prints a table for
 * docs/benchmarks.md. Not a test: it asserts nothing about time.
 *
 * <ul>
 *   <li><b>raw insert</b>: one autocommit {@code INSERT} of a row shaped like a state event (same
 *       columns, the same jsonb payload) into a table with the same primary key;
 *   <li><b>append</b>: {@link StateStore#record} of a succeeded {@code update} — the real path of
 *       an executor's result: lock the workspace row, idempotency check, head read, fold (from the
 *       in-process cache), decide, insert the event, index the version, store the outcome, commit;
 *   <li><b>append at N events</b>: the same after {@code fill} events were bulk-loaded into the
 *       store (1,000 per workspace), appending to one of those workspaces (its first append folds
 *       its 1,000 events; the measured ones hit the cache, as in service) and to a new one.
 * </ul>
 *
 * <p>Usage: {@code StateBenchmark append [APPENDS] [FILL]} (defaults 2000 and 1000000). One client,
 * one thread: latency per operation, not the database's parallel throughput. {@code StateBenchmark
 * documents [MB...]} (default 1 10 100): see {@link #documents}.
 */
public final class StateBenchmark {
  private static final PrintStream OUT = System.out;
  private static final String TENANT = "bench";
  private static final EventCodec EXECUTOR = EventCodec.forSource("/bench/executor");

  private static final java.lang.management.ThreadMXBean CPU =
      java.lang.management.ManagementFactory.getThreadMXBean();

  /** CPU time of this thread spent by the last measuring loop, in nanoseconds per operation. */
  private static double lastCpuPerOp;

  /** The client CPU per operation of each measured series (by identity). */
  private static final Map<double[], Double> CPU_PER_OP = new java.util.IdentityHashMap<>();

  private StateBenchmark() {}

  public static void main(String[] args) throws Exception {
    String what = args.length > 0 ? args[0] : "append";
    String[] rest = Arrays.copyOfRange(args, Math.min(1, args.length), args.length);
    switch (what) {
      case "append" -> append(rest);
      case "documents" -> documents(rest);
      default -> {
        System.err.println("usage: StateBenchmark append [APPENDS] [FILL] | documents [MB...]");
        System.exit(2);
      }
    }
  }

  /**
   * Whole-document push and read of {@code MB}-sized v4 documents through the store (parse,
   * validate, decide, append, fold; read = current state rendered to JSON with its MD5) against a
   * raw {@code bytea} write and read of the same bytes. Also reports the bytes the push allocated
   * on its thread ({@code ThreadMXBean}), as a multiple of the payload. Below HTTP: the service's
   * request body handling comes on top.
   */
  private static void documents(String[] args) throws Exception {
    int[] sizes =
        args.length == 0
            ? new int[] {1, 10, 100}
            : Arrays.stream(args).mapToInt(Integer::parseInt).toArray();
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    com.fasterxml.jackson.databind.ObjectMapper strict =
        new com.fasterxml.jackson.databind.ObjectMapper()
            .enable(com.fasterxml.jackson.core.JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(
                com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    com.fasterxml.jackson.databind.ObjectMapper out =
        new com.fasterxml.jackson.databind.ObjectMapper();
    Path dir = Files.createTempDirectory(Path.of("target"), "state-bench-");
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg/data"), 0);
        HikariDataSource ds =
            Databases.migrateAndPool(
                pg.jdbcUrl(), pg.user(), pg.password(), "state", "classpath:db/migration")) {
      try (Connection c = ds.getConnection()) {
        Sql.update(c, "CREATE TABLE state.raw_documents (id bigint PRIMARY KEY, body bytea)");
      }
      StateStore store = new StateStore(ds, Clock.systemUTC());
      OUT.println(
          "| size | raw bytea write ms | push ms | push / raw | raw bytea read ms | read ms"
              + " | read / raw | push allocated / payload |");
      OUT.println("|---|---|---|---|---|---|---|---|");
      long id = 0;
      for (int mb : sizes) {
        byte[] body = document(mb);
        int rounds = mb >= 100 ? 1 : 3;
        double rawWrite = Double.MAX_VALUE;
        double rawRead = Double.MAX_VALUE;
        double push = Double.MAX_VALUE;
        double read = Double.MAX_VALUE;
        long allocated = 0;
        for (int r = 0; r < rounds; r++) {
          long key = ++id;
          long t = System.nanoTime();
          try (Connection c = ds.getConnection();
              PreparedStatement ps =
                  c.prepareStatement("INSERT INTO state.raw_documents VALUES (?, ?)")) {
            ps.setLong(1, key);
            ps.setBytes(2, body);
            ps.executeUpdate();
          }
          rawWrite = Math.min(rawWrite, (System.nanoTime() - t) / 1e6);
          t = System.nanoTime();
          try (Connection c = ds.getConnection();
              PreparedStatement ps =
                  c.prepareStatement("SELECT body FROM state.raw_documents WHERE id = ?")) {
            ps.setLong(1, key);
            try (ResultSet rs = ps.executeQuery()) {
              rs.next();
              if (rs.getBytes(1).length != body.length) {
                throw new IllegalStateException("raw read back a different length");
              }
            }
          }
          rawRead = Math.min(rawRead, (System.nanoTime() - t) / 1e6);

          String workspace = "doc-" + mb + "-" + r;
          long allocatedBefore = threads.getCurrentThreadAllocatedBytes();
          t = System.nanoTime();
          Object document = strict.readValue(body, Object.class);
          var outcome =
              store.changeDocument(
                  TENANT,
                  workspace,
                  0,
                  null,
                  "bench",
                  (current, newest) ->
                      dev.stagecraft.state.history.DocumentDecider.push(
                          document, current, false, 0, newest));
          push = Math.min(push, (System.nanoTime() - t) / 1e6);
          allocated = threads.getCurrentThreadAllocatedBytes() - allocatedBefore;
          if (!outcome.accepted()) {
            throw new IllegalStateException("push refused: " + outcome.error());
          }
          t = System.nanoTime();
          var state = store.currentState(TENANT, workspace);
          byte[] rendered =
              out.writeValueAsBytes(
                  dev.stagecraft.state.history.TerraformStateV4.render(state, state.lineage()));
          java.security.MessageDigest.getInstance("MD5").digest(rendered);
          read = Math.min(read, (System.nanoTime() - t) / 1e6);
        }
        OUT.printf(
            Locale.ROOT,
            "| %d MB | %.0f | %.0f | %.2fx | %.0f | %.0f | %.2fx | %.1fx |%n",
            mb,
            rawWrite,
            push,
            push / rawWrite,
            rawRead,
            read,
            read / rawRead,
            (double) allocated / body.length);
      }
    } finally {
      try (var paths = Files.walk(dir)) {
        paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /**
   * A valid v4 document of about {@code mb} MiB: one resource, 1 KiB of attributes per instance.
   */
  private static byte[] document(int mb) {
    StringBuilder b =
        new StringBuilder(
            "{\"version\":4,\"terraform_version\":\"1.9.8\",\"serial\":1,"
                + "\"lineage\":\"bench-lineage\",\"outputs\":{},\"resources\":[{\"mode\":"
                + "\"managed\",\"type\":\"stateful_provisioning\",\"name\":\"app\","
                + "\"provider\":\"provider[\\\"registry.terraform.io/hashicorp/null\\\"]\","
                + "\"instances\":[");
    String filler = "x".repeat(1000);
    long target = (long) mb << 20;
    for (int i = 0; b.length() < target; i++) {
      if (i > 0) {
        b.append(',');
      }
      b.append("{\"index_key\":")
          .append(i)
          .append(",\"schema_version\":0,\"attributes\":{\"id\":\"i-")
          .append(i)
          .append("\",\"blob\":\"")
          .append(filler)
          .append("\"}}");
    }
    b.append("]}]}");
    return b.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  private static void append(String[] args) throws Exception {
    int appends = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
    int fill = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
    Path dir = Files.createTempDirectory(Path.of("target"), "state-bench-");
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg/data"), 0);
        HikariDataSource ds =
            Databases.migrateAndPool(
                pg.jdbcUrl(), pg.user(), pg.password(), "state", "classpath:db/migration")) {
      try (Connection c = ds.getConnection()) {
        Sql.update(
            c,
            "CREATE TABLE state.raw_events (tenant text NOT NULL, workspace text NOT NULL,"
                + " sequence bigint NOT NULL, payload jsonb NOT NULL, created_at timestamptz"
                + " NOT NULL, PRIMARY KEY (tenant, workspace, sequence))");
      }
      StateStore store = new StateStore(ds, Clock.systemUTC());
      String payload = samplePayload(store);
      OUT.printf(
          Locale.ROOT,
          "state append benchmark: %d operations each, one client, PostgreSQL %s%n",
          appends,
          pg.jdbcUrl());
      OUT.println(
          "| case | ops/s | p50 ms | p99 ms | client CPU ms/op | vs raw insert (throughput) |");
      OUT.println("|---|---|---|---|---|---|");
      // warm up both paths (JIT, pool, plan cache)
      rawInserts(ds, "warm", payload, appends / 4);
      appends(store, "warm", 0, appends / 4);

      double[] raw = rawInserts(ds, "raw-empty", payload, appends);
      double[] rawTx = rawTransactions(ds, "raw-tx", payload, appends);
      double[] empty = appends(store, "empty", 0, appends);
      row("raw single-row insert (empty store)", raw, raw);
      row("raw: the append's 8 statements as plain JDBC, one transaction", rawTx, raw);
      row("event append (empty store)", empty, raw);

      long loaded = bulkLoad(ds, payload, fill);
      double[] rawFull = rawInserts(ds, "raw-full", payload, appends);
      appends(store, "w0", 10_000, 1); // first append to a filled workspace: folds its history
      double[] full = appends(store, "w0", 10_001, appends);
      double[] fresh = appends(store, "fresh", 0, appends);
      row("raw single-row insert (" + loaded + " events stored)", rawFull, rawFull);
      row("event append to a 1,000-event workspace (" + loaded + " stored)", full, rawFull);
      row("event append to a new workspace (" + loaded + " stored)", fresh, rawFull);
      OUT.printf(
          Locale.ROOT,
          "append p50 at %d events / empty store: %.2fx; p99: %.2fx%n",
          loaded,
          percentile(full, 50) / percentile(empty, 50),
          percentile(full, 99) / percentile(empty, 99));
    } finally {
      try (var paths = Files.walk(dir)) {
        paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /** The jsonb payload of a real instance write, as the store wrote it. */
  private static String samplePayload(StateStore store) throws SQLException {
    store.record(finished("sample", 0, "create"), decode(finished("sample", 0, "create")));
    return store.history(TENANT, "sample").stream()
        .filter(e -> e.type().equals("instance_created"))
        .findFirst()
        .map(e -> toJson(e.event()))
        .orElseThrow();
  }

  private static String toJson(Object value) {
    try {
      return EventCodec.mapper().writeValueAsString(value);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Latencies in nanoseconds of {@code n} autocommit single-row inserts. */
  private static double[] rawInserts(HikariDataSource ds, String workspace, String payload, int n)
      throws SQLException {
    double[] nanos = new double[n];
    long cpuStart = CPU.getCurrentThreadCpuTime();
    for (int i = 0; i < n; i++) {
      long start = System.nanoTime();
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
      nanos[i] = System.nanoTime() - start;
    }
    lastCpuPerOp = (double) (CPU.getCurrentThreadCpuTime() - cpuStart) / n;
    CPU_PER_OP.put(nanos, lastCpuPerOp);
    return nanos;
  }

  /**
   * Latencies in nanoseconds of {@code n} transactions made of the statements an append runs
   * (without the Java around them): take the workspace row, read the head, look for a previous
   * outcome, insert the event, its version row and the outcome, commit. Separates the cost of the
   * transaction's round trips from the store's own work.
   */
  private static double[] rawTransactions(
      HikariDataSource ds, String workspace, String payload, int n) throws SQLException {
    double[] nanos = new double[n];
    long cpuStart = CPU.getCurrentThreadCpuTime();
    for (int i = 0; i < n; i++) {
      long start = System.nanoTime();
      try (Connection c = ds.getConnection()) {
        c.setAutoCommit(false);
        Sql.update(
            c,
            "INSERT INTO state.fencing (tenant, workspace, newest_token) VALUES (?, ?, 0)"
                + " ON CONFLICT (tenant, workspace) DO NOTHING",
            TENANT,
            workspace);
        query(
            c,
            "SELECT newest_token FROM state.fencing WHERE tenant = ? AND workspace = ? FOR UPDATE",
            TENANT,
            workspace);
        query(
            c,
            "SELECT 1 FROM state.action_outcomes WHERE tenant = ? AND source_event_id = ?",
            TENANT,
            "raw-" + i);
        query(
            c,
            "SELECT coalesce(max(sequence), 0) FROM state.raw_events WHERE tenant = ?"
                + " AND workspace = ?",
            TENANT,
            workspace);
        Sql.update(
            c,
            "INSERT INTO state.raw_events (tenant, workspace, sequence, payload, created_at)"
                + " VALUES (?, ?, ?, ?::jsonb, ?)",
            TENANT,
            workspace,
            i + 1,
            payload,
            Instant.now());
        Sql.update(
            c,
            "INSERT INTO state.state_versions (tenant, workspace, sequence, serial, type, digest,"
                + " created_at) VALUES (?, ?, ?, ?, 'raw', 'd', ?)",
            TENANT,
            workspace,
            i + 1,
            i + 1,
            Instant.now());
        Sql.update(
            c,
            "INSERT INTO state.action_outcomes (tenant, workspace, run_id, action_id,"
                + " source_event_id, outcome, serial, recorded_envelope, created_at)"
                + " VALUES (?, ?, 'raw', ?, ?, 'applied', ?, ?::jsonb, ?)",
            TENANT,
            workspace,
            "act-" + i,
            "raw-" + i,
            i + 1,
            payload,
            Instant.now());
        c.commit();
      }
      nanos[i] = System.nanoTime() - start;
    }
    lastCpuPerOp = (double) (CPU.getCurrentThreadCpuTime() - cpuStart) / n;
    CPU_PER_OP.put(nanos, lastCpuPerOp);
    return nanos;
  }

  private static void query(Connection c, String sql, Object... parameters) throws SQLException {
    try (PreparedStatement ps = Sql.prepare(c, sql, parameters);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
    }
  }

  /** Latencies in nanoseconds of {@code n} recorded action results (create first, then updates). */
  private static double[] appends(StateStore store, String workspace, int from, int n)
      throws SQLException {
    double[] nanos = new double[n];
    long cpuStart = CPU.getCurrentThreadCpuTime();
    for (int i = 0; i < n; i++) {
      int index = from + i;
      EventEnvelope envelope = finished(workspace, index, index == 0 ? "create" : "update");
      ActionFinished finished = decode(envelope);
      long start = System.nanoTime();
      store.record(envelope, finished);
      nanos[i] = System.nanoTime() - start;
    }
    lastCpuPerOp = (double) (CPU.getCurrentThreadCpuTime() - cpuStart) / n;
    CPU_PER_OP.put(nanos, lastCpuPerOp);
    return nanos;
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
      Sql.update(c, "ANALYZE state.state_events");
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

  private static void row(String name, double[] nanos, double[] baseline) {
    double opsPerSecond = nanos.length / (Arrays.stream(nanos).sum() / 1e9);
    double baselineOps = baseline.length / (Arrays.stream(baseline).sum() / 1e9);
    OUT.printf(
        Locale.ROOT,
        "| %s | %.0f | %.2f | %.2f | %.3f | %.2fx |%n",
        name,
        opsPerSecond,
        percentile(nanos, 50) / 1e6,
        percentile(nanos, 99) / 1e6,
        CPU_PER_OP.getOrDefault(nanos, Double.NaN) / 1e6,
        opsPerSecond / baselineOps);
  }

  private static double percentile(double[] nanos, int p) {
    double[] sorted = nanos.clone();
    Arrays.sort(sorted);
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100.0 * sorted.length) - 1)];
  }
}
