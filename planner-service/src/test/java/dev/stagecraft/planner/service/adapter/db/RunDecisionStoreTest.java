package dev.stagecraft.planner.service.adapter.db;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.planner.service.trigger.RunTrigger;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The chat-ops decisions taken (docs/adr/0055) in a real PostgreSQL (schema "planner", migrated by
 * Flyway): found by tenant, source and event id from any store, the first record kept, old ones
 * pruned.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RunDecisionStoreTest {
  PlannerTestDatabase database;
  HikariDataSource dataSource;

  @BeforeAll
  void startDatabase() throws Exception {
    database = PlannerTestDatabase.start("run-decisions-");
    dataSource = database.dataSource();
  }

  @AfterAll
  void stopDatabase() throws Exception {
    if (database != null) {
      database.close();
    }
  }

  static Clock at(String instant) {
    return Clock.fixed(Instant.parse(instant), ZoneOffset.UTC);
  }

  @Test
  void aDecisionIsFoundByAnotherInstanceByTenantSourceAndEventIdAndItsFirstRecordStays() {
    RunDecisionStore one = new RunDecisionStore(dataSource, at("2026-11-29T10:00:00Z"));
    RunDecisionStore other = new RunDecisionStore(dataSource, at("2026-11-29T10:00:00Z"));
    RunTrigger.Decided approved =
        new RunTrigger.Decided("acme", "evt-1", "run-a", "approve", "applying", "ship it");

    assertThat(other.find("acme", "/bots/slack", "evt-1")).isEmpty();
    one.record("/bots/slack", approved);
    other.record(
        "/bots/slack",
        new RunTrigger.Decided("acme", "evt-1", "run-a", "discard", "discarded", null));

    assertThat(other.find("acme", "/bots/slack", "evt-1")).contains(approved);
    assertThat(other.find("globex", "/bots/slack", "evt-1")).as("per tenant").isEmpty();
    assertThat(other.find("acme", "/bots/teams", "evt-1")).as("per source").isEmpty();
  }

  @Test
  void decisionsOlderThanTheRetentionArePrunedByALaterRecord() {
    Instant then = Instant.parse("2026-10-01T10:00:00Z");
    new RunDecisionStore(dataSource, Clock.fixed(then, ZoneOffset.UTC))
        .record(
            "/bots/slack", new RunTrigger.Decided("acme", "old", "run-o", "discard", null, null));
    RunDecisionStore later =
        new RunDecisionStore(
            dataSource,
            Clock.fixed(then.plus(RunDecisionStore.RETENTION).plusSeconds(60), ZoneOffset.UTC));
    RunDecisionStore recent =
        new RunDecisionStore(
            dataSource,
            Clock.fixed(
                then.plus(RunDecisionStore.RETENTION).minus(Duration.ofDays(1)), ZoneOffset.UTC));
    recent.record(
        "/bots/slack", new RunTrigger.Decided("acme", "recent", "run-r", "discard", null, null));
    assertThat(later.find("acme", "/bots/slack", "old")).as("not pruned yet").isPresent();

    later.record(
        "/bots/slack", new RunTrigger.Decided("acme", "new", "run-n", "discard", null, null));

    assertThat(later.find("acme", "/bots/slack", "old")).isEmpty();
    assertThat(later.find("acme", "/bots/slack", "recent")).isPresent();
    assertThat(later.find("acme", "/bots/slack", "new")).isPresent();
  }
}
