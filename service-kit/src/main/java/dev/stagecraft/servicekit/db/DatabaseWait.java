package dev.stagecraft.servicekit.db;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waits at a service's start for a database that cannot be reached yet (it is starting, or
 * restarting under the service): a service started again while its PostgreSQL is down comes up when
 * the database does instead of exiting. Only a connection failure (SQLState class {@code 08}) is
 * waited out; any other answer — a wrong password, a missing database — ends the wait at once,
 * since waiting would not change it.
 */
final class DatabaseWait {
  private static final Logger log = LoggerFactory.getLogger(DatabaseWait.class);

  /** Opens one connection to the database, or fails with the driver's error. */
  interface Connector {
    Connection connect() throws SQLException;
  }

  private final Duration limit;
  private final Duration pause;

  DatabaseWait(Duration limit, Duration pause) {
    this.limit = limit;
    this.pause = pause;
  }

  /**
   * Returns once a connection opened (and closed it), or throws.
   *
   * @throws IllegalStateException naming the database and the limit when it stayed unreachable for
   *     longer than the limit, or with the driver's message when it answered with an error that is
   *     not a connection failure
   */
  void until(String url, Connector connector) {
    long deadline = System.nanoTime() + limit.toNanos();
    int attempt = 0;
    while (true) {
      attempt++;
      try (Connection ignored = connector.connect()) {
        if (attempt > 1) {
          log.info("database {} reachable after {} attempts", url, attempt);
        }
        return;
      } catch (SQLException e) {
        if (!unreachable(e)) {
          throw new IllegalStateException(
              "database " + url + " refused the connection: " + e.getMessage(), e);
        }
        if (System.nanoTime() - deadline >= 0) {
          throw new IllegalStateException(
              "database "
                  + url
                  + " could not be reached for "
                  + limit.toSeconds()
                  + " s ("
                  + e.getMessage()
                  + "): start it, or check the URL",
              e);
        }
        log.warn(
            "database {} cannot be reached yet (attempt {}: {}); trying again in {} ms",
            url,
            attempt,
            e.getMessage(),
            pause.toMillis());
      }
      try {
        Thread.sleep(pause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for database " + url, e);
      }
    }
  }

  /** A connection failure (SQLState class 08): nothing answered, so trying again may help. */
  private static boolean unreachable(SQLException e) {
    String state = e.getSQLState();
    return state != null && state.startsWith("08");
  }
}
