package dev.stagecraft.devstack;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A real PostgreSQL server (zonky's packaged binaries) with its data in a directory of ours, so
 * data survives a restart. Runs as root by wrapping initdb/postgres in a user namespace (zonky does
 * this itself).
 *
 * <p>Every connection proves a password. zonky's initdb trusts every local connection, and the
 * server listens where a tenant's {@code local-exec} command (sandboxed, but with the host's
 * network) can reach it; so at its first start the {@code postgres} role gets a random password,
 * kept in {@code postgres-password} (0600) beside the data directory, and {@code pg_hba.conf}
 * requires it (SCRAM) for every connection.
 */
public final class EmbeddedPostgresServer implements AutoCloseable {
  static final String PASSWORD_FILE = "postgres-password";

  /** The authentication rules: a SCRAM password for every connection, local or TCP. */
  static final String PASSWORDS_REQUIRED =
      """
      # written by Stagecraft's dev stack: every connection proves the password (SCRAM)
      local all all scram-sha-256
      host all all 0.0.0.0/0 scram-sha-256
      host all all ::/0 scram-sha-256
      """;

  private final EmbeddedPostgres postgres;
  private final String password;

  private EmbeddedPostgresServer(EmbeddedPostgres postgres, String password) {
    this.postgres = postgres;
    this.password = password;
  }

  /**
   * Starts PostgreSQL on {@code dataDir} (initialized on first use, kept afterwards), with the
   * password kept beside it (generated at the first start).
   *
   * @param port the port, or 0 for a free one
   */
  public static EmbeddedPostgresServer start(Path dataDir, int port) throws IOException {
    Files.createDirectories(dataDir.getParent());
    String password = StackFiles.secret(dataDir.getParent().resolve(PASSWORD_FILE));
    EmbeddedPostgres.Builder builder =
        EmbeddedPostgres.builder()
            .setDataDirectory(dataDir)
            .setCleanDataDirectory(false)
            .setConnectConfig("password", password)
            .setOverrideWorkingDirectory(dataDir.getParent().resolve("pg-runtime").toFile());
    if (port != 0) {
      builder.setPort(port);
    }
    EmbeddedPostgres postgres = builder.start();
    try {
      requirePasswords(postgres, dataDir, password);
    } catch (SQLException | IOException e) {
      postgres.close();
      throw new IOException(
          "could not make PostgreSQL in " + dataDir + " require a password: " + e.getMessage(), e);
    }
    return new EmbeddedPostgresServer(postgres, password);
  }

  /** Sets the role's password and the rules requiring it, unless a start did so already. */
  private static void requirePasswords(EmbeddedPostgres postgres, Path dataDir, String password)
      throws SQLException, IOException {
    Path hba = dataDir.resolve("pg_hba.conf");
    if (Files.readString(hba).equals(PASSWORDS_REQUIRED)) {
      return;
    }
    try (Connection c = postgres.getPostgresDatabase().getConnection();
        Statement s = c.createStatement()) {
      // the password is hex (StackFiles.secret): nothing in it needs quoting
      s.execute("ALTER ROLE postgres PASSWORD '" + password + "'");
      Files.writeString(hba, PASSWORDS_REQUIRED);
      s.execute("SELECT pg_reload_conf()");
    }
  }

  public String jdbcUrl() {
    return postgres.getJdbcUrl("postgres", "postgres");
  }

  public String user() {
    return "postgres";
  }

  public String password() {
    return password;
  }

  public int port() {
    return postgres.getPort();
  }

  @Override
  public void close() throws IOException {
    postgres.close();
  }
}
