package dev.stagecraft.benchmarks;

import dev.stagecraft.devstack.EmbeddedPostgresServer;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Lock + unlock cycle through the lock service (HTTP acquire, HTTP release; each a PostgreSQL
 * transaction under the workspace's row lock) against a raw {@code pg_advisory_lock} / {@code
 * pg_advisory_unlock} pair on the same embedded PostgreSQL, one client, in the same run. The lock
 * service runs as its own process from {@code lock-service/target/lock-service-app.jar}, as in the
 * dev stack. Prints p50 / p99 of each and the ratio (docs/benchmarks.md).
 *
 * <p>Usage: {@code dev/bench locks [CYCLES]} (default 2000 measured cycles after 300 warm-up).
 */
public final class LockBenchmark {
  private static final String TOKEN = "bench-service-token";
  private static final Pattern LOCK_ID = Pattern.compile("\"lockId\"\\s*:\\s*\"([^\"]+)\"");

  private LockBenchmark() {}

  public static void main(String[] args) throws Exception {
    int cycles = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
    int warmup = 300;
    Path root = Path.of("").toAbsolutePath();
    Path repo = Files.exists(root.resolve("lock-service")) ? root : root.getParent();
    Path jar = repo.resolve("lock-service/target/lock-service-app.jar");
    Path dir = Files.createTempDirectory(root.resolve("target"), "lock-bench-");
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg"), 0)) {
      int port;
      try (ServerSocket s = new ServerSocket(0)) {
        port = s.getLocalPort();
      }
      ProcessBuilder pb =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-Xmx256m",
                  "-jar",
                  jar.toString())
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("lock-service.log").toFile());
      pb.environment()
          .putAll(
              java.util.Map.of(
                  "STAGECRAFT_PORT", "" + port,
                  "STAGECRAFT_DB_URL", pg.jdbcUrl(),
                  "STAGECRAFT_DB_USER", pg.user(),
                  "STAGECRAFT_DB_PASSWORD", pg.password(),
                  "STAGECRAFT_SERVICE_TOKEN", TOKEN));
      Process service = pb.start();
      try {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        String base = "http://127.0.0.1:" + port;
        waitHealthy(http, base + "/health", service);
        String lockUrl = base + "/internal/v1/tenants/bench/workspaces/ws/lock";
        HttpRequest acquire =
            HttpRequest.newBuilder(URI.create(lockUrl))
                .header("Authorization", "Bearer " + TOKEN)
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"holder\":\"bench\",\"leaseSeconds\":30}"))
                .build();
        Cycle viaService =
            () -> {
              HttpResponse<String> a = http.send(acquire, HttpResponse.BodyHandlers.ofString());
              Matcher m = LOCK_ID.matcher(a.body());
              if (a.statusCode() != 200 || !m.find()) {
                throw new IllegalStateException("acquire failed: " + a.statusCode() + a.body());
              }
              HttpResponse<String> r =
                  http.send(
                      HttpRequest.newBuilder(URI.create(lockUrl + "/" + m.group(1)))
                          .header("Authorization", "Bearer " + TOKEN)
                          .DELETE()
                          .build(),
                      HttpResponse.BodyHandlers.ofString());
              if (r.statusCode() != 200) {
                throw new IllegalStateException("release failed: " + r.statusCode());
              }
            };
        try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), pg.user(), pg.password());
            PreparedStatement lock = c.prepareStatement("SELECT pg_advisory_lock(42)");
            PreparedStatement unlock = c.prepareStatement("SELECT pg_advisory_unlock(42)")) {
          Cycle raw =
              () -> {
                lock.executeQuery().close();
                unlock.executeQuery().close();
              };
          double[] service1 = measure(viaService, warmup, cycles);
          double[] raw1 = measure(raw, warmup, cycles);
          System.out.printf(
              Locale.ROOT,
              "lock+unlock, %d cycles after %d warm-up, one client%n"
                  + "| | p50 | p99 |%n|---|---|---|%n"
                  + "| lock-service (HTTP acquire + release) | %.2f ms | %.2f ms |%n"
                  + "| pg_advisory_lock + pg_advisory_unlock | %.2f ms | %.2f ms |%n"
                  + "| ratio | %.1fx | %.1fx |%n",
              cycles,
              warmup,
              pct(service1, 50),
              pct(service1, 99),
              pct(raw1, 50),
              pct(raw1, 99),
              pct(service1, 50) / pct(raw1, 50),
              pct(service1, 99) / pct(raw1, 99));
        }
      } finally {
        service.destroy();
        service.waitFor();
      }
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
      } catch (java.io.IOException notYet) {
        // not listening yet
      }
      Thread.sleep(100); // polling a starting process, with a deadline
    }
    throw new IllegalStateException("lock-service did not become healthy: " + List.of(url));
  }
}
