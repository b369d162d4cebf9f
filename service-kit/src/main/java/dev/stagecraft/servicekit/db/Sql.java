package dev.stagecraft.servicekit.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Instant;

/**
 * Prepared statements with their parameters bound by position: a {@link String}, {@link Long} or
 * {@link Integer} as itself, an {@link Instant} as a {@link Timestamp}, and {@code null} as an
 * untyped SQL NULL (the database takes the type from the column or expression). Any other type is a
 * bug and fails before the statement runs.
 */
public final class Sql {
  private Sql() {}

  /**
   * Rolls {@code c} back after {@code failure} ended its transaction. A rollback that fails too
   * (the connection broke: the database restarted, the pool closed it) is added to {@code failure}
   * as suppressed, so the caller rethrows the failure that says what went wrong (a connection
   * failure, SQLState class {@code 08} or {@code 57P01}, a 503 for the caller) rather than the
   * rollback's "connection is closed".
   */
  public static void rollbackAfter(Connection c, Throwable failure) {
    try {
      c.rollback();
    } catch (SQLException | RuntimeException rollback) {
      failure.addSuppressed(rollback);
    }
  }

  /** Runs an INSERT, UPDATE or DELETE on {@code c} and returns the number of rows it touched. */
  public static int update(Connection c, String sql, Object... parameters) throws SQLException {
    try (PreparedStatement ps = prepare(c, sql, parameters)) {
      return ps.executeUpdate();
    }
  }

  /**
   * Runs a query that answers exactly one row and returns its first column as a {@code long}.
   *
   * @throws SQLException also when the query answers no row
   */
  public static long queryLong(Connection c, String sql, Object... parameters) throws SQLException {
    try (PreparedStatement ps = prepare(c, sql, parameters);
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        throw new SQLException("no row from: " + sql);
      }
      return rs.getLong(1);
    }
  }

  /** A statement on {@code c} with {@code parameters} bound; closing it is the caller's. */
  public static PreparedStatement prepare(Connection c, String sql, Object... parameters)
      throws SQLException {
    PreparedStatement ps = c.prepareStatement(sql);
    try {
      for (int i = 0; i < parameters.length; i++) {
        bind(ps, i + 1, parameters[i]);
      }
      return ps;
    } catch (SQLException | RuntimeException e) {
      ps.close();
      throw e;
    }
  }

  private static void bind(PreparedStatement ps, int index, Object value) throws SQLException {
    switch (value) {
      case null -> ps.setNull(index, Types.NULL);
      case String s -> ps.setString(index, s);
      case Long l -> ps.setLong(index, l);
      case Integer n -> ps.setInt(index, n);
      case Instant t -> ps.setTimestamp(index, Timestamp.from(t));
      default ->
          throw new IllegalArgumentException(
              "parameter " + index + " has unsupported type " + value.getClass().getName());
    }
  }
}
