package dev.stagecraft.devstack;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A real PostgreSQL server (zonky's packaged binaries) with its data in a directory of ours, so
 * data survives a restart. Runs as root by wrapping initdb/postgres in a user namespace (zonky does
 * this itself).
 */
public final class EmbeddedPostgresServer implements AutoCloseable {
  private final EmbeddedPostgres postgres;

  private EmbeddedPostgresServer(EmbeddedPostgres postgres) {
    this.postgres = postgres;
  }

  /**
   * Starts PostgreSQL on {@code dataDir} (initialized on first use, kept afterwards).
   *
   * @param port the port, or 0 for a free one
   */
  public static EmbeddedPostgresServer start(Path dataDir, int port) throws IOException {
    Files.createDirectories(dataDir.getParent());
    EmbeddedPostgres.Builder builder =
        EmbeddedPostgres.builder()
            .setDataDirectory(dataDir)
            .setCleanDataDirectory(false)
            .setOverrideWorkingDirectory(dataDir.getParent().resolve("pg-runtime").toFile());
    if (port != 0) {
      builder.setPort(port);
    }
    return new EmbeddedPostgresServer(builder.start());
  }

  public String jdbcUrl() {
    return postgres.getJdbcUrl("postgres", "postgres");
  }

  public String user() {
    return "postgres";
  }

  public String password() {
    return "postgres";
  }

  public int port() {
    return postgres.getPort();
  }

  @Override
  public void close() throws IOException {
    postgres.close();
  }
}
