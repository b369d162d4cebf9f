package dev.stagecraft.planner.service.adapter.db;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.devstack.EmbeddedPostgresServer;
import dev.stagecraft.planner.service.run.UploadedFiles;
import dev.stagecraft.servicekit.db.Databases;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A real PostgreSQL in a new directory under {@code target/}, with the planner's schema ({@code
 * planner}) migrated by Flyway and a connection pool on it: the database the planner's store tests
 * share. Public only because tests in other packages use it. Start it in a {@code @BeforeAll} and
 * close it in the {@code @AfterAll}.
 */
public final class PlannerTestDatabase implements AutoCloseable {
  private final Path dir;
  private final EmbeddedPostgresServer postgres;
  private final HikariDataSource dataSource;

  private PlannerTestDatabase(Path dir, EmbeddedPostgresServer postgres, HikariDataSource pool) {
    this.dir = dir;
    this.postgres = postgres;
    this.dataSource = pool;
  }

  /**
   * Starts the server in a new directory whose name begins with {@code dirPrefix} and migrates the
   * schema; on failure, what was started is stopped and the directory deleted.
   */
  public static PlannerTestDatabase start(String dirPrefix) throws Exception {
    Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), dirPrefix);
    try {
      EmbeddedPostgresServer postgres = EmbeddedPostgresServer.start(dir.resolve("pg"), 0);
      try {
        return new PlannerTestDatabase(
            dir,
            postgres,
            Databases.migrateAndPool(
                postgres.jdbcUrl(),
                postgres.user(),
                postgres.password(),
                "planner",
                "classpath:db/migration"));
      } catch (Exception | Error e) {
        postgres.close();
        throw e;
      }
    } catch (Exception | Error e) {
      UploadedFiles.delete(dir);
      throw e;
    }
  }

  /** The pool on the migrated database; closed by {@link #close()}. */
  public HikariDataSource dataSource() {
    return dataSource;
  }

  /** Closes the pool, stops the server and deletes its directory. */
  @Override
  public void close() throws IOException {
    dataSource.close();
    postgres.close();
    UploadedFiles.delete(dir);
  }
}
