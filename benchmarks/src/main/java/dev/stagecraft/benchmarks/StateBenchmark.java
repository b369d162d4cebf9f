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
 *   <li><b>(a) event append</b>: the store's append primitive, one call of {@code
 *       state.append_events} with one event of the same payload (see {@link #primitives});
 *   <li><b>(b) record</b>: {@link StateStore#record} of a succeeded {@code update} — the real path
 *       of an executor's result, built on exactly (a): fold (from the in-process cache), decide,
 *       serialize, then one {@code state.append_events} call with the event, its version row and
 *       the outcome;
 *   <li><b>at N events</b>: (a) and (b) again after {@code fill} events were bulk-loaded into the
 *       store (1,000 per workspace), appending to one of those workspaces (for (b) its first append
 *       folds its 1,000 events; the measured ones hit the cache, as in service) and to a new one.
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
   * Whole-document push and read of {@code MB}-sized v4 documents (ADR 0022) against a raw {@code
   * bytea} write ({@code INSERT} of the bytes with {@code setBytes}) and read ({@code SELECT} with
   * {@code getBytes}) of the same payload on the same database:
   *
   * <ul>
   *   <li><b>over HTTP</b>: a dev stack as {@code stagecraft up} starts it (its services from their
   *       packaged jars, state-service with {@code -Xmx256m}; the raw baseline uses its
   *       PostgreSQL); a push is a POST to the Terraform HTTP backend ({@code
   *       /tf/v1/workspaces/{ws}/state}, body streamed from a file, with {@code Content-MD5}); a
   *       read is a GET whose body is streamed into an MD5 (checked against the file's);
   *   <li><b>below HTTP</b>: in this process, {@link
   *       dev.stagecraft.state.adapter.document.SpooledDocument#receive} of the bytes (spool,
   *       digests, streaming validation) and {@link StateStore#pushDocument}; the read is {@link
   *       StateStore#currentDocument} + {@link StateStore#openDocument} streamed into an MD5. The
   *       bytes the push allocated on its thread ({@code ThreadMXBean}, JDBC included) are reported
   *       as a multiple of the payload, and must stay below 2× (the run fails otherwise).
   * </ul>
   *
   * <p>Best of 3 rounds (1 round at 100 MiB and more), each round on a new workspace.
   */
  private static void documents(String[] args) throws Exception {
    int[] sizes =
        args.length == 0
            ? new int[] {1, 10, 100}
            : Arrays.stream(args).mapToInt(Integer::parseInt).toArray();
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "state-bench-");
    Path repo = Path.of("").toAbsolutePath();
    repo = Files.exists(repo.resolve("state-service")) ? repo : repo.getParent();
    dev.stagecraft.devstack.DevStack stack =
        dev.stagecraft.devstack.DevStack.start(
            new dev.stagecraft.devstack.DevStackOptions(
                dir.resolve("data"),
                repo,
                dir.resolve("home"),
                dev.stagecraft.devstack.DevStackOptions.anyPorts(),
                0,
                0,
                null,
                dev.stagecraft.devstack.DevStackOptions.currentJava(),
                java.time.Duration.ofSeconds(180),
                new PrintStream(java.io.OutputStream.nullOutputStream()),
                Map.of()));
    try (HikariDataSource ds =
        Databases.migrateAndPool(
            stack.info().postgres(), "postgres", "postgres", "state", "classpath:db/migration")) {
      try (Connection c = ds.getConnection()) {
        Sql.update(c, "CREATE TABLE public.raw_documents (id bigint PRIMARY KEY, body bytea)");
      }
      java.net.http.HttpClient http =
          java.net.http.HttpClient.newBuilder()
              .version(java.net.http.HttpClient.Version.HTTP_1_1)
              .build();
      String stateUrl = stack.info().state();
      String auth =
          "Basic "
              + java.util.Base64.getEncoder()
                  .encodeToString(
                      ("bench:" + stack.credentials().orElseThrow().token())
                          .getBytes(java.nio.charset.StandardCharsets.UTF_8));
      StateStore store = new StateStore(ds, Clock.systemUTC());
      OUT.println(
          "| size | raw bytea write ms | HTTP push ms | push / raw | raw bytea read ms"
              + " | HTTP GET ms | GET / raw | push below HTTP ms | / raw | read below HTTP ms"
              + " | / raw | push allocated / payload |");
      OUT.println("|---|---|---|---|---|---|---|---|---|---|---|---|");
      long id = 0;
      for (int mb : sizes) {
        byte[] body = document(mb);
        Path file = dir.resolve("document-" + mb + ".json");
        Files.write(file, body);
        String md5 =
            java.util.Base64.getEncoder()
                .encodeToString(java.security.MessageDigest.getInstance("MD5").digest(body));
        int rounds = mb >= 100 ? 1 : 3;
        double rawWrite = Double.MAX_VALUE;
        double rawRead = Double.MAX_VALUE;
        double push = Double.MAX_VALUE;
        double get = Double.MAX_VALUE;
        double pushBelow = Double.MAX_VALUE;
        double readBelow = Double.MAX_VALUE;
        double allocated = 0;
        for (int r = 0; r < rounds; r++) {
          long key = ++id;
          long t = System.nanoTime();
          try (Connection c = ds.getConnection();
              PreparedStatement ps =
                  c.prepareStatement("INSERT INTO public.raw_documents VALUES (?, ?)")) {
            ps.setLong(1, key);
            ps.setBytes(2, body);
            ps.executeUpdate();
          }
          rawWrite = Math.min(rawWrite, (System.nanoTime() - t) / 1e6);
          t = System.nanoTime();
          try (Connection c = ds.getConnection();
              PreparedStatement ps =
                  c.prepareStatement("SELECT body FROM public.raw_documents WHERE id = ?")) {
            ps.setLong(1, key);
            try (ResultSet rs = ps.executeQuery()) {
              rs.next();
              if (rs.getBytes(1).length != body.length) {
                throw new IllegalStateException("raw read back a different length");
              }
            }
          }
          rawRead = Math.min(rawRead, (System.nanoTime() - t) / 1e6);

          String url = stateUrl + "/tf/v1/workspaces/http-" + mb + "-" + r + "/state";
          t = System.nanoTime();
          var pushed =
              http.send(
                  java.net.http.HttpRequest.newBuilder(java.net.URI.create(url))
                      .header("Authorization", auth)
                      .header("Content-Type", "application/json")
                      .header("Content-MD5", md5)
                      .POST(java.net.http.HttpRequest.BodyPublishers.ofFile(file))
                      .build(),
                  java.net.http.HttpResponse.BodyHandlers.ofString());
          push = Math.min(push, (System.nanoTime() - t) / 1e6);
          if (pushed.statusCode() != 200) {
            throw new IllegalStateException("HTTP push: " + pushed.statusCode() + pushed.body());
          }
          t = System.nanoTime();
          var pulled =
              http.send(
                  java.net.http.HttpRequest.newBuilder(java.net.URI.create(url))
                      .header("Authorization", auth)
                      .build(),
                  java.net.http.HttpResponse.BodyHandlers.ofInputStream());
          String pulledMd5 = md5(pulled.body());
          get = Math.min(get, (System.nanoTime() - t) / 1e6);
          if (pulled.statusCode() != 200 || !pulledMd5.equals(md5)) {
            throw new IllegalStateException("HTTP GET: " + pulled.statusCode() + " " + pulledMd5);
          }

          String workspace = "below-" + mb + "-" + r;
          long allocatedBefore = threads.getCurrentThreadAllocatedBytes();
          t = System.nanoTime();
          var outcome = pushBelowHttp(store, workspace, body, dir.resolve("uploads"));
          pushBelow = Math.min(pushBelow, (System.nanoTime() - t) / 1e6);
          allocated =
              (double) (threads.getCurrentThreadAllocatedBytes() - allocatedBefore) / body.length;
          if (!outcome.accepted()) {
            throw new IllegalStateException("push refused: " + outcome.error());
          }
          t = System.nanoTime();
          var current = store.currentDocument(TENANT, workspace);
          String readMd5 = md5(store.openDocument(TENANT, workspace, current.stored()));
          readBelow = Math.min(readBelow, (System.nanoTime() - t) / 1e6);
          if (!readMd5.equals(md5)) {
            throw new IllegalStateException("read back other bytes below HTTP");
          }
        }
        Files.delete(file);
        OUT.printf(
            Locale.ROOT,
            "| %d MiB | %.0f | %.0f | %.2fx | %.0f | %.0f | %.2fx | %.0f | %.2fx | %.0f | %.2fx"
                + " | %.2fx |%n",
            mb,
            rawWrite,
            push,
            push / rawWrite,
            rawRead,
            get,
            get / rawRead,
            pushBelow,
            pushBelow / rawWrite,
            readBelow,
            readBelow / rawRead,
            allocated);
        // at 1 MiB the fixed cost of a push (transaction, statements, JIT) is a large part
        if (mb >= 10 && allocated >= 2) {
          throw new IllegalStateException(
              "the push allocated " + allocated + "x the payload on its thread (limit 2x)");
        }
      }
    } finally {
      stack.close();
      try (var paths = Files.walk(dir)) {
        paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private static dev.stagecraft.state.history.DocumentDecider.Outcome pushBelowHttp(
      StateStore store, String workspace, byte[] body, Path uploads) throws Exception {
    Files.createDirectories(uploads);
    try (var upload =
        dev.stagecraft.state.adapter.document.SpooledDocument.receive(
            new java.io.ByteArrayInputStream(body), null, Long.MAX_VALUE, uploads)) {
      return store.pushDocument(TENANT, workspace, 0, "bench", upload, false);
    }
  }

  private static String md5(java.io.InputStream in) throws Exception {
    java.security.MessageDigest md5 = java.security.MessageDigest.getInstance("MD5");
    try (in) {
      byte[] piece = new byte[1 << 16];
      for (int n; (n = in.read(piece)) > 0; ) {
        md5.update(piece, 0, n);
      }
    }
    return java.util.Base64.getEncoder().encodeToString(md5.digest());
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
      // warm up every path (JIT, pool, plan cache): at least 2,000 operations each
      int warmUp = Math.max(appends / 4, 2_000);
      rawInserts(ds, "warm", payload, warmUp);
      primitives(ds, "warm-primitive", payload, 0, warmUp);
      appends(store, "warm", 0, warmUp);

      double[] raw = rawInserts(ds, "raw-empty", payload, appends);
      double[] primitive = primitives(ds, "primitive", payload, 0, appends);
      double[] empty = appends(store, "empty", 0, appends);
      row("raw single-row insert (empty store)", raw, raw);
      row("(a) event append: one `state.append_events` call (empty store)", primitive, raw);
      row("(b) `StateStore.record` of an action outcome (empty store)", empty, raw);

      long loaded = bulkLoad(ds, payload, fill);
      double[] rawFull = rawInserts(ds, "raw-full", payload, appends);
      double[] primitiveFull = primitives(ds, "w1", payload, 1000, appends);
      double[] primitiveFresh = primitives(ds, "primitive-fresh", payload, 0, appends);
      appends(store, "w0", 10_000, 1); // first append to a filled workspace: folds its history
      double[] full = appends(store, "w0", 10_001, appends);
      double[] fresh = appends(store, "fresh", 0, appends);
      String stored = String.format(Locale.ROOT, "%,d stored", loaded);
      row("raw single-row insert (" + stored + ")", rawFull, rawFull);
      row("(a) event append, 1,000-event workspace (" + stored + ")", primitiveFull, rawFull);
      row("(a) event append, new workspace (" + stored + ")", primitiveFresh, rawFull);
      row("(b) `StateStore.record`, 1,000-event workspace (" + stored + ")", full, rawFull);
      row("(b) `StateStore.record`, new workspace (" + stored + ")", fresh, rawFull);
      OUT.printf(
          Locale.ROOT,
          "at %d events / empty store, 1,000-event workspace: (a) p50 %.2fx p99 %.2fx;"
              + " (b) p50 %.2fx p99 %.2fx%n",
          loaded,
          percentile(primitiveFull, 50) / percentile(primitive, 50),
          percentile(primitiveFull, 99) / percentile(primitive, 99),
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
   * Latencies in nanoseconds of {@code n} event appends through the store's append primitive: one
   * autocommit call of {@code state.append_events} (V7, the statement {@link StateStore#record}
   * makes) with one event — the workspace's next sequence (checked against the head the caller
   * expects, {@code head + 1, head + 2, ...}), idempotent by event id, with its tenant, under the
   * workspace's row lock with a fencing token — and no version row, snapshot or outcome.
   */
  private static double[] primitives(
      HikariDataSource ds, String workspace, String payload, long head, int n) throws SQLException {
    double[] nanos = new double[n];
    long cpuStart = CPU.getCurrentThreadCpuTime();
    for (int i = 0; i < n; i++) {
      long start = System.nanoTime();
      try (Connection c = ds.getConnection();
          PreparedStatement ps =
              c.prepareStatement(
                  "SELECT status FROM state.append_events(?, ?, ?, 1, true, ARRAY[?], ?, ?, ?,"
                      + " ARRAY['instance_updated'], ARRAY[?], ARRAY[?::jsonb], NULL, NULL, NULL,"
                      + " NULL, NULL, NULL, NULL, NULL, ?)")) {
        ps.setString(1, TENANT);
        ps.setString(2, workspace);
        ps.setLong(3, head + i);
        ps.setString(4, workspace + "-event-" + i);
        ps.setString(5, "run-" + workspace);
        ps.setString(6, "act-" + i);
        ps.setString(7, "executor:exec-1");
        ps.setString(8, "stateful_provisioning.app");
        ps.setString(9, payload);
        ps.setTimestamp(10, java.sql.Timestamp.from(Instant.now()));
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          if (!"appended".equals(rs.getString(1))) {
            throw new IllegalStateException("append answered " + rs.getString(1));
          }
        }
      }
      nanos[i] = System.nanoTime() - start;
    }
    lastCpuPerOp = (double) (CPU.getCurrentThreadCpuTime() - cpuStart) / n;
    CPU_PER_OP.put(nanos, lastCpuPerOp);
    return nanos;
  }

  /** Latencies in nanoseconds of {@code n} recorded action results (create first, then updates). */
  private static double[] appends(StateStore store, String workspace, int from, int n)
      throws SQLException {
    double[] nanos = new double[n];
    long cpu = 0;
    for (int i = 0; i < n; i++) {
      int index = from + i;
      EventEnvelope envelope = finished(workspace, index, index == 0 ? "create" : "update");
      ActionFinished finished = decode(envelope);
      // only the store's work: building and decoding the executor's envelope is not counted
      long cpuStart = CPU.getCurrentThreadCpuTime();
      long start = System.nanoTime();
      store.record(envelope, finished);
      nanos[i] = System.nanoTime() - start;
      cpu += CPU.getCurrentThreadCpuTime() - cpuStart;
    }
    lastCpuPerOp = (double) cpu / n;
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
