package dev.stagecraft.planner.service.adapter.db;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.devstack.EmbeddedPostgresServer;
import dev.stagecraft.planner.service.run.UploadedFiles;
import dev.stagecraft.servicekit.db.Databases;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Idempotency keys of run triggers in a real PostgreSQL (schema "planner", migrated by Flyway). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RunRequestKeyStoreTest {
  final Clock clock = Clock.fixed(Instant.parse("2026-11-21T10:00:00Z"), ZoneOffset.UTC);
  Path dir;
  EmbeddedPostgresServer postgres;
  HikariDataSource dataSource;

  @BeforeAll
  void startDatabase() throws Exception {
    dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "run-request-keys-");
    postgres = EmbeddedPostgresServer.start(dir.resolve("pg"), 0);
    dataSource =
        Databases.migrateAndPool(
            postgres.jdbcUrl(),
            postgres.user(),
            postgres.password(),
            "planner",
            "classpath:db/migration");
  }

  @AfterAll
  void stopDatabase() throws Exception {
    if (dataSource != null) {
      dataSource.close();
    }
    if (postgres != null) {
      postgres.close();
    }
    UploadedFiles.delete(dir);
  }

  @Test
  void theFirstRecordOfAKeyWinsAndOutlivesTheStoreThatWroteIt() {
    RunRequestKeyStore one = new RunRequestKeyStore(dataSource, clock);
    RunRequestKeyStore other = new RunRequestKeyStore(dataSource, clock); // another instance

    assertThat(one.runFor("acme", "k1")).isEmpty();
    assertThat(one.record("acme", "k1", "run-a", "prod")).isTrue();
    assertThat(other.record("acme", "k1", "run-a", "prod")).as("second writer loses").isFalse();
    assertThat(other.record("acme", "k1", "run-b", "prod")).isFalse();

    RunRequestKeyStore restarted = new RunRequestKeyStore(dataSource, clock);
    assertThat(restarted.runFor("acme", "k1")).contains("run-a");
    assertThat(restarted.runFor("globex", "k1")).as("keys are per tenant").isEmpty();
    assertThat(restarted.record("globex", "k1", "run-c", "prod")).isTrue();
  }
}
