package dev.stagecraft.planner.service.adapter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.planner.service.adapter.db.ConfigurationVersionStore;
import dev.stagecraft.planner.service.adapter.db.PlannerTestDatabase;
import dev.stagecraft.planner.service.adapter.db.RunRequestStore;
import dev.stagecraft.planner.service.adapter.db.RunStore;
import dev.stagecraft.planner.service.run.RunCoordinator;
import dev.stagecraft.planner.service.run.RunFixtures;
import dev.stagecraft.planner.service.run.RunRequest;
import dev.stagecraft.planner.service.run.RunStatus;
import dev.stagecraft.planner.service.run.recovery.DispatchedActions;
import dev.stagecraft.planner.service.run.recovery.RecoveryCause;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.run.RunTransitioned;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A run a restarted planner cannot carry on ends {@code errored}, recorded and announced on the
 * run-events topic like every transition (a bot that posted its start posts its end), numbered past
 * the sequences its previous life may have published without recording them. Real PostgreSQL.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RunRecoveryTest {
  final Clock clock = Clock.fixed(Instant.parse("2026-11-22T03:00:00Z"), ZoneOffset.UTC);
  final SecretsKeyring keyring = SecretsKeyring.parse(SecretsKeyring.generateEntry("k1"));
  PlannerTestDatabase database;

  @BeforeAll
  void startDatabase() throws Exception {
    database = PlannerTestDatabase.start("planner-recovery-db-");
  }

  @AfterAll
  void stopDatabase() throws Exception {
    if (database != null) {
      database.close();
    }
  }

  @Test
  void aRunThatCannotBeCarriedOnEndsErroredAndItsEndIsAnnouncedPastTheLostSequences()
      throws Exception {
    RunStore runs = new RunStore(database.dataSource(), clock, "planner-r", keyring);
    RunRequest request =
        new RunRequest(
            "acme",
            "ws-lost",
            Map.of("main.tf", "# ws-lost\n"),
            Map.of(),
            Map.of(),
            true,
            List.of(),
            null,
            null,
            "deployer@acme",
            1,
            null);
    var run = RunFixtures.run("run-lost", request, clock.instant(), clock);
    Instant t = clock.instant();
    runs.transitioned(run, 1, RunStatus.PENDING, null, t);
    runs.transitioned(run, 2, RunStatus.QUEUED, "position 1", t);
    // its request was never recorded (the planner stopped first): it cannot be resumed
    RunRequestStore requests =
        new RunRequestStore(
            database.dataSource(),
            clock,
            keyring,
            new ConfigurationVersionStore(database.dataSource(), clock, keyring));
    List<EventEnvelope> published = new CopyOnWriteArrayList<>();
    RunCoordinator coordinator =
        new RunCoordinator(
            null,
            null,
            events -> events.forEach(e -> published.add(e.envelope())),
            new EventCodec("/test", clock, () -> "e" + published.size()),
            clock,
            () -> "id");

    int resumed = recoverAfterARestart(runs, requests, coordinator);

    assertThat(resumed).isZero();
    long sequence = 2 + RunCoordinator.RESUME_SEQUENCE_GAP + 1;
    assertThat(runs.find("acme", "run-lost").orElseThrow().status()).isEqualTo("errored");
    assertThat(runs.transitions("acme", "run-lost"))
        .extracting(RunStore.Transition::sequence)
        .containsExactly(1L, 2L, sequence);
    assertThat(published).hasSize(1);
    EventEnvelope announced = published.getFirst();
    assertThat(announced.type()).isEqualTo("dev.stagecraft.run.transitioned");
    assertThat(announced.tenant()).isEqualTo("acme");
    assertThat(announced.workspace()).isEqualTo("ws-lost");
    assertThat(announced.runid()).isEqualTo("run-lost");
    assertThat(announced.sequence()).isEqualTo(sequence);
    RunTransitioned data = EventCodec.data(announced, RunTransitioned.class);
    assertThat(data.status()).isEqualTo("errored");
    assertThat(data.message())
        .isEqualTo(runs.transitions("acme", "run-lost").getLast().message())
        .contains("its request was not recorded");

    // a second recovery finds nothing unfinished: nothing more is announced
    assertThat(recoverAfterARestart(runs, requests, coordinator)).isZero();
    assertThat(published).hasSize(1);
  }

  /** What planner-r does with its unfinished runs when it starts again; how many it resumed. */
  private static int recoverAfterARestart(
      RunStore runs, RunRequestStore requests, RunCoordinator coordinator) throws Exception {
    return RunRecovery.recover(
        new RecoveryCause.Restart("planner-r"),
        runs.unfinished(),
        runs,
        requests,
        coordinator,
        new NoDispatches());
  }

  /** A record of dispatched actions that holds none. */
  private static final class NoDispatches implements DispatchedActions {
    @Override
    public Set<String> runsWithDispatches(Collection<String> runIds, Instant since) {
      return Set.of();
    }
  }
}
