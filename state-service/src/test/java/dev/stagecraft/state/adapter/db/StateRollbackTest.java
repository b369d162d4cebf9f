package dev.stagecraft.state.adapter.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.stagecraft.servicekit.http.DatabaseProblemHandler;
import dev.stagecraft.state.history.StateEvent;
import java.io.PrintWriter;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * A write whose connection the database broke (PostgreSQL restarted: 57P01) fails, and so does its
 * rollback ("Connection is closed", no SQLState). The caller must see the failure that ended the
 * transaction, a 503 to repeat, not the rollback's, a 500 (the state service's write paths, as the
 * lock service's {@code LockStore}: {@code Sql.rollbackAfter}).
 */
class StateRollbackTest {
  private static final SQLException CLOSED = new SQLException("Connection is closed");

  @Test
  void aWriteOnABrokenConnectionFailsWithTheDatabasesFailureNotTheRollbacks() {
    StateStore store = new StateStore(brokenDatabase(), Clock.systemUTC());

    SQLException taint =
        catchThrowableOfType(
            SQLException.class,
            () ->
                Histories.changes(store)
                    .changeTaint("acme", "prod", "null_resource.a", true, 1, "alice"));
    SQLException forceUnlock =
        catchThrowableOfType(
            SQLException.class,
            () ->
                Histories.changes(store)
                    .recordForceUnlock(
                        "acme",
                        "prod",
                        new StateEvent.LockForceUnlocked("lock-1", "run-1", 1, "stuck"),
                        "alice"));

    for (SQLException failure : new SQLException[] {taint, forceUnlock}) {
      assertThat(failure.getSQLState()).isEqualTo("57P01");
      assertThat(failure.getSuppressed()).containsExactly(CLOSED);
      assertThat(new DatabaseProblemHandler().handle(null, failure).code()).isEqualTo(503);
    }
  }

  @Test
  void mintingACredentialOnABrokenConnectionFailsWithTheDatabasesFailure() {
    RunCredentialStore store = new RunCredentialStore(brokenDatabase(), Clock.systemUTC());

    SQLException failure =
        catchThrowableOfType(SQLException.class, () -> store.mint("acme", "prod", "run-1", 1));

    assertThat(failure.getSQLState()).isEqualTo("57P01");
    assertThat(failure.getSuppressed()).containsExactly(CLOSED);
    assertThat(new DatabaseProblemHandler().handle(null, failure).code()).isEqualTo(503);
  }

  /**
   * A data source whose connections begin a transaction, then fail every statement as a restarted
   * PostgreSQL does and fail the rollback as a closed connection does.
   */
  private static DataSource brokenDatabase() {
    Connection broken =
        (Connection)
            Proxy.newProxyInstance(
                Connection.class.getClassLoader(),
                new Class<?>[] {Connection.class},
                (proxy, method, args) ->
                    switch (method.getName()) {
                      case "setAutoCommit", "close" -> null;
                      case "getAutoCommit" -> false;
                      case "isClosed" -> false;
                      case "rollback" -> throw CLOSED;
                      case "prepareStatement", "prepareCall", "createStatement" ->
                          throw new SQLException(
                              "FATAL: terminating connection due to administrator command",
                              "57P01");
                      default -> throw new UnsupportedOperationException(method.getName());
                    });
    return (DataSource)
        Proxy.newProxyInstance(
            DataSource.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) ->
                switch (method.getName()) {
                  case "getConnection" -> broken;
                  case "getLogWriter" -> new PrintWriter(System.err);
                  case "getParentLogger" -> Logger.getGlobal();
                  default -> throw new UnsupportedOperationException(method.getName());
                });
  }
}
