package dev.stagecraft.benchmarks;

import dev.stagecraft.devstack.EmbeddedPostgresServer;
import dev.stagecraft.devstack.ServiceJvm;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Lock + unlock cycle through the lock service (HTTP acquire, HTTP release; each a PostgreSQL
 * transaction under the workspace's row lock, on the {@code IO} executor) against a raw {@code
 * pg_advisory_lock} / {@code pg_advisory_unlock} pair on the same embedded PostgreSQL, one client,
 * in the same run. The lock service runs as its own process from {@code
 * lock-service/target/lock-service-app.jar} with the dev stack's JVM options ({@code ServiceJvm}).
 * Prints p50 / p99 of each and the ratio (docs/benchmarks.md). {@code
 * -Dstagecraft.bench.lock-jar=PATH} measures another build of the service.
 *
 * <p>Before / after a change in one run: {@code -Dstagecraft.bench.before-lock-jar=PATH} starts a
 * second process from an older build (on a second embedded PostgreSQL, so that neither build's
 * migrations change the other's schema) and measures its cycle interleaved with this build's in
 * blocks of {@value #BLOCK} cycles, so both see the same load; {@code
 * -Dstagecraft.bench.before-lock-route=/internal/v1/quick} (the default) is the route prefix the
 * older build's clients used (ADR 0030's quick route, removed by ADR 0072). A last row measures two
 * {@code GET /health} on the same connection: the HTTP part of a cycle without the lock work.
 *
 * <p>The client is a minimal HTTP/1.1 client on one keep-alive TCP connection ({@link
 * KeepAliveHttp}): real requests to the real process, but without the JDK {@code HttpClient}'s
 * selector-thread hand-offs, which cost more than the server's own work per request (measured:
 * docs/benchmarks.md). Both sides get the same warm-up, long enough for the JIT to compile the
 * service's request path.
 *
 * <p>Usage: {@code dev/bench locks [CYCLES]} (default 2000 measured cycles after 30,000 warm-up
 * cycles of each; {@code -Dstagecraft.bench.lock-warmup=N} changes the warm-up). So that a reader
 * can see whether the warm-up was long enough, it prints the CPU time the service processes' JIT
 * compiler threads used during the warm-up and during the measured cycles ({@link JitCpu}).
 */
public final class LockBenchmark {
  /** The planner's token: the benchmark calls the lock routes as the planner does. */
  private static final String TOKEN = "bench-planner-token";

  private static final Pattern LOCK_ID = Pattern.compile("\"lockId\"\\s*:\\s*\"([^\"]+)\"");

  private LockBenchmark() {}

