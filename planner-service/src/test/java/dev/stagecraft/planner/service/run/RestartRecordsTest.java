package dev.stagecraft.planner.service.run;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.planner.service.adapter.db.ConfigurationVersionStore;
import dev.stagecraft.planner.service.adapter.db.PlannerTestDatabase;
import dev.stagecraft.planner.service.adapter.db.RunRequestStore;
import dev.stagecraft.planner.service.adapter.db.RunStore;
import dev.stagecraft.planner.service.run.journal.RunJournal;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What a restarted planner reads to carry its runs on (docs/adr/0029), in a real PostgreSQL: the
 * recorded requests (variables sealed) and the unfinished runs of the instance.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RestartRecordsTest {
  final Clock clock = Clock.fixed(Instant.parse("2026-11-21T10:00:00Z"), ZoneOffset.UTC);
  final SecretsKeyring keyring = SecretsKeyring.parse(SecretsKeyring.generateEntry("k1"));
  PlannerTestDatabase database;
  HikariDataSource dataSource;

  @BeforeAll
  void startDatabase() throws Exception {
    database = PlannerTestDatabase.start("planner-restart-db-");
    dataSource = database.dataSource();
  }

  @AfterAll
  void stopDatabase() throws Exception {
    if (database != null) {
      database.close();
    }
  }

  static RunRequest request(String workspace) {
    return new RunRequest(
            "acme",
            workspace,
            // one configuration version per workspace: the tests use keyrings of their own
            Map.of("main.tf", "# " + workspace + "\nvariable \"pw\" {}\n"),
            Map.of("scripts/go.sh", "echo go".getBytes(StandardCharsets.UTF_8)),
            Map.of("pw", "hunter2-secret"),
            false,
            List.of("stateful_provisioning.app"),
            4L,
            null,
            "deployer@acme",
            3,
            "run:deploy")
        .withStepTimeoutSeconds(900) // not the default: the round trip must keep it
        .withHclVariables(java.util.Set.of("pw")); // so must the names of HCL values
  }

  Run run(String id, RunRequest request, Instant createdAt) {
    return new Run(id, request, createdAt, new RunJournal(clock));
  }

  RunRequestStore requests(SecretsKeyring secrets) {
    return new RunRequestStore(
        dataSource, clock, secrets, new ConfigurationVersionStore(dataSource, clock, secrets));
  }

  @Test
  void aRecordedRequestComesBackWholeWithItsVariablesSealedAtRest() throws Exception {
    RunStore runs = new RunStore(dataSource, clock, "planner-r", keyring);
    RunRequest request = request("ws-req");
    runs.transitioned(
        run("run-req", request, clock.instant()), 1, RunStatus.PENDING, null, clock.instant());
    requests(keyring).record("run-req", request, true, "from chat");

    RunRequestStore.Recorded back = requests(keyring).find("acme", "run-req").orElseThrow();
    assertThat(back.request())
        .usingRecursiveComparison()
        .ignoringFields("supportFiles")
        .isEqualTo(request);
    assertThat(back.request().supportFiles().get("scripts/go.sh"))
        .isEqualTo("echo go".getBytes(StandardCharsets.UTF_8));
    assertThat(back.awaitingApproval()).isTrue();
    assertThat(requests(keyring).awaitedApproval("acme", "run-req")).contains(true);
    assertThat(requests(keyring).awaitedApproval("other", "run-req")).isEmpty();
    assertThat(back.pendingMessage()).isEqualTo("from chat");
    assertThat(back.variablesComplete()).isTrue();
    assertThat(requests(keyring).find("other", "run-req")).isEmpty();
    try (Connection c = dataSource.getConnection();
        ResultSet rs =
            c.createStatement()
                .executeQuery(
                    "SELECT r::text FROM planner.run_requests r WHERE run_id = 'run-req'")) {
      rs.next();
      assertThat(rs.getString(1)).doesNotContain("hunter2-secret").contains("sealed");
    }
  }

  @Test
  void withoutAKeyringVariableValuesAreNotStoredAndTheRequestIsIncomplete() throws Exception {
    RunStore runs = new RunStore(dataSource, clock, "planner-r", SecretsKeyring.none());
    RunRequest request = request("ws-nokey");
    runs.transitioned(
        run("run-nokey", request, clock.instant()), 1, RunStatus.PENDING, null, clock.instant());
    requests(SecretsKeyring.none()).record("run-nokey", request, false, null);

    RunRequestStore.Recorded back =
        requests(SecretsKeyring.none()).find("acme", "run-nokey").orElseThrow();
    assertThat(back.variablesComplete()).isFalse();
    assertThat(back.request().variables()).isEmpty();
    assertThat(requests(SecretsKeyring.none()).awaitedApproval("acme", "run-nokey"))
        .as("an auto-apply request")
        .contains(false);
  }

  @Test
  void unfinishedRunsAreThoseOfThisInstanceOldestFirstAndEndingOneRecordsWhy() throws Exception {
    RunStore before = new RunStore(dataSource, clock, "planner-u", keyring);
    Instant t = clock.instant();
    Run planned = run("run-u-planned", request("ws-u"), t.minusSeconds(20));
    Run queued = run("run-u-queued", request("ws-u"), t.minusSeconds(30));
    Run applied = run("run-u-applied", request("ws-u"), t.minusSeconds(40));
    before.transitioned(planned, 1, RunStatus.PENDING, null, t);
    before.transitioned(planned, 2, RunStatus.PLANNING, null, t);
    before.transitioned(planned, 3, RunStatus.PLANNED, "plan", t.plusSeconds(1));
    before.transitioned(queued, 1, RunStatus.QUEUED, "position 1", t);
    before.transitioned(applied, 1, RunStatus.APPLIED, "done", t);
    Run elsewhere = run("run-u-elsewhere", request("ws-u"), t);
    new RunStore(dataSource, clock, "planner-v", keyring)
        .transitioned(elsewhere, 1, RunStatus.QUEUED, null, t);

    List<RunStore.UnfinishedRun> unfinished =
        new RunStore(dataSource, clock, "planner-u", keyring).unfinished();

    assertThat(unfinished)
        .extracting(RunStore.UnfinishedRun::id)
        .containsExactly("run-u-queued", "run-u-planned");
    RunStore.UnfinishedRun p = unfinished.get(1);
    assertThat(p.status()).isEqualTo(RunStatus.PLANNED);
    assertThat(p.lastSequence()).isEqualTo(3);
    assertThat(p.plannedAt()).isEqualTo(t.plusSeconds(1));
    assertThat(unfinished.get(0).plannedAt()).isNull();

    // numbered past the gap a resumed run's next transition takes: the events of transitions a
    // crash did not record (1 + 1 here, say) were published with their numbers
    assertThat(before.endUnfinished(unfinished.get(0), "could not resume: because"))
        .hasValue(1 + RunCoordinator.RESUME_SEQUENCE_GAP + 1);
    assertThat(before.find("acme", "run-u-queued").orElseThrow().status()).isEqualTo("errored");
    assertThat(before.transitions("acme", "run-u-queued"))
        .extracting(RunStore.Transition::message)
        .containsExactly("position 1", "could not resume: because");
    assertThat(before.transitions("acme", "run-u-queued"))
        .extracting(RunStore.Transition::sequence)
        .containsExactly(1L, 1 + RunCoordinator.RESUME_SEQUENCE_GAP + 1);
    // a run that moved on since it was read is left alone
    before.transitioned(planned, 4, RunStatus.APPLYING, null, t.plusSeconds(2));
    assertThat(before.endUnfinished(p, "stale")).isEmpty();
    assertThat(before.find("acme", "run-u-planned").orElseThrow().status()).isEqualTo("applying");
  }

  @Test
  void theChangesOfAnApprovedPlanAreRecordedOnceAndComeBackWithTheUnfinishedRun() throws Exception {
    RunStore store = new RunStore(dataSource, clock, "planner-a", keyring);
    Instant t = clock.instant();
    Run run = run("run-a-approved", request("ws-a"), t);
    store.transitioned(run, 1, RunStatus.PLANNED, "plan", t);
    Map<String, String> approved =
        Map.of(
            "stateful_provisioning.app",
            "{\"address\":\"stateful_provisioning.app\",\"change\":{\"after\":{\"n\":1}}}",
            "stateful_provisioning.db",
            "{\"address\":\"stateful_provisioning.db\"}");
    synchronized (run) {
      run.approvedChanges = approved;
    }
    store.transitioned(run, 2, RunStatus.APPLYING, "applying", t);
    // a later transition with other (or no) changes does not overwrite what was approved
    synchronized (run) {
      run.approvedChanges = Map.of("stateful_provisioning.x", "{}");
    }
    store.transitioned(run, 3, RunStatus.APPLYING, "carried on", t);
    Run other = run("run-a-auto", request("ws-a"), t.plusSeconds(1));
    store.transitioned(other, 1, RunStatus.APPLYING, "applying", t);

    List<RunStore.UnfinishedRun> unfinished =
        new RunStore(dataSource, clock, "planner-a", keyring).unfinished();

    assertThat(unfinished)
        .extracting(RunStore.UnfinishedRun::id)
        .containsExactly("run-a-approved", "run-a-auto");
    // the same documents (jsonb keeps no key order)
    Map<String, String> read = unfinished.get(0).approvedChanges();
    assertThat(read).containsOnlyKeys(approved.keySet());
    approved.forEach(
        (address, document) ->
            assertThat(dev.stagecraft.servicekit.http.Json.object(read.get(address)))
                .isEqualTo(dev.stagecraft.servicekit.http.Json.object(document)));
    assertThat(unfinished.get(1).approvedChanges()).isNull();
  }
}
