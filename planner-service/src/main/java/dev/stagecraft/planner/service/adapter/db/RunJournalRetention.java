package dev.stagecraft.planner.service.adapter.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes the recorded journals ({@code planner.run_journal}) of runs that ended longer ago than
 * the retention ({@code STAGECRAFT_PLANNER_RUN_LOG_RETENTION}; unset: journals are kept forever and
 * this task does not run). Only journal rows go: the run's row and its transitions stay, so {@code
 * GET /runs/{id}} still answers; its log then has no entries before the synthesized terminal one.
 *
 * <p>A run has ended when its status is terminal; its end is its row's {@code updated_at} (the time
 * of its last transition, which for an ended run is its terminal one). A run that has not ended is
 * never touched, whatever its age: the status is checked in the deleting statement itself. Rows go
 * in batches of {@link #BATCH} (one short transaction each), so the task never holds many row locks
 * or a long transaction beside the runs' own writes.
 *
 * <p>Concurrency: every instance may run the task; deleting the same rows twice changes nothing.
 * One scheduler thread per instance ({@link #start}, {@link #close}).
 */
public final class RunJournalRetention implements AutoCloseable {
  /** Journal rows deleted per transaction. */
  static final int BATCH = 1_000;

  private static final Logger log = LoggerFactory.getLogger(RunJournalRetention.class);

  /**
   * One batch: the journal rows of ended runs whose end is before the cutoff. Its status list is
   * the predicate of the partial index {@code runs_ended} (V1_9), so the old ended runs are found
   * through it rather than by reading every run; keep the two the same.
   */
  static final String DELETE_BATCH =
      "DELETE FROM planner.run_journal WHERE (tenant, run_id, sequence) IN ("
          + " SELECT j.tenant, j.run_id, j.sequence FROM planner.runs r"
          + " JOIN planner.run_journal j ON j.tenant = r.tenant AND j.run_id = r.id"
          + " WHERE r.status IN ('planned_and_finished', 'applied', 'errored', 'canceled',"
          + " 'discarded') AND r.updated_at < ? LIMIT ?)";

  private final DataSource dataSource;
  private final Clock clock;
  private final Duration retention;
  private ScheduledExecutorService scheduler;

  /**
   * @param retention how long a run's journal is kept after the run ended (positive); null: kept
   *     forever ({@link #start} schedules nothing, {@link #purge} deletes nothing)
   */
  public RunJournalRetention(DataSource dataSource, Clock clock, Duration retention) {
    if (retention != null && (retention.isNegative() || retention.isZero())) {
      throw new IllegalArgumentException(
          "the run log retention must be a positive duration, got " + retention);
    }
    this.dataSource = dataSource;
    this.clock = clock;
    this.retention = retention;
  }

  /**
   * Parses {@code STAGECRAFT_PLANNER_RUN_LOG_RETENTION}: blank means keep forever (null); else a
   * positive number with a unit ({@code 30d}, {@code 12h}, {@code 90m}, {@code 45s}) or an ISO-8601
   * duration ({@code P30D}, {@code PT12H}).
   *
   * @throws IllegalArgumentException naming the setting, the value and the accepted forms
   */
  public static Duration parseRetention(String text) {
    if (text == null || text.isBlank()) {
      return null;
    }
    String t = text.strip().toLowerCase(Locale.ROOT);
    Duration d = null;
    try {
      if (t.startsWith("p")) {
        d = Duration.parse(t.toUpperCase(Locale.ROOT));
      } else if (t.matches("[0-9]{1,9}[dhms]")) {
        long n = Long.parseLong(t.substring(0, t.length() - 1));
        d =
            switch (t.charAt(t.length() - 1)) {
              case 'd' -> Duration.ofDays(n);
              case 'h' -> Duration.ofHours(n);
              case 'm' -> Duration.ofMinutes(n);
              default -> Duration.ofSeconds(n);
            };
      }
    } catch (DateTimeParseException e) {
      d = null;
    }
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(
          "STAGECRAFT_PLANNER_RUN_LOG_RETENTION must be a positive duration such as 30d, 12h, 90m"
              + " or P30D (or unset to keep run logs forever), got '"
              + text
              + "'");
    }
    return d;
  }

  /**
   * Deletes the journal rows of runs that ended before {@code now - retention}, in batches, until
   * none is left; returns how many rows went.
   */
  public long purge() throws SQLException {
    if (retention == null) {
      return 0;
    }
    Timestamp cutoff = Timestamp.from(clock.instant().minus(retention));
    long deleted = 0;
    while (true) {
      int n;
      try (Connection c = dataSource.getConnection();
          PreparedStatement ps = c.prepareStatement(DELETE_BATCH)) {
        ps.setTimestamp(1, cutoff);
        ps.setInt(2, BATCH);
        n = ps.executeUpdate(); // autocommit: one transaction per batch
      }
      deleted += n;
      if (n < BATCH) {
        return deleted;
      }
    }
  }

  /** How often the task runs: a tenth of the retention, between a minute and an hour. */
  Duration every() {
    Duration tenth = retention.dividedBy(10);
    if (tenth.compareTo(Duration.ofMinutes(1)) < 0) {
      return Duration.ofMinutes(1);
    }
    return tenth.compareTo(Duration.ofHours(1)) > 0 ? Duration.ofHours(1) : tenth;
  }

  /**
   * Runs {@link #purge} a minute after the start and then {@link #every()}; call once. Without a
   * retention nothing is scheduled.
   */
  public RunJournalRetention start() {
    if (retention == null) {
      log.info("run logs are kept forever (STAGECRAFT_PLANNER_RUN_LOG_RETENTION is not set)");
      return this;
    }
    scheduler =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("run-journal-retention").factory());
    scheduler.scheduleWithFixedDelay(this::purgeLogged, 60, every().toSeconds(), TimeUnit.SECONDS);
    return this;
  }

  private void purgeLogged() {
    try {
      long n = purge();
      if (n > 0) {
        log.info("deleted {} run journal rows of runs that ended more than {} ago", n, retention);
      }
    } catch (SQLException | RuntimeException e) {
      log.warn("could not delete old run journal rows (tried again later): {}", e.getMessage());
    }
  }

  @Override
  public void close() {
    if (scheduler != null) {
      scheduler.shutdownNow();
    }
  }
}
