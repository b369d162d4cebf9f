package dev.stagecraft.state.application;

import java.sql.Connection;
import java.sql.SQLException;

/** A use case that reaches JDBC: ArchitectureTest shows its rules catch it. Never run. */
public final class JdbcUseCaseOffender {
  boolean open(Connection c) throws SQLException {
    return c.isClosed();
  }
}
