package dev.stagecraft.servicekit.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class DatabaseWaitTest {
  private static final String URL = "jdbc:postgresql://db.example:5432/stagecraft";
  private final DatabaseWait wait = new DatabaseWait(Duration.ofMillis(300), Duration.ofMillis(1));

  @Test
  void aDatabaseThatComesUpIsWaitedForAndItsConnectionClosed() {
    AtomicInteger attempts = new AtomicInteger();
    AtomicInteger closed = new AtomicInteger();
    wait.until(
        URL,
        () -> {
          if (attempts.incrementAndGet() < 4) {
            throw new SQLException("Connection refused", "08001");
          }
          return connection(closed);
        });
    assertThat(attempts).hasValue(4);
    assertThat(closed).hasValue(1);
  }

  @Test
  void aWrongPasswordEndsTheWaitAtOnceWithTheDriversMessage() {
    AtomicInteger attempts = new AtomicInteger();
    assertThatThrownBy(
            () ->
                wait.until(
                    URL,
                    () -> {
                      attempts.incrementAndGet();
                      throw new SQLException(
                          "password authentication failed for user \"stagecraft\"", "28P01");
                    }))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(URL)
        .hasMessageContaining("password authentication failed");
    assertThat(attempts).hasValue(1);
  }

  @Test
  void aDatabaseThatStaysDownFailsTheStartNamingItAndTheLimit() {
    AtomicInteger attempts = new AtomicInteger();
    assertThatThrownBy(
            () ->
                wait.until(
                    URL,
                    () -> {
                      attempts.incrementAndGet();
                      throw new SQLException("Connection refused", "08001");
                    }))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(URL)
        .hasMessageContaining("could not be reached for 0 s")
        .hasMessageContaining("Connection refused");
    assertThat(attempts.get()).isGreaterThan(1);
  }

  private static Connection connection(AtomicInteger closed) {
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (proxy, method, args) -> {
              if (method.getName().equals("close")) {
                closed.incrementAndGet();
              }
              return null;
            });
  }
}
