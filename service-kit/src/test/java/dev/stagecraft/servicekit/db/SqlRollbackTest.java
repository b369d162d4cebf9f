package dev.stagecraft.servicekit.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.servicekit.http.DatabaseProblemHandler;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * A rollback on a connection the database broke fails too ("Connection is closed", no SQLState):
 * the failure that ended the transaction must stay the one the caller sees, so that a database
 * restart is a 503 to repeat, not a 500. (Found by the 30-minute chaos soak: runs errored on
 * "lock-service answered 500" during PostgreSQL restarts.)
 */
class SqlRollbackTest {

  @Test
  void aRollbackThatFailsTooKeepsTheFailureThatEndedTheTransaction() {
    SQLException closed = new SQLException("Connection is closed");
    Connection broken =
        (Connection)
            Proxy.newProxyInstance(
                Connection.class.getClassLoader(),
                new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("rollback")) {
                    throw closed;
                  }
                  throw new UnsupportedOperationException(method.getName());
                });
    SQLException terminated =
        new SQLException("FATAL: terminating connection due to administrator command", "57P01");

    Sql.rollbackAfter(broken, terminated);

    assertThat(terminated.getSuppressed()).containsExactly(closed);
    assertThat(new DatabaseProblemHandler().handle(null, terminated).code()).isEqualTo(503);
  }
}
