package dev.stagecraft.benchmarks;

import static dev.stagecraft.benchmarks.StateBench.CPU_PER_OP;
import static dev.stagecraft.benchmarks.StateBench.OUT;
import static dev.stagecraft.benchmarks.StateBench.TENANT;
import static dev.stagecraft.benchmarks.StateBench.interleaved;
import static dev.stagecraft.benchmarks.StateBench.percentile;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.devstack.EmbeddedPostgresServer;
import dev.stagecraft.servicekit.db.Databases;
import dev.stagecraft.state.adapter.db.StateStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.Locale;

/**
 * {@code StateBenchmark openings [N]} (default 2000): {@link StateStore#openRun} — a run opening
 * that advances the workspace's token, with its {@code fencing_advanced} event (ADR 0052) — against
 * the two statements of ADR 0047 that opened a run before (advance the token and store the
 * credential in one statement; read the head and the host keys in a second; the fold then a cache
 * hit), run here as plain SQL on a workspace of their own. Interleaved; every opening takes the
 * next token.
 */
final class StateOpeningsBenchmark {
  private StateOpeningsBenchmark() {}

  static void run(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
    Path dir = Files.createTempDirectory(Path.of("target"), "state-bench-");
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg/data"), 0);
        HikariDataSource ds =
            Databases.migrateAndPool(
                pg.jdbcUrl(), pg.user(), pg.password(), "state", "classpath:db/migration")) {
      StateStore store = new StateStore(ds, Clock.systemUTC());
      int warmUp = Math.max(n / 4, 1_000);
      OUT.printf(
          Locale.ROOT,
          "run opening benchmark: %d openings each, one client, %s%n",
          n,
          pg.jdbcUrl());
      interleaved(
          warmUp,
          i -> openingBefore(ds, "warm-before", i + 1),
          i -> store.openRun(TENANT, "warm-now", i + 1, "run-warm-" + i, "warm-" + i));
      double[][] measured =
          interleaved(
              n,
              i -> openingBefore(ds, "before", i + 1),
              i -> store.openRun(TENANT, "now", i + 1, "run-now-" + i, "now-" + i));
      OUT.println("| case | p50 ms | p99 ms | client CPU ms/op | vs before (p50) |");
      OUT.println("|---|---|---|---|---|");
      for (int k = 0; k < 2; k++) {
        double[] series = measured[k];
        OUT.printf(
            Locale.ROOT,
            "| %s | %.3f | %.2f | %.3f | %.2fx |%n",
            k == 0
                ? "ADR 0047's two statements (no event)"
                : "`StateStore.openRun` (ADR 0052: one statement with the event; the fold)",
            percentile(series, 50) / 1e6,
            percentile(series, 99) / 1e6,
            CPU_PER_OP.getOrDefault(series, Double.NaN) / 1e6,
            percentile(series, 50) / percentile(measured[0], 50));
      }
    } finally {
      StateBench.deleteTree(dir);
    }
  }

  /** A run opening as ADR 0047 made it before ADR 0052: two statements, no event. */
  private static void openingBefore(HikariDataSource ds, String workspace, long token)
      throws SQLException {
    try (Connection c = ds.getConnection()) {
      try (PreparedStatement ps =
          c.prepareStatement(
              "WITH f AS (INSERT INTO state.fencing AS f (tenant, workspace, newest_token)"
                  + " VALUES (?, ?, ?) ON CONFLICT (tenant, workspace)"
                  + " DO UPDATE SET newest_token = excluded.newest_token"
                  + " WHERE f.newest_token <= excluded.newest_token RETURNING f.newest_token),"
                  + " cr AS (INSERT INTO state.run_credentials (tenant, workspace, run_id,"
                  + " fencing_token, created_at)"
                  + " SELECT ?, ?, ?, ?, ? FROM f"
                  + " ON CONFLICT (tenant, workspace, run_id) DO UPDATE SET"
                  + " fencing_token = excluded.fencing_token"
                  + " WHERE state.run_credentials.revoked_at IS NULL RETURNING 1),"
                  + " ch AS (INSERT INTO state.run_credential_hashes (credential_hash, tenant,"
                  + " workspace, run_id, fencing_token, created_at)"
                  + " SELECT ?, ?, ?, ?, ?, ? FROM cr RETURNING 1)"
                  + " SELECT (SELECT count(*) FROM f), (SELECT count(*) FROM ch)")) {
        Timestamp now = Timestamp.from(Instant.now());
        ps.setString(1, TENANT);
        ps.setString(2, workspace);
        ps.setLong(3, token);
        ps.setString(4, TENANT);
        ps.setString(5, workspace);
        ps.setString(6, "run-" + workspace + "-" + token);
        ps.setLong(7, token);
        ps.setTimestamp(8, now);
        ps.setString(9, workspace + "-" + token);
        ps.setString(10, TENANT);
        ps.setString(11, workspace);
        ps.setString(12, "run-" + workspace + "-" + token);
        ps.setLong(13, token);
        ps.setTimestamp(14, now);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          if (rs.getLong(1) != 1 || rs.getLong(2) != 1) {
            throw new IllegalStateException("the opening did not advance");
          }
        }
      }
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT h.head, k.* FROM (SELECT coalesce(max(sequence), 0) AS head"
                  + " FROM state.state_events WHERE tenant = ? AND workspace = ?) h"
                  + " LEFT JOIN LATERAL (SELECT * FROM state.host_keys WHERE tenant = ?"
                  + " AND removed_at IS NULL AND (workspace IS NULL OR workspace = ?)) k ON true")) {
        ps.setString(1, TENANT);
        ps.setString(2, workspace);
        ps.setString(3, TENANT);
        ps.setString(4, workspace);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            rs.getLong(1);
          }
        }
      }
    }
  }
}
