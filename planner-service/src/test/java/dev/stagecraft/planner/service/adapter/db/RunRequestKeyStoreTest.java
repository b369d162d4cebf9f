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

  @Test
  void anApiKeyIsRecordedOnceWithItsRequestDigestUntilItsRetentionPassed() {
    RunRequestKeyStore store = new RunRequestKeyStore(dataSource, clock);
    Instant retainedSince = clock.instant().minusSeconds(3600);

    assertThat(store.findApiKey("acme", "api/prod/k1")).isEmpty();
    assertThat(store.recordApiKey("acme", "api/prod/k1", "run-a", "prod", "d1", retainedSince))
        .isTrue();
    assertThat(store.recordApiKey("acme", "api/prod/k1", "run-b", "prod", "d2", retainedSince))
        .as("a live key is not replaced")
        .isFalse();
    assertThat(store.findApiKey("acme", "api/prod/k1"))
        .contains(new RunRequestKeyStore.ApiKey("run-a", "d1", clock.instant()));
    assertThat(store.findApiKey("globex", "api/prod/k1")).as("per tenant").isEmpty();

    // an hour and a second later, with a one-hour retention, the key may make a new run
    Clock later = Clock.offset(clock, java.time.Duration.ofSeconds(3601));
    RunRequestKeyStore laterStore = new RunRequestKeyStore(dataSource, later);
    assertThat(
            laterStore.recordApiKey(
                "acme", "api/prod/k1", "run-c", "prod", "d3", later.instant().minusSeconds(3600)))
        .isTrue();
    assertThat(laterStore.findApiKey("acme", "api/prod/k1").orElseThrow().runId())
        .isEqualTo("run-c");
  }
}
