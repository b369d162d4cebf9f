package dev.stagecraft.planner.service.adapter.db;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.planner.service.run.IdempotencyKeys;
import dev.stagecraft.servicekit.db.Sql;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
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

  /**
   * The soak's lost trigger (issue 30, seed 9): a planner recorded a trigger's key and halted
   * before the run's first record; the redelivered trigger found the key and started nothing. Now
   * the key names the incarnation that recorded it, and a redelivery takes it over once that
   * incarnation is dead — exactly one taker — while a live recorder is waited for.
   */
  @Test
  void aKeyWhoseRecorderDiedBeforeTheRunsFirstRecordIsTakenOverByOneInstance() throws Exception {
    InstanceStore instances = new InstanceStore(dataSource);
    Duration lease = Duration.ofMinutes(5);
    instances.register("planner-b", "b-1", lease);
    instances.register("planner-a", "a-1", lease);
    instances.register("planner-c", "c-1", lease);
    RunRequestKeyStore b = new RunRequestKeyStore(dataSource, clock, "planner-b", "b-1");
    RunRequestKeyStore a = new RunRequestKeyStore(dataSource, clock, "planner-a", "a-1");
    RunRequestKeyStore c = new RunRequestKeyStore(dataSource, clock, "planner-c", "c-1");
    assertThat(b.record("acme", "lost", "run-lost", "prod")).isTrue();

    // planner-b lives: its first record is on its way, the others wait for it
    assertThat(a.claimUnrecorded("acme", "lost")).isEqualTo(IdempotencyKeys.Claim.NOT_YET);
    assertThat(b.claimUnrecorded("acme", "lost"))
        .as("its own key: it launched that run")
        .isEqualTo(IdempotencyKeys.Claim.RECORDED);

    // planner-b halted and was started again: the incarnation that recorded the key is dead
    instances.register("planner-b", "b-2", lease);
    assertThat(a.claimUnrecorded("acme", "lost")).isEqualTo(IdempotencyKeys.Claim.TAKEN_OVER);
    assertThat(c.claimUnrecorded("acme", "lost"))
        .as("a second taker finds the first alive")
        .isEqualTo(IdempotencyKeys.Claim.NOT_YET);
    assertThat(a.claimUnrecorded("acme", "lost")).isEqualTo(IdempotencyKeys.Claim.RECORDED);
    assertThat(a.runFor("acme", "lost")).contains("run-lost");

    // once the run has its record, every instance sees a duplicate, whoever recorded the key
    try (Connection conn = dataSource.getConnection()) {
      Sql.update(
          conn,
          "INSERT INTO planner.runs (tenant, id, workspace, status, created_at, updated_at,"
              + " instance_id, last_sequence) VALUES ('acme', 'run-lost', 'prod', 'pending',"
              + " now(), now(), 'planner-a', 1)");
    }
    instances.register("planner-a", "a-2", lease); // even with its recorder dead
    assertThat(c.claimUnrecorded("acme", "lost")).isEqualTo(IdempotencyKeys.Claim.RECORDED);
    assertThat(new RunRequestKeyStore(dataSource, clock).claimUnrecorded("acme", "lost"))
        .as("a store that records no recorder takes nothing over")
        .isEqualTo(IdempotencyKeys.Claim.RECORDED);
  }
}
