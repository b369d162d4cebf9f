package dev.stagecraft.servicekit.db;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.devstack.EmbeddedPostgresServer;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/**
 * The service's plpgsql functions live in Flyway repeatable migrations, one {@code
 * R__<function>.sql} per function (ADR 0068), beside the versioned migrations that first created
 * (and restated) them, which stay as they were applied. Checked here: every function a versioned
 * migration creates has its file; a database already at the newest versioned migration accepts the
 * repeatable ones and ends with the very same function definitions (the files hold the current
 * definitions); a fresh database (versioned, then repeatable) ends with them too. A function a
 * later versioned migration drops needs no file. Each service runs it as its {@code
 * RepeatableMigrationTest}, naming its schema.
 */
public abstract class RepeatableMigrationContract {
  /**
   * The service's schema, whose migrations are on the test's class path at {@code db/migration}.
   */
  protected abstract String schema();

  private static final Pattern CREATE_FUNCTION =
      Pattern.compile("CREATE (?:OR REPLACE )?FUNCTION (\\w+)\\.(\\w+)\\(");
  private static final Pattern DROP_FUNCTION =
      Pattern.compile("DROP FUNCTION (?:IF EXISTS )?(\\w+)\\.(\\w+)");

  @Test
  public void everyFunctionHasOneRepeatableMigrationNamedAfterIt() throws Exception {
    Path dir = migrations();
    TreeMap<String, String> created = new TreeMap<>();
    for (Path v : files(dir, "V")) {
      for (String name : functions(Files.readString(v))) {
        created.put(name, v.getFileName().toString());
      }
    }
    for (Path v : files(dir, "V")) { // a function a later migration drops has no current definition
      Matcher dropped = DROP_FUNCTION.matcher(Files.readString(v));
      while (dropped.find()) {
        created.remove(dropped.group(2));
      }
    }
    assertThat(created).isNotEmpty();
    TreeMap<String, List<String>> repeatable = new TreeMap<>();
    for (Path r : files(dir, "R__")) {
      String file = r.getFileName().toString();
      repeatable.put(
          file.substring("R__".length(), file.length() - ".sql".length()),
          functions(Files.readString(r)));
    }
    assertThat(repeatable.keySet()).containsExactlyElementsOf(created.keySet());
    repeatable.forEach(
        (name, defined) ->
            assertThat(defined).as("R__" + name + ".sql defines").containsExactly(name));
    for (Path r : files(dir, "R__")) {
      assertThat(Files.readString(r))
          .as(r.getFileName() + " replaces, never creates only")
          .doesNotContainPattern("(?m)^CREATE FUNCTION");
    }
  }

  @Test
  public void aDatabaseAtTheNewestVersionAcceptsTheRepeatableMigrationsUnchanged()
      throws Exception {
    Path dir = Files.createTempDirectory("repeatable-migrations");
    try (EmbeddedPostgresServer postgres =
        EmbeddedPostgresServer.start(dir.resolve("pg").resolve("data"), 0)) {
      String existing = database(postgres, "existing");
      String fresh = database(postgres, "fresh");
      // an existing database: migrated by a build that had only the versioned migrations
      Path versionedOnly = Files.createDirectories(dir.resolve("versioned"));
      for (Path v : files(migrations(), "V")) {
        Files.copy(v, versionedOnly.resolve(v.getFileName()));
      }
      Flyway.configure()
          .dataSource(existing, postgres.user(), postgres.password())
          .schemas(schema())
          .locations("filesystem:" + versionedOnly)
          .load()
          .migrate();
      Map<String, String> before = definitions(existing, postgres);
      assertThat(before).hasSize(files(migrations(), "R__").size());

      try (HikariDataSource upgraded =
              Databases.migrateAndPool(
                  existing,
                  postgres.user(),
                  postgres.password(),
                  schema(),
                  "classpath:db/migration");
          Connection c = upgraded.getConnection();
          Statement s = c.createStatement();
          ResultSet rs =
              s.executeQuery(
                  "SELECT script, success FROM "
                      + schema()
                      + ".flyway_schema_history WHERE version IS NULL AND type = 'SQL' ORDER BY script")) {
        TreeMap<String, Boolean> applied = new TreeMap<>();
        while (rs.next()) {
          applied.put(rs.getString(1), rs.getBoolean(2));
        }
        assertThat(applied.keySet())
            .containsExactlyElementsOf(
                files(migrations(), "R__").stream().map(p -> p.getFileName().toString()).toList());
        assertThat(applied.values()).containsOnly(true);
      }
      assertThat(definitions(existing, postgres)).isEqualTo(before);

      try (HikariDataSource created =
          Databases.migrateAndPool(
              fresh, postgres.user(), postgres.password(), schema(), "classpath:db/migration")) {
        assertThat(definitions(fresh, postgres)).isEqualTo(before);
      }
    } finally {
      try (Stream<Path> paths = Files.walk(dir)) {
        paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /** Creates a database named {@code name} on the server; its JDBC URL. */
  private static String database(EmbeddedPostgresServer postgres, String name) throws SQLException {
    try (Connection c =
            DriverManager.getConnection(postgres.jdbcUrl(), postgres.user(), postgres.password());
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    }
    return postgres.jdbcUrl().replaceFirst("/postgres\\?", "/" + name + "?");
  }

  /** Every function of the schema: its signature → its definition as the server prints it. */
  private Map<String, String> definitions(String url, EmbeddedPostgresServer postgres)
      throws SQLException {
    Map<String, String> out = new TreeMap<>();
    try (Connection c = DriverManager.getConnection(url, postgres.user(), postgres.password());
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT p.oid::regprocedure::text, pg_get_functiondef(p.oid) FROM pg_proc p"
                    + " JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = '"
                    + schema()
                    + "'")) {
      while (rs.next()) {
        out.put(rs.getString(1), rs.getString(2));
      }
    }
    return out;
  }

  private List<String> functions(String sql) {
    Matcher m = CREATE_FUNCTION.matcher(sql);
    List<String> names = new ArrayList<>();
    while (m.find()) {
      assertThat(m.group(1)).isEqualTo(schema());
      names.add(m.group(2));
    }
    return names;
  }

  private static Path migrations() throws URISyntaxException {
    return Path.of(
        Objects.requireNonNull(
                RepeatableMigrationContract.class.getClassLoader().getResource("db/migration"))
            .toURI());
  }

  /** The migration files whose names start with {@code prefix}, by name. */
  private static List<Path> files(Path dir, String prefix) throws IOException {
    try (Stream<Path> list = Files.list(dir)) {
      return list.filter(p -> p.getFileName().toString().startsWith(prefix))
          .filter(p -> p.getFileName().toString().endsWith(".sql"))
          .sorted()
          .toList();
    }
  }
}