  public static void main(String[] args) throws Exception {
    int cycles = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
    int warmup = Integer.getInteger("stagecraft.bench.lock-warmup", 30_000);
    Path root = Path.of("").toAbsolutePath();
    Path repo = Files.exists(root.resolve("lock-service")) ? root : root.getParent();
    Path jar =
        Path.of(
            System.getProperty(
                "stagecraft.bench.lock-jar",
                repo.resolve("lock-service/target/lock-service-app.jar").toString()));
    String beforeJar = System.getProperty("stagecraft.bench.before-lock-jar");
    String beforeRoute =
        System.getProperty("stagecraft.bench.before-lock-route", "/internal/v1/quick");
    Path dir = Files.createTempDirectory(root.resolve("target"), "lock-bench-");
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg"), 0);
        EmbeddedPostgresServer beforePg =
            beforeJar == null ? null : EmbeddedPostgresServer.start(dir.resolve("pg-before"), 0)) {
      System.out.println(
          "lock service: " + jar + (beforeJar == null ? "" : "; before: " + beforeJar));
      List<Process> services = new ArrayList<>();
      try {
        int port = freePort();
        services.add(startService(jar, pg, port, dir.resolve("lock-service.log")));
        int beforePort = freePort();
        if (beforeJar != null) {
          services.add(
              startService(
                  Path.of(beforeJar), beforePg, beforePort, dir.resolve("lock-before.log")));
        }
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        waitHealthy(http, "http://127.0.0.1:" + port + "/health", services.get(0));
        if (beforeJar != null) {
          waitHealthy(http, "http://127.0.0.1:" + beforePort + "/health", services.get(1));
        }
        long[] pids = services.stream().mapToLong(Process::pid).toArray();
        Results results =
            measureAll(
                cycles, warmup, pg, port, beforeJar == null ? null : beforePort, beforeRoute, pids);
        System.out.print(table(cycles, warmup, beforeRoute, results));
      } finally {
        for (Process p : services) {
          p.destroy();
        }
        for (Process p : services) {
          p.waitFor();
        }
      }
    }
  }

  /** The p50 and p99 of one cycle's samples, in milliseconds. */
  private record Percentiles(double p50, double p99) {
    static Percentiles of(double[] sorted) {
      return new Percentiles(pct(sorted, 50), pct(sorted, 99));
    }
  }

  /**
   * The percentiles of each cycle (before: null without a before build) and the CPU time of the JIT
   * compiler threads during the warm-up and during the measured lock cycles, in milliseconds.
   */
  private record Results(
      Percentiles service,
      Percentiles before,
      Percentiles raw,
      Percentiles http,
      double jitWarmUpMs,
      double jitMeasuredMs) {}

  /**
   * Measures this build's lock cycle (interleaved with the before build's when {@code beforePort}
   * is not null), the raw advisory lock cycle, and the HTTP round trips alone.
   */
  private static Results measureAll(
      int cycles,
      int warmup,
      EmbeddedPostgresServer pg,
      int port,
      Integer beforePort,
      String beforeRoute,
      long[] pids)
      throws Exception {
    try (KeepAliveHttp client = new KeepAliveHttp(port);
        KeepAliveHttp beforeClient = beforePort == null ? null : new KeepAliveHttp(beforePort);
        Connection c = DriverManager.getConnection(pg.jdbcUrl(), pg.user(), pg.password());
        PreparedStatement lock = c.prepareStatement("SELECT pg_advisory_lock(42)");
        PreparedStatement unlock = c.prepareStatement("SELECT pg_advisory_unlock(42)")) {
      List<Cycle> lockCycles = new ArrayList<>();
      lockCycles.add(lockCycle(client, "/internal/v1/tenants/bench/workspaces/ws/lock"));
      if (beforeClient != null) {
        lockCycles.add(lockCycle(beforeClient, beforeRoute + "/tenants/bench/workspaces/ws/lock"));
      }
      Cycle raw =
          () -> {
            lock.executeQuery().close();
            unlock.executeQuery().close();
          };
      Cycle httpOnly =
          () -> {
            for (int i = 0; i < 2; i++) {
              KeepAliveHttp.Reply h = client.send("GET", "/health", null);
              if (h.status() != 200) {
                throw new IllegalStateException("health failed: " + h.status() + h.body());
              }
            }
          };
      long[] jit = new long[3]; // compiler CPU at start, after the warm-up, after measuring
      jit[0] = JitCpu.compilerNanos(pids);
      double[][] routes =
          measureInterleaved(
              warmup,
              cycles,
              () -> jit[1] = JitCpu.compilerNanos(pids),
              lockCycles.toArray(Cycle[]::new));
      jit[2] = JitCpu.compilerNanos(pids);
      double[] raw1 = measure(raw, warmup, cycles);
      double[] http1 = measure(httpOnly, warmup, cycles);
      return new Results(
          Percentiles.of(routes[0]),
          beforeClient == null ? null : Percentiles.of(routes[1]),
          Percentiles.of(raw1),
          Percentiles.of(http1),
          (jit[1] - jit[0]) / 1e6,
          (jit[2] - jit[1]) / 1e6);
    }
  }

  /** The table of docs/benchmarks.md. */
  private static StringBuilder table(int cycles, int warmup, String beforeRoute, Results r) {
    StringBuilder table = new StringBuilder();
    table.append(
        String.format(
            Locale.ROOT,
            "lock+unlock, %d cycles after %d warm-up, one client (keep-alive HTTP/1.1)%n"
                + "| | p50 | p99 |%n|---|---|---|%n",
            cycles,
            warmup));
    row(table, "lock-service (HTTP acquire + release)", r.service());
    row(table, "pg_advisory_lock + pg_advisory_unlock", r.raw());
    table.append(
        String.format(
            Locale.ROOT,
            "| ratio | %.1fx | %.1fx |%n",
            r.service().p50() / r.raw().p50(),
            r.service().p99() / r.raw().p99()));
    if (r.before() != null) {
      row(table, "(before: " + beforeRoute + "/..., other process)", r.before());
    }
    row(table, "(HTTP alone: 2x GET /health, same connection)", r.http());
    table.append(
        String.format(
            Locale.ROOT,
            "JIT compiler threads of the service processes: %.0f ms of CPU during the"
                + " warm-up, %.0f ms during the measured lock cycles%n",
            r.jitWarmUpMs(),
            r.jitMeasuredMs()));
    return table;
  }

  private static void row(StringBuilder table, String name, Percentiles p) {
    table.append(
        String.format(Locale.ROOT, "| %s | %.2f ms | %.2f ms |%n", name, p.p50(), p.p99()));
  }

  /** Acquire then release on {@code path}, each answer checked. */
  private static Cycle lockCycle(KeepAliveHttp client, String path) {
    String acquireBody = "{\"holder\":\"bench\",\"leaseSeconds\":30}";
    return () -> {
      KeepAliveHttp.Reply a = client.send("POST", path, acquireBody);
      Matcher m = LOCK_ID.matcher(a.body());
      if (a.status() != 200 || !m.find()) {
        throw new IllegalStateException("acquire failed: " + a.status() + a.body());
      }
      KeepAliveHttp.Reply r = client.send("DELETE", path + "/" + m.group(1), null);
      if (r.status() != 200) {
        throw new IllegalStateException("release failed: " + r.status() + r.body());
      }
    };
  }

  /**
   * One persistent HTTP/1.1 connection (TCP_NODELAY), one request at a time: writes the request
   * with {@code Content-Length} and the service token, reads the status line, the headers and a
   * {@code Content-Length} body. Enough for the lock service's JSON answers; not thread-safe.
   */
  static final class KeepAliveHttp implements AutoCloseable {
    record Reply(int status, String body) {}

    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;
    private final String host;

    KeepAliveHttp(int port) throws IOException {
      socket = new Socket("127.0.0.1", port);
      socket.setTcpNoDelay(true);
      out = new BufferedOutputStream(socket.getOutputStream());
      in = new BufferedInputStream(socket.getInputStream());
      host = "127.0.0.1:" + port;
    }

    Reply send(String method, String path, String body) throws IOException {
      byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
      String head =
          method
              + " "
              + path
              + " HTTP/1.1\r\nHost: "
              + host
              + "\r\nAuthorization: Bearer "
              + TOKEN
              + (body == null ? "" : "\r\nContent-Type: application/json")
              + "\r\nContent-Length: "
              + content.length
              + "\r\n\r\n";
      out.write(head.getBytes(StandardCharsets.US_ASCII));
      out.write(content);
      out.flush();
      String status = line();
      int length = -1;
      for (String header = line(); !header.isEmpty(); header = line()) {
        if (header.regionMatches(true, 0, "content-length:", 0, 15)) {
          length = Integer.parseInt(header.substring(15).trim());
        }
      }
      if (length < 0) {
        throw new IllegalStateException(
            "no Content-Length in the answer to " + method + " " + path);
      }
      return new Reply(
          Integer.parseInt(status.split(" ", -1)[1]),
          new String(in.readNBytes(length), StandardCharsets.UTF_8));
    }

    private String line() throws IOException {
      StringBuilder line = new StringBuilder();
      for (int b = in.read(); b != '\n'; b = in.read()) {
        if (b < 0) {
          throw new EOFException("connection closed by the service");
        }
        if (b != '\r') {
          line.append((char) b);
        }
      }
      return line.toString();
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }

  @FunctionalInterface
  interface Cycle {
    void run() throws Exception;
  }

  private static double[] measure(Cycle cycle, int warmup, int cycles) throws Exception {
    for (int i = 0; i < warmup; i++) {
      cycle.run();
    }
    double[] ms = new double[cycles];
    for (int i = 0; i < cycles; i++) {
      long start = System.nanoTime();
      cycle.run();
      ms[i] = (System.nanoTime() - start) / 1e6;
    }
    Arrays.sort(ms);
    return ms;
  }

  /** Cycles per block when two cycles are measured in alternation. */
  private static final int BLOCK = 250;

  /**
   * Warms every cycle up, then measures them in turn in blocks of {@value #BLOCK} cycles until each
   * has {@code cycles} samples, so that changes of the machine's load during the run affect all
   * alike. {@code afterWarmup} runs once between the warm-up and the measured cycles.
   *
   * @return the sorted samples of each cycle, in the order given
   */
  private static double[][] measureInterleaved(
      int warmup, int cycles, Runnable afterWarmup, Cycle... all) throws Exception {
    for (int i = 0; i < warmup; i++) {
      for (Cycle c : all) {
        c.run();
      }
    }
    afterWarmup.run();
    double[][] ms = new double[all.length][cycles];
    for (int done = 0; done < cycles; done += BLOCK) {
      for (int which = 0; which < all.length; which++) {
        for (int i = done; i < Math.min(cycles, done + BLOCK); i++) {
          long start = System.nanoTime();
          all[which].run();
          ms[which][i] = (System.nanoTime() - start) / 1e6;
        }
      }
    }
    for (double[] samples : ms) {
      Arrays.sort(samples);
    }
    return ms;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** Starts the lock service from {@code jar} as the dev stack does ({@code ServiceJvm}). */
  private static Process startService(Path jar, EmbeddedPostgresServer pg, int port, Path log)
      throws IOException {
    // as the dev stack starts every service
    List<String> command =
        ServiceJvm.command(Path.of(System.getProperty("java.home"), "bin", "java").toString(), jar);
    ProcessBuilder pb =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment()
        .putAll(
            Map.of(
                "STAGECRAFT_PORT",
                "" + port,
                "STAGECRAFT_DB_URL",
                pg.jdbcUrl(),
                "STAGECRAFT_DB_USER",
                pg.user(),
                "STAGECRAFT_DB_PASSWORD",
                pg.password(),
                "STAGECRAFT_SERVICE_TOKEN_PLANNER",
                TOKEN,
                "STAGECRAFT_SERVICE_TOKEN_STATE",
                "bench-state-token"));
    return pb.start();
  }

  /** Nearest-rank percentile of sorted values. */
  private static double pct(double[] sorted, int p) {
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  private static void waitHealthy(HttpClient http, String url, Process service) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (System.nanoTime() < deadline) {
      if (!service.isAlive()) {
        throw new IllegalStateException("lock-service exited with " + service.exitValue());
      }
      try {
        if (http.send(
                    HttpRequest.newBuilder(URI.create(url)).build(),
                    HttpResponse.BodyHandlers.discarding())
                .statusCode()
            == 200) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      Thread.sleep(100); // polling a starting process, with a deadline
    }
    throw new IllegalStateException("lock-service did not become healthy: " + List.of(url));
  }
}
