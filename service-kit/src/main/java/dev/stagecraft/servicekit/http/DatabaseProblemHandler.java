package dev.stagecraft.servicekit.http;

import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.server.exceptions.ExceptionHandler;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renders an {@link SQLException} that escaped a controller. One that says the database cannot be
 * reached now (a connection failure, SQLState class {@code 08}; a server shutting down or starting,
 * {@code 57P01}–{@code 57P03}; no pooled connection in time) is a {@code 503} with {@code
 * Retry-After} and a problem of type {@link #UNAVAILABLE_TYPE}: the caller may repeat the request
 * once the database is back (the internal commands are idempotent). Any other is a {@code 500}
 * whose detail names no SQL (the exception is logged).
 *
 * <p>Not a bean by itself: a service with a database declares one in its own factory.
 */
@Produces
public class DatabaseProblemHandler
    implements ExceptionHandler<SQLException, HttpResponse<String>> {
  private static final Logger LOG = LoggerFactory.getLogger(DatabaseProblemHandler.class);

  /** The problem type of a 503 for a database that cannot be reached. */
  public static final String UNAVAILABLE_TYPE = Problem.typeFor("Database Unavailable");

  /** Seconds a caller waits before repeating a request refused for an unavailable database. */
  public static final String RETRY_AFTER_SECONDS = "1";

  @Override
  @SuppressWarnings("rawtypes") // ExceptionHandler declares the raw type; an override must match
  public HttpResponse<String> handle(HttpRequest request, SQLException e) {
    if (unavailable(e)) {
      LOG.warn("{}: the database cannot be reached: {}", where(request), e.toString());
      return new Problem(
              UNAVAILABLE_TYPE,
              503,
              "Database Unavailable",
              "the service cannot reach its database now; the request may or may not have taken"
                  + " effect: repeat it after Retry-After",
              null)
          .response()
          .header(HttpHeaders.RETRY_AFTER, RETRY_AFTER_SECONDS);
    }
    LOG.error("{} failed", where(request), e);
    return new Problem(
            500, "Internal Server Error", "the service failed on a database statement; see its log")
        .response();
  }

  private static String where(HttpRequest<?> request) {
    return request == null ? "a request" : request.getMethod() + " " + request.getPath();
  }

  /** Whether {@code e} says the database cannot be reached now (so a later try may succeed). */
  public static boolean unavailable(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLTransientConnectionException) {
        return true;
      }
      if (t instanceof SQLException s && s.getSQLState() != null) {
        String state = s.getSQLState();
        if (state.startsWith("08")
            || state.equals("57P01")
            || state.equals("57P02")
            || state.equals("57P03")) {
          return true;
        }
      }
    }
    return false;
  }
}
