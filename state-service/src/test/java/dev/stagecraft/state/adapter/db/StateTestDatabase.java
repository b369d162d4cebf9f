package dev.stagecraft.state.adapter.db;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.devstack.EmbeddedPostgresServer;
import dev.stagecraft.servicekit.db.Databases;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A real PostgreSQL in a new temporary directory, with the state service's schema ({@code state})
 * migrated by Flyway and a connection pool on it: the database the store tests share. Start it in a
 * {@code @BeforeAll} and close it in the {@code @AfterAll}.
 */
final class StateTestDatabase implements AutoCloseable {
  private final Path dir;
  private EmbeddedPostgresServer postgres;
  private HikariDataSource dataSource;

  private StateTestDatabase(Path dir) {
    this.dir = dir;
  }

  /**
   * Starts the server in a new directory whose name begins with {@code dirPrefix} and migrates the
   * schema; on failure, what was started is stopped and the directory deleted.
   */
  static StateTestDatabase start(String dirPrefix) throws Exception {
    StateTestDatabase database = new StateTestDatabase(Files.createTempDirectory(dirPrefix));
    try {
      database.postgres =
          EmbeddedPostgresServer.start(database.dir.resolve("pg").resolve("data"), 0);
      database.dataSource =
          Databases.migrateAndPool(
              database.postgres.jdbcUrl(),
              database.postgres.user(),
              database.postgres.password(),
              "state",
              "classpath:db/migration");
      return database;
    } catch (Exception | Error e) {
      database.close();
      throw e;
    }
  }

  /** The pool on the migrated database; closed by {@link #close()}. */
  HikariDataSource dataSource() {
    return dataSource;
  }

  /** Closes the pool, stops the server and deletes its directory. */
  @Override
  public void close() throws IOException {
    if (dataSource != null) {
      dataSource.close();
    }
    if (postgres != null) {
      postgres.close();
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
