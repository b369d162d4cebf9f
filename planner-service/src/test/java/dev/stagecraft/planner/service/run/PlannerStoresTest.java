package dev.stagecraft.planner.service.run;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.planner.service.adapter.db.ConfigurationVersionStore;
import dev.stagecraft.planner.service.adapter.db.PlannerTestDatabase;
import dev.stagecraft.planner.service.adapter.db.RunStore;
import dev.stagecraft.planner.service.adapter.db.WorkspaceStore;
import dev.stagecraft.planner.service.config.ConfigurationContent;
import dev.stagecraft.planner.service.run.intake.Submission;
import dev.stagecraft.planner.service.run.journal.RunJournal;
import dev.stagecraft.planner.service.run.recovery.RestartRecovery;
import dev.stagecraft.planner.service.source.RunSource;
import dev.stagecraft.planner.service.workspace.ResolvedVariable;
import dev.stagecraft.planner.service.workspace.VariableCategory;
import dev.stagecraft.planner.service.workspace.VariableOrigin;
import dev.stagecraft.planner.service.workspace.VariableUse;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The planner's records in a real PostgreSQL (schema "planner", migrated by Flyway). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PlannerStoresTest {
  final Clock clock = Clock.fixed(Instant.parse("2026-11-21T10:00:00Z"), ZoneOffset.UTC);
  final SecretsKeyring keyring = SecretsKeyring.parse(SecretsKeyring.generateEntry("k1"));
  PlannerTestDatabase database;
  HikariDataSource dataSource;

  @BeforeAll
  void startDatabase() throws Exception {
    database = PlannerTestDatabase.start("planner-db-");
    dataSource = database.dataSource();
  }

  @AfterAll
  void stopDatabase() throws Exception {
    if (database != null) {
      database.close();
    }
  }

  static RunRequest request(String tenant, String workspace) {
    return new RunRequest(
        tenant,
        workspace,
        Map.of("main.tf", "# empty"),
        Map.of(),
        false,
        List.of(),
        null,
        null,
        "deployer@" + tenant,
        10);
  }

  Run run(String id, String tenant, String workspace, Instant createdAt) {
    return new Run(id, request(tenant, workspace), createdAt, new RunJournal(clock));
  }

  @Test
  void keepsTheNewestStatusWhenTransitionsArriveOutOfOrderAndEveryTransition() throws Exception {
    RunStore store = new RunStore(dataSource, clock, "planner-a", keyring);
    Run run = run("run-order", "acme", "prod", clock.instant());
    Instant t = clock.instant();
    store.transitioned(run, 1, RunStatus.PENDING, null, t);
    store.transitioned(run, 3, RunStatus.PLANNED, "plan text", t.plusSeconds(2));
    store.transitioned(run, 2, RunStatus.PLANNING, null, t.plusSeconds(1));
    RunStore.RunRecord record = store.find("acme", "run-order").orElseThrow();
    assertThat(record.status()).isEqualTo("planned");
    assertThat(record.message()).isEqualTo("plan text");
    assertThat(store.transitions("acme", "run-order"))
        .extracting(RunStore.Transition::status)
        .containsExactly("pending", "planning", "planned");
    assertThat(store.find("other", "run-order")).isEmpty();
    assertThat(store.transitions("other", "run-order")).isEmpty();
  }

  @Test
  void runsActiveWhenThePlannerStoppedAreMarkedErroredAtStartupAndOnlyThose() throws Exception {
    RunStore before = new RunStore(dataSource, clock, "planner-b", keyring);
    Run applying = run("run-applying", "acme", "ws-b", clock.instant());
    Run applied = run("run-applied", "acme", "ws-b", clock.instant());
    before.transitioned(applying, 1, RunStatus.PENDING, null, clock.instant());
    before.transitioned(applying, 2, RunStatus.APPLYING, "1 to add", clock.instant());
    before.transitioned(applied, 1, RunStatus.APPLIED, "done", clock.instant());
    RunStore otherInstance = new RunStore(dataSource, clock, "planner-c", keyring);
    Run elsewhere = run("run-elsewhere", "acme", "ws-c", clock.instant());
    otherInstance.transitioned(elsewhere, 1, RunStatus.APPLYING, null, clock.instant());

    // planner-b restarts: an applying run is not resumed (docs/adr/0029)
    RunStore restarted = new RunStore(dataSource, clock, "planner-b", keyring);
    List<RunStore.UnfinishedRun> unfinished = restarted.unfinished();
    assertThat(unfinished).extracting(RunStore.UnfinishedRun::id).containsExactly("run-applying");
    RestartRecovery.Decision decision =
        RestartRecovery.decide(
            new RestartRecovery.Facts(
                "planner-b", unfinished.get(0).status(), false, false, false, false, null));
    restarted.endUnfinished(
        unfinished.get(0), ((RestartRecovery.Decision.Fail) decision).message());

    RunStore.RunRecord record = before.find("acme", "run-applying").orElseThrow();
    assertThat(record.status()).isEqualTo("errored");
    assertThat(record.terminal()).isTrue();
    assertThat(record.message()).contains("restarted while this run was applying");
    assertThat(before.transitions("acme", "run-applying"))
        .extracting(RunStore.Transition::status)
        .containsExactly("pending", "applying", "errored");
    assertThat(before.find("acme", "run-applied").orElseThrow().status()).isEqualTo("applied");
    assertThat(before.find("acme", "run-elsewhere").orElseThrow().status()).isEqualTo("applying");
  }

  @Test
  void variablesAreStoredSealedAndNeverInClear() throws Exception {
    RunStore store = new RunStore(dataSource, clock, "planner-d", keyring);
    Run run = run("run-vars", "acme", "ws-d", clock.instant());
    store.transitioned(run, 1, RunStatus.PENDING, null, clock.instant());
    store.describe(
        "acme",
        "run-vars",
        "ws-d",
        new Submission.Description(
            "deploy r2",
            null,
            RunSource.git("git://example/app.git", "main", "a".repeat(40)),
            List.of(
                new ResolvedVariable(
                    "db_password",
                    VariableCategory.TERRAFORM,
                    "hunter2-very-secret",
                    false,
                    true,
                    new VariableOrigin.Workspace(3))),
            Map.of("workspace", 3L)),
        Map.of("db_password", "hunter2-very-secret", "revision", "r2"));
    String stored;
    try (Connection c = dataSource.getConnection();
        ResultSet rs =
            c.createStatement()
                .executeQuery("SELECT variables::text FROM planner.runs WHERE id = 'run-vars'")) {
      rs.next();
      stored = rs.getString(1);
    }
    assertThat(stored).doesNotContain("hunter2-very-secret").contains("sealed");
    RunStore.RunRecord record = store.find("acme", "run-vars").orElseThrow();
    assertThat(record.variables()).containsExactlyInAnyOrder("db_password", "revision");
    assertThat(record.requestMessage()).isEqualTo("deploy r2");
    assertThat(record.source().commit()).isEqualTo("a".repeat(40));
    assertThat(record.source().repository()).isEqualTo("git://example/app.git");
    assertThat(record.variableSources())
        .containsExactly(new VariableUse("db_password", "terraform", "workspace", true));
    assertThat(record.variableVersions()).containsEntry("workspace", 3L);

    RunStore withoutKeys = new RunStore(dataSource, clock, "planner-d", SecretsKeyring.none());
    withoutKeys.describe(
        "acme",
        "run-vars",
        "ws-d",
        new Submission.Description(null, null),
        Map.of("db_password", "x-secret"));
    try (Connection c = dataSource.getConnection();
        ResultSet rs =
            c.createStatement()
                .executeQuery("SELECT variables::text FROM planner.runs WHERE id = 'run-vars'")) {
      rs.next();
      assertThat(rs.getString(1)).doesNotContain("x-secret").contains("db_password");
    }
  }

  @Test
  void pagesVisitEveryRunOnceNewestFirstAndFiltersApply() throws Exception {
    RunStore store = new RunStore(dataSource, clock, "planner-e", keyring);
    Instant base = Instant.parse("2026-01-01T00:00:00Z");
    for (int i = 0; i < 7; i++) {
      Run run = run("run-page-" + i, "pager", i % 2 == 0 ? "even" : "odd", base.plusSeconds(i));
      store.transitioned(
          run, 1, i == 3 ? RunStatus.ERRORED : RunStatus.APPLIED, null, clock.instant());
    }
    List<String> seen = new ArrayList<>();
    RunStore.Cursor cursor = null;
    int pages = 0;
    do {
      RunStore.Page page = store.list("pager", null, null, cursor, 3);
      page.items().forEach(r -> seen.add(r.id()));
      cursor = page.nextCursor() == null ? null : RunStore.Cursor.decode(page.nextCursor());
      pages++;
    } while (cursor != null);
    assertThat(pages).isEqualTo(3);
    assertThat(seen)
        .containsExactly(
            "run-page-6",
            "run-page-5",
            "run-page-4",
            "run-page-3",
            "run-page-2",
            "run-page-1",
            "run-page-0");
    assertThat(store.list("pager", "errored", null, null, 10).items())
        .extracting(RunStore.RunRecord::id)
        .containsExactly("run-page-3");
    assertThat(store.list("pager", null, "odd", null, 10).items())
        .extracting(RunStore.RunRecord::id)
        .containsExactly("run-page-5", "run-page-3", "run-page-1");
    assertThat(store.list("someone-else", null, null, null, 10).items()).isEmpty();
  }

  @Test
  void configurationVersionsAreContentAddressedPerTenant() throws Exception {
    ConfigurationVersionStore versions = new ConfigurationVersionStore(dataSource, clock);
    ConfigurationContent content =
        new ConfigurationContent(
            Map.of("main.tf", "resource \"stateful_provisioning\" \"a\" { state_key = \"1\" }"),
            Map.of("scripts/run.sh", "echo hi".getBytes(StandardCharsets.UTF_8)));
    var first = versions.store("acme", content, "deployer@acme");
    var again =
        versions.store(
            "acme",
            new ConfigurationContent(content.files(), content.supportFiles()),
            "admin@acme");
    assertThat(first.id()).startsWith("cv-").hasSize(3 + 64);
    assertThat(again.id()).isEqualTo(first.id());
    assertThat(again.createdBy()).isEqualTo("deployer@acme"); // stored once
    var read = versions.find("acme", first.id()).orElseThrow();
    assertThat(read.content().files()).isEqualTo(content.files());
    assertThat(
            new String(read.content().supportFiles().get("scripts/run.sh"), StandardCharsets.UTF_8))
        .isEqualTo("echo hi");
    assertThat(versions.find("other", first.id())).isEmpty();
  }

  @Test
  void workspacesKeepTheirSettingsPerTenant() throws Exception {
    WorkspaceStore workspaces = new WorkspaceStore(dataSource, clock);
    assertThat(workspaces.create("acme", "staging", false, 4, true)).isTrue();
    assertThat(workspaces.create("acme", "staging", true, 10, false)).isFalse();
    assertThat(workspaces.find("acme", "staging").orElseThrow().stepTimeoutSeconds())
        .isEqualTo(WorkspaceStore.DEFAULT_STEP_TIMEOUT_SECONDS);
    var updated = workspaces.update("acme", "staging", null, 8, null, 600).orElseThrow();
    assertThat(updated.autoApply()).isFalse();
    assertThat(updated.parallelism()).isEqualTo(8);
    assertThat(updated.coalescing()).isTrue();
    assertThat(updated.stepTimeoutSeconds()).isEqualTo(600);
    assertThat(workspaces.update("acme", "staging", true, null, null, null).orElseThrow())
        .extracting(WorkspaceStore.Workspace::stepTimeoutSeconds)
        .isEqualTo(600);
    assertThat(workspaces.find("other", "staging")).isEmpty();
    assertThat(workspaces.update("other", "staging", true, null, null, null)).isEmpty();
    assertThat(workspaces.ensure("acme", "fresh").autoApply()).isTrue();
    assertThat(workspaces.list("acme"))
        .extracting(WorkspaceStore.Workspace::name)
        .containsExactly("fresh", "staging");
  }
}
