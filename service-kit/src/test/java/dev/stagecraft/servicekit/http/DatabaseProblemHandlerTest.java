package dev.stagecraft.servicekit.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.micronaut.http.HttpResponse;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;

class DatabaseProblemHandlerTest {
  private final DatabaseProblemHandler handler = new DatabaseProblemHandler();

  @Test
  void aDatabaseThatCannotBeReachedIsA503ToRepeat() {
    for (SQLException e :
        new SQLException[] {
          new SQLException("connection refused", "08001"),
          new SQLException("terminating connection due to administrator command", "57P01"),
          new SQLException("the database system is starting up", "57P03"),
          new SQLTransientConnectionException("lock - Connection is not available"),
          new SQLException("wrapped", null, new SQLException("I/O error", "08006"))
        }) {
      HttpResponse<String> r = handler.handle(null, e);
      assertThat(r.code()).as(e.getMessage()).isEqualTo(503);
      assertThat(r.getHeaders().get("Retry-After")).isEqualTo("1");
      assertThat(r.body()).contains("database-unavailable").contains("repeat it");
    }
  }

  @Test
  void anyOtherDatabaseFailureIsA500ThatNamesNoSql() {
    HttpResponse<String> r =
        handler.handle(
            null, new SQLException("duplicate key value violates unique constraint", "23505"));
    assertThat(r.code()).isEqualTo(500);
    assertThat(r.body()).doesNotContain("duplicate key").contains("see its log");
  }
}
