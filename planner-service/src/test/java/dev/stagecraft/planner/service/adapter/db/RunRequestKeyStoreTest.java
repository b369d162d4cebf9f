package dev.stagecraft.planner.service.adapter.db;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
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
  PlannerTestDatabase database;
  HikariDataSource dataSource;

  @BeforeAll
  void startDatabase() throws Exception {
    database = PlannerTestDatabase.start("run-request-keys-");
    dataSource = database.dataSource();
  }

  @AfterAll
  void stopDatabase() throws Exception {
    if (database != null) {
      database.close();
    }
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
